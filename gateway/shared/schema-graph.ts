// An inputSchema as a graph of its subschemas, for secret-arguments.ts. Every keyword of the dialect
// the gateway compiles (JSON Schema 2020-12, Ajv's `Ajv2020`, with draft-07's `definitions` and
// `dependencies` it also accepts) has a place in KEYWORDS: walked where it holds subschemas, kept as
// a value where it holds none. Any other keyword is refused, naming it and its place: a keyword the
// walk does not know could hold a secret it would miss.
//
// `$ref` resolves as the spec says: against the base URI of the resource it sits in (the nearest
// `$id`), into that resource by JSON pointer or `$anchor`. `$dynamicRef` reaches its static target
// and every schema with the same `$dynamicAnchor` (whichever the dynamic scope picks is among them).

type Json = Record<string, unknown>;

/** One subschema: its own secrecy, the subschemas of its children, and those that apply beside it. */
export interface SchemaNode {
  /** `writeOnly: true`, or a secret in what the gateway cannot take apart (key names, encoded content). */
  secret: boolean;
  header: boolean;
  properties: Map<string, SchemaNode[]>;
  /** `additionalProperties`, `patternProperties`, `unevaluatedProperties`: applied to every key. */
  anyKey: SchemaNode[];
  prefixItems: SchemaNode[][];
  /** `items`, `contains`, `unevaluatedItems`: applied to every index (a secret is never missed). */
  anyIndex: SchemaNode[];
  /** `$ref`, `$dynamicRef`, `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then`, `else`, `dependentSchemas`, `dependencies`. */
  beside: SchemaNode[];
}

/** How a keyword's value holds subschemas: one, a list, a map of them, or none (`value`). */
type Shape = 'schema' | 'list' | 'map' | 'dependencies' | 'ref' | 'dynamicRef' | 'value';
/** Where its subschemas apply: beside the schema, to keys, indices, the whole value; `none`: only through `$ref`. */
type Applies = 'beside' | 'property' | 'anyKey' | 'prefix' | 'anyIndex' | 'whole' | 'none';

interface Walk {
  shape: Shape;
  applies: Applies;
}

/** Keywords whose value holds no subschema (assertions, annotations, identifiers). */
const VALUES = [
  ...['$schema', '$id', '$anchor', '$dynamicAnchor', '$vocabulary', '$comment', '$async', 'x-mcp-header'],
  ...['type', 'enum', 'const', 'nullable', 'format', 'contentMediaType', 'contentEncoding'],
  ...['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['formatMaximum', 'formatExclusiveMaximum', 'formatMinimum', 'formatExclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems'],
  ...['maxContains', 'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired'],
  ...['title', 'description', 'default', 'deprecated', 'readOnly', 'writeOnly', 'examples'],
];

const KEYWORDS = new Map<string, Walk>([
  // Core (with draft-07's `definitions`): `$defs` are reached only through a reference.
  ['$ref', { shape: 'ref', applies: 'beside' }],
  ['$dynamicRef', { shape: 'dynamicRef', applies: 'beside' }],
  ['$defs', { shape: 'map', applies: 'none' }],
  ['definitions', { shape: 'map', applies: 'none' }],
  // Applicators: in place, then of objects, then of arrays.
  ...['allOf', 'anyOf', 'oneOf'].map((k): [string, Walk] => [k, { shape: 'list', applies: 'beside' }]),
  ...['not', 'if', 'then', 'else'].map((k): [string, Walk] => [k, { shape: 'schema', applies: 'beside' }]),
  ['dependentSchemas', { shape: 'map', applies: 'beside' }],
  ['dependencies', { shape: 'dependencies', applies: 'beside' }],
  ['properties', { shape: 'map', applies: 'property' }],
  ['patternProperties', { shape: 'map', applies: 'anyKey' }],
  ['additionalProperties', { shape: 'schema', applies: 'anyKey' }],
  ['unevaluatedProperties', { shape: 'schema', applies: 'anyKey' }],
  // The key names are a string each: a secret there hides the object whole.
  ['propertyNames', { shape: 'schema', applies: 'whole' }],
  ['prefixItems', { shape: 'list', applies: 'prefix' }],
  ...['items', 'contains', 'unevaluatedItems'].map((k): [string, Walk] => [
    k,
    { shape: 'schema', applies: 'anyIndex' },
  ]),
  // `contentSchema` describes the decoded string: a secret there hides the string whole.
  ['contentSchema', { shape: 'schema', applies: 'whole' }],
  ...VALUES.map((k): [string, Walk] => [k, { shape: 'value', applies: 'none' }]),
]);

/** Keywords Ajv knows that the walk refuses, with why. */
const REFUSED: Record<string, string> = {
  $recursiveRef: 'a 2019-09 keyword: use $dynamicRef',
  $recursiveAnchor: 'a 2019-09 keyword: use $dynamicAnchor',
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The base URI of a schema without `$id` (any URI would do: references resolve inside the schema). */
const DEFAULT_BASE = 'https://input-schema.invalid/';

/** Where a subschema sits: its resource's base URI and its JSON pointer (`#/properties/a`). */
interface Location {
  base: string;
  pointer: string;
}

/** Every subschema of the document, each with its place; resources by URI, anchors by URI#name. */
interface SchemaIndex {
  located: Map<Json, Location>;
  resources: Map<string, Json>;
  anchors: Map<string, Json>;
  dynamicAnchors: Map<string, Json[]>;
}

/** The schema's graph, from its root. Throws naming the keyword and its place for what it cannot walk. */
export function schemaGraph(schema: Json): SchemaNode {
  const index = indexed(schema);
  const nodes = new Map<Json, SchemaNode>();
  for (const raw of index.located.keys())
    nodes.set(raw, {
      secret: raw.writeOnly === true,
      header: raw['x-mcp-header'] !== undefined,
      properties: new Map(),
      anyKey: [],
      prefixItems: [],
      anyIndex: [],
      beside: [],
    });
  const wholes = new Map<SchemaNode, SchemaNode[]>();
  for (const [raw, node] of nodes) linked(node, raw, { index, nodes, wholes });
  // After every link: a secret reached from key names or content hides the value they belong to.
  const secretWholes = [...wholes].filter(([, inside]) => reachesSecret(inside, wholes));
  for (const [node] of secretWholes) node.secret = true;
  return nodes.get(schema) as SchemaNode;
}

// ---- the index: every subschema's place, checked keyword by keyword ---------------------------------

function indexed(root: Json): SchemaIndex {
  const index: SchemaIndex = {
    located: new Map(),
    resources: new Map(),
    anchors: new Map(),
    dynamicAnchors: new Map(),
  };
  index.resources.set(DEFAULT_BASE, root);
  const visit = (raw: unknown, pointer: string, outerBase: string) => {
    if (typeof raw === 'boolean') return; // `true`/`false` schemas say nothing of secrets
    if (!isObject(raw)) throw new Error(`${pointer}: a schema must be an object or a boolean`);
    if (index.located.has(raw)) return;
    const base = resourceBase(raw, pointer, outerBase);
    if (base !== outerBase || pointer === '#') index.resources.set(base, raw);
    index.located.set(raw, { base, pointer });
    if (typeof raw.$anchor === 'string') index.anchors.set(`${base}#${raw.$anchor}`, raw);
    if (typeof raw.$dynamicAnchor === 'string') {
      index.anchors.set(`${base}#${raw.$dynamicAnchor}`, raw);
      index.dynamicAnchors.set(raw.$dynamicAnchor, [
        ...(index.dynamicAnchors.get(raw.$dynamicAnchor) ?? []),
        raw,
      ]);
    }
    for (const [keyword, value] of Object.entries(raw))
      for (const [at, child] of subschemas(keyword, value, pointer)) visit(child, at, base);
  };
  visit(root, '#', DEFAULT_BASE);
  return index;
}

/** The base URI a schema's own `$id` sets (without fragment), or the one it is in. */
function resourceBase(raw: Json, pointer: string, outerBase: string): string {
  if (raw.$id === undefined) return outerBase;
  if (typeof raw.$id !== 'string') throw new Error(`${pointer}: $id must be a string`);
  let url: URL;
  try {
    url = new URL(raw.$id, outerBase);
  } catch {
    throw new Error(`${pointer}: $id "${raw.$id}" is not a URI reference this schema can resolve`);
  }
  if (url.hash.length > 1)
    throw new Error(`${pointer}: $id "${raw.$id}" has a fragment: name a place with $anchor`);
  url.hash = '';
  return url.href;
}

/** A keyword's subschemas with their pointers; throws for a keyword the walk does not know. */
function subschemas(keyword: string, value: unknown, pointer: string): [string, unknown][] {
  const known = KEYWORDS.get(keyword);
  const at = `${pointer}/${keyword.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  if (!known) {
    const why =
      REFUSED[keyword] ??
      'the gateway cannot tell whether it holds a secret (writeOnly) and does not accept it';
    throw new Error(`${pointer}: unknown keyword "${keyword}": ${why}`);
  }
  const member = (key: string) => `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  switch (known.shape) {
    case 'schema':
      return [[at, value]];
    case 'list':
      if (!Array.isArray(value)) throw new Error(`${at}: must be a list of schemas`);
      return value.map((item, i) => [member(String(i)), item]);
    case 'map':
    case 'dependencies':
      if (!isObject(value)) throw new Error(`${at}: must be an object of schemas`);
      return Object.entries(value)
        .filter(([, item]) => !(known.shape === 'dependencies' && Array.isArray(item))) // a list of names
        .map(([key, item]) => [member(key), item]);
    default:
      return [];
  }
}

// ---- the links: subschemas, references -----------------------------------------------------------

/** The graph being linked: the index, a node per subschema, the subschemas that apply to a value whole. */
interface Linking {
  index: SchemaIndex;
  nodes: Map<Json, SchemaNode>;
  wholes: Map<SchemaNode, SchemaNode[]>;
}

function linked(node: SchemaNode, raw: Json, { index, nodes, wholes }: Linking): void {
  const from = index.located.get(raw) as Location;
  const of = (child: unknown) => (isObject(child) ? [nodes.get(child) as SchemaNode] : []);
  for (const [keyword, value] of Object.entries(raw)) {
    const { shape, applies } = KEYWORDS.get(keyword) as Walk;
    if (applies === 'none') continue;
    if (applies === 'property') {
      for (const [key, child] of Object.entries(value as Json)) node.properties.set(key, of(child));
      continue;
    }
    if (applies === 'prefix') {
      node.prefixItems.push(...(value as unknown[]).map(of));
      continue;
    }
    const targets =
      shape === 'ref' || shape === 'dynamicRef'
        ? referenced(keyword, value, from, index).flatMap(of)
        : subschemas(keyword, value, from.pointer).flatMap(([, child]) => of(child));
    if (applies === 'whole') wholes.set(node, [...(wholes.get(node) ?? []), ...targets]);
    else if (applies === 'anyKey') node.anyKey.push(...targets);
    else if (applies === 'anyIndex') node.anyIndex.push(...targets);
    else node.beside.push(...targets);
  }
}

/** What a reference names, resolved against its base; a dynamic one also every like `$dynamicAnchor`. */
function referenced(keyword: string, ref: unknown, from: Location, index: SchemaIndex): unknown[] {
  const at = `${from.pointer}/${keyword}`;
  if (typeof ref !== 'string') throw new Error(`${at}: ${keyword} must be a string`);
  let url: URL;
  let fragment: string;
  try {
    url = new URL(ref, from.base);
    fragment = decodeURIComponent(url.hash.slice(1));
  } catch {
    throw new Error(`${at}: ${keyword} ${JSON.stringify(ref)} is not a URI reference`);
  }
  url.hash = '';
  const resource = index.resources.get(url.href);
  if (!resource)
    throw new Error(
      `${at}: ${keyword} "${ref}" names no schema inside this one: only references inside the schema are followed`,
    );
  let target: unknown;
  if (fragment === '') target = resource;
  else if (fragment.startsWith('/')) target = pointed(resource, fragment);
  else target = index.anchors.get(`${url.href}#${fragment}`);
  if (target === undefined)
    throw new Error(`${at}: ${keyword} "${ref}": nothing at that place in the schema`);
  if (isObject(target) && !index.located.has(target))
    throw new Error(`${at}: ${keyword} "${ref}" names a place that is not a subschema`);
  const dynamicTargets =
    keyword === '$dynamicRef' && !fragment.startsWith('/') ? (index.dynamicAnchors.get(fragment) ?? []) : [];
  return [target, ...dynamicTargets];
}

/** The value a JSON pointer (`/$defs/Key`) names inside a resource, or undefined. */
function pointed(resource: Json, pointer: string): unknown {
  let at: unknown = resource;
  for (const part of pointer.slice(1).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    at = at !== null && typeof at === 'object' ? (at as Json)[key] : undefined;
  }
  return at;
}

/** Whether any subschema reachable from `nodes`, along any link, is `writeOnly`. */
function reachesSecret(nodes: readonly SchemaNode[], wholes: Map<SchemaNode, SchemaNode[]>): boolean {
  const seen = new Set<SchemaNode>();
  const stack = [...nodes];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.secret) return true;
    stack.push(...[...node.properties.values()].flat(), ...node.anyKey, ...node.prefixItems.flat());
    stack.push(...node.anyIndex, ...node.beside, ...(wholes.get(node) ?? []));
  }
  return false;
}
