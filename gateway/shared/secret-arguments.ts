// Secret arguments: the values a tool's inputSchema marks `writeOnly` (sent, never read back), at
// any depth, under any keyword that applies a subschema (schema-graph.ts walks them all and refuses
// the rest): a branch that calls a place secret makes it secret, whether or not it applies to a
// given call. The one home of that rule: the codec requirement, the memo, the Web UI texts, the
// summary hook and the catalog's header check all read what this module finds.
//
// The graph is walked along the arguments themselves (a recursive `$ref` is a cycle): a secret
// nested in a recursive schema is found at every depth.
import { type SchemaNode, schemaGraph } from './schema-graph.ts';

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

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The secrets of a tool's inputSchema; undefined when it has none. Throws, naming the keyword and
 * its place, on what it cannot walk: an unknown keyword, a `$ref` outside the schema.
 */
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
      : [...(node.prefixItems[at] ?? []), ...node.anyIndex],
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
    const items = here.flatMap((node) => node.anyIndex);
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
