// Secret arguments: the values a tool's inputSchema marks `writeOnly` (sent, never read back), at
// any depth: properties of nested objects, array items, what `$ref` reaches in `$defs` or
// `definitions`, and every branch of `allOf`/`anyOf`/`oneOf` (a branch that calls a place secret
// makes it secret). The one home of that rule: the codec requirement, the memo, the Web UI texts,
// the summary hook and the catalog's header check all read what this module finds.
//
// The schema becomes a graph of its subschemas (a recursive `$ref` is a cycle), walked along the
// arguments themselves: a secret nested in a recursive schema is found at every depth.

/** What replaces one secret value (the whole value at a secret place, whatever its type). */
type SecretReplacement = (value: unknown) => unknown;

/** The placeholder a secret shows as where no digest is needed (the summary hook's arguments). */
export const SECRET_PLACEHOLDER = '[secret]';

export interface SecretArguments {
  /**
   * Where the secrets are, for messages: `api_key`, `auth.token`, `accounts[].password`,
   * `pair[1]`, `headers.*` (any key); a recursive schema's once, where the recursion starts.
   */
  readonly paths: readonly string[];
  /** Places at or under a secret whose schema carries `x-mcp-header` (a header would copy it). */
  readonly mirrored: readonly string[];
  /** The arguments with the value at every secret place replaced; the input is not changed. */
  replaced(args: Record<string, unknown>, replace: SecretReplacement): Record<string, unknown>;
}

/** One subschema: its own `writeOnly`, the subschemas of its children, and those that apply beside it. */
interface SchemaNode {
  secret: boolean;
  header: boolean;
  properties: Map<string, SchemaNode[]>;
  /** `additionalProperties` and `patternProperties`: applied to every key (a secret is never missed). */
  anyKey: SchemaNode[];
  prefixItems: SchemaNode[][];
  /** `items`: applied to every index. */
  items: SchemaNode[];
  /** `$ref`, `$dynamicRef`, `allOf`, `anyOf`, `oneOf`, `then`, `else`, `dependentSchemas`. */
  beside: SchemaNode[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The secrets of a tool's inputSchema; undefined when it has none. Throws on a `$ref` it cannot follow. */
export function secretArguments(schema: Json): SecretArguments | undefined {
  const root = schemaGraph(schema);
  const { paths, mirrored } = secretPlaces(root);
  if (paths.length === 0) return undefined;
  return { paths, mirrored, replaced: (args, replace) => replacedObject(args, [root], replace, true) };
}

/** `args` with every secret shown as SECRET_PLACEHOLDER (no secrets: `args` itself). */
export function withoutSecrets(
  args: Record<string, unknown>,
  secrets: SecretArguments | undefined,
): Record<string, unknown> {
  return secrets ? secrets.replaced(args, () => SECRET_PLACEHOLDER) : args;
}

// ---- the schema as a graph ---------------------------------------------------------------------------

function schemaGraph(schema: Json): SchemaNode {
  const nodes = new Map<Json, SchemaNode>();
  const node = (raw: unknown): SchemaNode[] => {
    if (!isObject(raw)) return []; // `true`/`false` schemas say nothing of secrets
    const known = nodes.get(raw);
    if (known) return [known];
    const made: SchemaNode = {
      secret: raw.writeOnly === true,
      header: raw['x-mcp-header'] !== undefined,
      properties: new Map(),
      anyKey: [],
      prefixItems: [],
      items: [],
      beside: [],
    };
    nodes.set(raw, made);
    fill(made, raw, node, schema);
    return [made];
  };
  return node(schema)[0] as SchemaNode;
}

function fill(made: SchemaNode, raw: Json, node: (raw: unknown) => SchemaNode[], root: Json): void {
  const values = (value: unknown): unknown[] => (isObject(value) ? Object.values(value) : []);
  for (const [key, child] of Object.entries(isObject(raw.properties) ? raw.properties : {}))
    made.properties.set(key, node(child));
  made.anyKey.push(...node(raw.additionalProperties), ...values(raw.patternProperties).flatMap(node));
  // Draft-07 tuples (`items` as a list) read as 2020-12's `prefixItems`.
  const tuple = Array.isArray(raw.prefixItems) ? raw.prefixItems : Array.isArray(raw.items) ? raw.items : [];
  made.prefixItems.push(...tuple.map(node));
  made.items.push(...node(Array.isArray(raw.items) ? raw.additionalItems : raw.items));
  for (const keyword of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(raw[keyword])) made.beside.push(...(raw[keyword] as unknown[]).flatMap(node));
  made.beside.push(...node(raw.then), ...node(raw.else), ...values(raw.dependentSchemas).flatMap(node));
  for (const ref of [raw.$ref, raw.$dynamicRef])
    if (typeof ref === 'string') made.beside.push(...node(resolved(root, ref)));
}

/** What a local reference names: `#`, a JSON pointer (`#/$defs/Key`), or an anchor (`#key`). */
function resolved(root: Json, ref: string): unknown {
  if (!ref.startsWith('#'))
    throw new Error(`$ref "${ref}": only references inside the schema (#...) are followed`);
  const fragment = decodeURIComponent(ref.slice(1));
  if (fragment === '') return root;
  if (!fragment.startsWith('/')) {
    const anchored = anchor(root, fragment);
    if (anchored === undefined) throw new Error(`$ref "${ref}": no $anchor "${fragment}" in the schema`);
    return anchored;
  }
  let at: unknown = root;
  for (const part of fragment.slice(1).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    at = at !== null && typeof at === 'object' ? (at as Json)[key] : undefined;
  }
  if (at === undefined) throw new Error(`$ref "${ref}": nothing at that place in the schema`);
  return at;
}

function anchor(at: unknown, name: string): Json | undefined {
  if (at === null || typeof at !== 'object') return undefined;
  if (isObject(at) && (at.$anchor === name || at.$dynamicAnchor === name)) return at;
  for (const child of Object.values(at)) {
    const found = anchor(child, name);
    if (found) return found;
  }
  return undefined;
}

/** Every node that applies where `nodes` do (through `$ref` and the combinators), each once. */
function applying(nodes: readonly SchemaNode[]): SchemaNode[] {
  const seen = new Set<SchemaNode>();
  const visit = (node: SchemaNode) => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const other of node.beside) visit(other);
  };
  for (const node of nodes) visit(node);
  return [...seen];
}

/** The children of a place: under a key (`string`), at an index (`number`). */
function childNodes(nodes: readonly SchemaNode[], at: string | number): SchemaNode[] {
  return nodes.flatMap((node) =>
    typeof at === 'string'
      ? [...(node.properties.get(at) ?? []), ...node.anyKey]
      : [...(node.prefixItems[at] ?? []), ...node.items],
  );
}

// ---- the places, for messages ------------------------------------------------------------------------

function secretPlaces(root: SchemaNode): { paths: string[]; mirrored: string[] } {
  const paths = new Set<string>();
  const mirrored = new Set<string>();
  const onPath = new Set<SchemaNode>();
  const visit = (nodes: SchemaNode[], path: string, underSecret: boolean) => {
    const here = applying(nodes).filter((node) => !onPath.has(node));
    if (here.length === 0) return;
    const secret = underSecret || here.some((node) => node.secret);
    // A `writeOnly` root: every argument is secret.
    if (secret && !underSecret) paths.add(path === '' ? '*' : path);
    if (secret && here.some((node) => node.header)) mirrored.add(path);
    for (const node of here) onPath.add(node);
    const keys = new Set(here.flatMap((node) => [...node.properties.keys()]));
    for (const key of keys) visit(childNodes(here, key), join(path, key), secret);
    const anyKey = here.flatMap((node) => node.anyKey);
    if (anyKey.length > 0) visit(anyKey, join(path, '*'), secret);
    const longest = Math.max(0, ...here.map((node) => node.prefixItems.length));
    for (let index = 0; index < longest; index++)
      visit(
        here.flatMap((node) => node.prefixItems[index] ?? []),
        `${path}[${index}]`,
        secret,
      );
    const items = here.flatMap((node) => node.items);
    if (items.length > 0) visit(items, `${path}[]`, secret);
    for (const node of here) onPath.delete(node);
  };
  visit([root], '', false);
  return { paths: [...paths], mirrored: [...mirrored] };
}

const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

// ---- the arguments with their secrets replaced ---------------------------------------------------------

function replacedValue(value: unknown, nodes: readonly SchemaNode[], replace: SecretReplacement): unknown {
  const here = applying(nodes);
  if (here.some((node) => node.secret)) return replace(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item, index) => {
      const kept = replacedValue(item, childNodes(here, index), replace);
      changed ||= kept !== item;
      return kept;
    });
    return changed ? out : value;
  }
  return isObject(value) ? replacedObject(value, here, replace, false) : value;
}

/**
 * An object's members, each replaced where it is secret; the object itself when none is. The
 * arguments as a whole are never replaced: a `writeOnly` schema root makes each member secret.
 */
function replacedObject(
  value: Json,
  nodes: readonly SchemaNode[],
  replace: SecretReplacement,
  isRoot: boolean,
): Json {
  const here = applying(nodes);
  const rootSecret = isRoot && here.some((node) => node.secret);
  let changed = false;
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    const kept = rootSecret ? replace(member) : replacedValue(member, childNodes(here, key), replace);
    changed ||= kept !== member;
    out[key] = kept;
  }
  return changed ? out : value;
}
