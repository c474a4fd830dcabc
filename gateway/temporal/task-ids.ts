// Task ids: `<tool prefix>-` then a 128-bit body (random, or an idempotency key's HMAC) and a
// 64-bit owner tag, HMAC(server secret, principal, prefix, body): the task's key, its McpTaskId, known
// before its start. Whether an id is the caller's is told without asking Temporal, so another caller's
// task and one that never existed are refused alike, at once; the prefix names the tool. Without the
// running-task cap the key is the run's own workflow id. Under it a run holds a slot's workflow id,
// reused run after run (slots.ts), so the id a start answers with adds `.` and the slot, the run id
// and a tag over all of it: one describe finds the run for its whole retention. Slotted ids of an
// earlier form (`<prefix>~`, no run) are still read. An id reads as the first form it is well-formed
// in, a run part first, so a prefix may hold `.` anywhere (`build.v1`) and every id that read
// before reads as it did; the two prefix tails that would still make a plain id read as another
// form are refused where ids are made and where a catalog loads (prefixFault), rather than changing
// a format whose ids are already out. Pure.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const BODY_BYTES = 16;
const SLOT_BYTES = 2;
const TAG_BYTES = 8;
const RUN_BYTES = 16;
/** The most slots an id can name. */
export const MAX_SLOTS = 2 ** (8 * SLOT_BYTES);
/** The run part of an id under the cap: slot, run id, tag. */
const RUN_PART_BYTES = SLOT_BYTES + RUN_BYTES + TAG_BYTES;
/** The key's two forms: encoded length, the separator before it, decoded length (`~`: no run part). */
const FORMS: [number, string, number][] = [
  [encodedLength(BODY_BYTES + SLOT_BYTES + TAG_BYTES), '~', BODY_BYTES + SLOT_BYTES + TAG_BYTES],
  [encodedLength(BODY_BYTES + TAG_BYTES), '-', BODY_BYTES + TAG_BYTES],
];

function encodedLength(bytes: number): number {
  return Math.ceil((bytes * 4) / 3);
}

/** A plain key's characters after its `-`; a base64url character. */
const KEY_CHARS = encodedLength(BODY_BYTES + TAG_BYTES);
const B64 = '[A-Za-z0-9_-]';
/** How many of a prefix's last characters follow where the other forms' separator would sit. */
const SLOTTED_AFTER = encodedLength(BODY_BYTES + SLOT_BYTES + TAG_BYTES) - KEY_CHARS - 1;
const RUN_AFTER = encodedLength(RUN_PART_BYTES) - KEY_CHARS - 1;
/**
 * The prefix tails that make a plain id (`<prefix>-` and a key) read as another form: a `~` where a
 * slotted key's sits, or a `.` where a run part's sits after a whole key (`-` and its characters),
 * which reads as a run part's id under the shorter prefix. Any other prefix, dots anywhere, reads
 * back as its own.
 */
const SLOTTED_TAIL = new RegExp(`.~${B64}{${SLOTTED_AFTER}}$`);
const RUN_TAIL = new RegExp(`.-${B64}{${KEY_CHARS}}\\.${B64}{${RUN_AFTER}}$`);

/** Why task ids under `prefix` would not read back as its own, or undefined when they do. */
export function prefixFault(prefix: string): string | undefined {
  if (prefix === '') return 'it is empty';
  if (SLOTTED_TAIL.test(prefix))
    return `a "~" followed by ${SLOTTED_AFTER} characters at its end makes its ids read as slotted ids`;
  if (RUN_TAIL.test(prefix)) {
    const shorter = prefix.slice(0, -(KEY_CHARS + RUN_AFTER + 2)); // less `-`, the key, `.`, the rest
    return `a "-", ${KEY_CHARS} id characters, "." and ${RUN_AFTER} more at its end make its ids read as ids under the prefix "${shorter}" naming a run`;
  }
  return undefined;
}

/** `prefix`, when ids made under it read back as its own (else an Error: nothing is made of it). */
function checkedPrefix(prefix: string): string {
  const fault = prefixFault(prefix);
  if (fault) throw new Error(`task ids cannot be made under the prefix "${prefix}": ${fault}`);
  return prefix;
}

/** `tagged`: the bytes the tag covers, the body or an earlier slotted form's body and slot. */
function ownerTag(secret: Buffer, principal: string, prefix: string, tagged: Buffer): Buffer {
  const version = tagged.length === BODY_BYTES ? 'mcp-task-owner/v2' : 'mcp-task-owner/v3';
  const mac = createHmac('sha256', secret).update(JSON.stringify([version, principal, prefix]));
  return mac.update(tagged).digest().subarray(0, TAG_BYTES);
}

/** The task key of `body` (16 bytes) for `principal`, under the tool's id prefix. */
function ownedTaskId(secret: Buffer, principal: string, prefix: string, body: Buffer): string {
  const bytes = Buffer.concat([body, ownerTag(secret, principal, prefix, body)]);
  return `${prefix}-${bytes.toString('base64url')}`;
}

function slotBytes(slot: number): Buffer {
  if (!Number.isInteger(slot) || slot < 0 || slot >= MAX_SLOTS) throw new Error(`slot ${slot} out of range`);
  const bytes = Buffer.alloc(SLOT_BYTES);
  bytes.writeUInt16BE(slot);
  return bytes;
}

/** A fresh task key for `principal`: 128 random bits. */
export function newTaskId(secret: Buffer, principal: string, prefix: string): string {
  return ownedTaskId(secret, principal, checkedPrefix(prefix), randomBytes(BODY_BYTES));
}

/** A well-formed task id, parsed once where a request names it; every function here takes it or the text. */
export interface TaskRef {
  /** The id as written. */
  id: string;
  prefix: string;
  /** The key's decoded bytes: body, (an earlier slotted form's slot,) owner tag. */
  bytes: Buffer;
  /** The id without its run part: the task's key (its McpTaskId). */
  key: string;
  /** The slot it names, when it names one. */
  slot?: number;
  /** The run it names (an id a start under the cap answered with), and that part's tag. */
  run?: { runId: string; tag: Buffer };
}

/** A task id as given: its text, or the value it was parsed into already. */
export type TaskName = string | TaskRef;

/** A request's task ids as its edge parsed them: the value for an id it parsed, else the text. */
export type ParsedTaskIds = (taskId: string) => TaskName;

/**
 * A well-formed task id's parts; undefined for anything else. Each form is tried in turn, a run
 * part first: a prefix may hold `.` (a tool named `build.v1`), so a `.` where a run part would
 * begin does not make an id without one unreadable. The prefix tails that would make a plain id
 * read as another form are refused where ids are made (prefixFault): for an id this gateway made,
 * the order decides nothing.
 */
function parse(taskId: string): TaskRef | undefined {
  return withRunPart(taskId) ?? parseKey(taskId);
}

/** An id a start under the cap answered with: a key without a slot, `.`, slot, run id and tag. */
function withRunPart(taskId: string): TaskRef | undefined {
  const at = taskId.length - encodedLength(RUN_PART_BYTES) - 1;
  if (at <= 0 || taskId[at] !== '.') return undefined;
  const part = decoded(taskId.slice(at + 1), RUN_PART_BYTES);
  const key = part && parseKey(taskId.slice(0, at));
  if (!part || !key || key.slot !== undefined) return undefined;
  const runId = uuidText(part.subarray(SLOT_BYTES, SLOT_BYTES + RUN_BYTES));
  const run = { runId, tag: part.subarray(SLOT_BYTES + RUN_BYTES) };
  return { ...key, id: taskId, slot: part.readUInt16BE(0), run };
}

/** The parts of a task id given as text or already parsed (then not parsed again). */
function partsOf(task: TaskName): TaskRef | undefined {
  return typeof task === 'string' ? parse(task) : task;
}

/** The text of a task id given either way. */
export function taskIdText(task: TaskName): string {
  return typeof task === 'string' ? task : task.id;
}

/** A well-formed task id's parts, parsed once at the edge of a request; undefined for anything else. */
export function parseTaskId(taskId: string): TaskRef | undefined {
  return parse(taskId);
}

/** A task key's parts (an id without a run part); undefined for anything else. */
function parseKey(key: string): TaskRef | undefined {
  for (const [length, separator, size] of FORMS) {
    const at = key.length - length - 1;
    if (at <= 0 || key[at] !== separator) continue;
    const bytes = decoded(key.slice(at + 1), size);
    if (!bytes) continue;
    const prefix = key.slice(0, at);
    return separator === '~'
      ? { id: key, prefix, bytes, key, slot: bytes.readUInt16BE(BODY_BYTES) }
      : { id: key, prefix, bytes, key };
  }
  return undefined;
}

/** `encoded` as `size` bytes, when it is exactly their base64url (Node's decoder skips other characters). */
function decoded(encoded: string, size: number): Buffer | undefined {
  const bytes = Buffer.from(encoded, 'base64url');
  return bytes.length === size && bytes.toString('base64url') === encoded ? bytes : undefined;
}

/** The id prefix of a well-formed task id (it names the tool), or undefined. */
export function taskIdPrefix(taskId: TaskName): string | undefined {
  return partsOf(taskId)?.prefix;
}

/** The slot a task id names (a run started under the running-task cap), or undefined. */
export function taskSlot(taskId: TaskName): number | undefined {
  return partsOf(taskId)?.slot;
}

/** The workflow id of `principal`'s slot `slot` of the running-task cap (slots.ts). */
export function slotWorkflowId(secret: Buffer, principal: string, slot: number): string {
  const tag = createHmac('sha256', secret)
    .update(`running-task-slot:${principal}`)
    .digest('base64url')
    .slice(0, 22);
  return `mcp-run-${tag}-${slot}`;
}

/**
 * The task id of a run visibility listed: under the cap its memo's task key with its slot and run (a
 * run started when slotted ids had no run part answers that id), else its workflow id.
 */
export function listedTaskId(
  secret: Buffer,
  principal: string,
  run: { workflowId: string; runId: string; memoTask: unknown },
): string {
  const slot = slotOf(secret, principal, run.workflowId);
  if (slot === undefined || typeof run.memoTask !== 'string') return run.workflowId;
  if (namesNoRun(run.memoTask)) return run.memoTask;
  return runTaskId(secret, run.memoTask, { slot, runId: run.runId });
}

/** The slot of `principal` whose workflow id is `workflowId`, if it is one. */
export function slotOf(secret: Buffer, principal: string, workflowId: string): number | undefined {
  const slot = Number(/-(\d{1,5})$/.exec(workflowId)?.[1]);
  if (!Number.isInteger(slot) || slot >= MAX_SLOTS) return undefined;
  return slotWorkflowId(secret, principal, slot) === workflowId ? slot : undefined;
}

/** Whether `taskId` is a well-formed id this server issued to `principal` (constant time in the tag). */
export function isOwnedBy(secret: Buffer, principal: string, taskId: TaskName): boolean {
  const parsed = partsOf(taskId);
  if (!parsed) return false;
  const tagged = parsed.bytes.subarray(0, parsed.bytes.length - TAG_BYTES);
  const tag = parsed.bytes.subarray(parsed.bytes.length - TAG_BYTES);
  if (!timingSafeEqual(tag, ownerTag(secret, principal, parsed.prefix, tagged))) return false;
  const { run, slot, key } = parsed;
  return !run || timingSafeEqual(run.tag, runTag(secret, key, slot as number, run.runId));
}

/** The tag over a task key and the slot and run a start gave it: no part of an id changes alone. */
function runTag(secret: Buffer, key: string, slot: number, runId: string): Buffer {
  const mac = createHmac('sha256', secret).update(JSON.stringify(['mcp-task-run/v1', key, slot, runId]));
  return mac.digest().subarray(0, TAG_BYTES);
}

/**
 * The id a start under the cap answers with: the task's key, the slot whose workflow id the run
 * holds and the run the start got, so the task is one describe of that run even after later tasks
 * took the slot. Without a slot the key is its run's own workflow id, and is the id as it is.
 */
export function runTaskId(secret: Buffer, key: string, run: { slot?: number; runId: string }): string {
  if (run.slot === undefined) return key;
  const tag = runTag(secret, key, run.slot, run.runId);
  const part = Buffer.concat([slotBytes(run.slot), uuidBytes(run.runId), tag]);
  return `${key}.${part.toString('base64url')}`;
}

/** The task's key: its McpTaskId and its memo's `task` (the id a user quotes, up to its run part). */
export function taskKey(taskId: TaskName): string | undefined {
  return partsOf(taskId)?.key;
}

/**
 * The run a task id names: its workflow id (its slot's, or the id itself) and the run id a start
 * under the cap added. For ids `isOwnedBy` accepted.
 */
export function taskRun(
  secret: Buffer,
  principal: string,
  taskId: TaskName,
): { workflowId: string; runId?: string } {
  const parsed = partsOf(taskId);
  if (parsed?.slot === undefined) return { workflowId: taskIdText(taskId) };
  const workflowId = slotWorkflowId(secret, principal, parsed.slot);
  return parsed.run ? { workflowId, runId: parsed.run.runId } : { workflowId };
}

/** A slotted id that names no run (`~`): its run is found only while it holds its slot. */
export function namesNoRun(taskId: TaskName): boolean {
  const parsed = partsOf(taskId);
  return parsed?.slot !== undefined && parsed.run === undefined;
}

/**
 * The id of a start under the cap that Temporal did not confirm: the key and its slot, no run (the
 * earlier slotted form, `~`), which finds the run while it holds the slot.
 */
export function slotTaskId(secret: Buffer, principal: string, key: string, slot: number): string {
  const parsed = parseKey(key);
  if (!parsed || parsed.slot !== undefined) throw new Error('not a task key');
  const tagged = Buffer.concat([parsed.bytes.subarray(0, BODY_BYTES), slotBytes(slot)]);
  const bytes = Buffer.concat([tagged, ownerTag(secret, principal, parsed.prefix, tagged)]);
  return `${parsed.prefix}~${bytes.toString('base64url')}`;
}

/**
 * Whether a slot's run whose memo names task `memoTask` is the task `taskId` names: its key, or for
 * a `~` id either that id (a run started when ids had that form) or the key of the same body.
 */
export function isTaskOfRun(secret: Buffer, principal: string, taskId: TaskName, memoTask: unknown): boolean {
  const parsed = partsOf(taskId);
  if (!parsed || typeof memoTask !== 'string') return false;
  if (parsed.run || parsed.slot === undefined) return memoTask === parsed.key;
  const body = parsed.bytes.subarray(0, BODY_BYTES);
  return memoTask === parsed.id || memoTask === ownedTaskId(secret, principal, parsed.prefix, body);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidBytes(runId: string): Buffer {
  if (!UUID.test(runId)) throw new Error(`a Temporal run id is a UUID, got "${runId}"`);
  return Buffer.from(runId.replaceAll('-', ''), 'hex');
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}

/**
 * The task id of an idempotent start: 128 bits of HMAC(secret, principal, tool, key) as its body,
 * owned like any other, so a retried start names the same workflow.
 */
export function keyedTaskId(
  secret: Buffer,
  principal: string,
  tool: { name: string; idPrefix: string },
  key: string,
): string {
  const mac = createHmac('sha256', secret).update(
    JSON.stringify(['mcp-task-id/v1', principal, tool.name, key]),
  );
  return ownedTaskId(secret, principal, checkedPrefix(tool.idPrefix), mac.digest().subarray(0, BODY_BYTES));
}

/**
 * Where a keyed start under the cap begins to try slots, and the request id it starts with in each:
 * both drawn from the key, so a retry (after a gateway died between the run's start and its key's
 * record) tries the same slots first, and Temporal answers its start in the slot the first start
 * took with that run, not a second one.
 */
export function keyedSlotStart(
  secret: Buffer,
  keyId: string,
): { first: number; requestId(slot: number): string } {
  const mac = (what: unknown) =>
    createHmac('sha256', secret)
      .update(JSON.stringify(['mcp-keyed-start/v1', keyId, what]))
      .digest();
  return {
    first: mac('first').readUInt32BE(0),
    requestId: (slot) => uuidText(mac(slot).subarray(0, 16)),
  };
}

/** A JSON value with its object keys sorted (undefined members left out): equal values, equal texts. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** The argument names whose values differ between the stored start and this one (sorted). */
export function differingArguments(
  stored: Record<string, unknown>,
  given: Record<string, unknown>,
): string[] {
  const names = new Set([...Object.keys(stored), ...Object.keys(given)]);
  return [...names]
    .filter((name) => JSON.stringify(canonical(stored[name])) !== JSON.stringify(canonical(given[name])))
    .sort();
}
