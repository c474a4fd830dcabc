// The request headers a 2026-07-28 request must carry (SEP-2243), judged against its body before the
// MCP layer serves it. Pure functions. Rules, from the 2026-07-28 Streamable HTTP transport
// ("Standard Request Headers", "Custom Headers from Tool Parameters", "Server Validation"):
//   - MCP-Protocol-Version and Mcp-Method on every request; Mcp-Name on tools/call and prompts/get
//     (params.name) and resources/read (params.uri). Missing → 400 / -32020 (HeaderMismatch).
//   - Mcp-Param-<Name> for each argument a tool's inputSchema marks `x-mcp-header: <Name>`, whenever
//     the call carries a value for it: missing, bad characters, bad Base64, or a value other than the
//     body's → 400 / -32020.
// Disagreeing standard headers (Mcp-Method or Mcp-Name naming something else) are refused by the
// SDK's handler, which decodes and compares them; what is judged here is what it cannot see: the
// catalog's x-mcp-header declarations, and presence on methods served past its handler
// (subscriptions/listen). 2025-era requests predate these rules and are not judged.
import type { IncomingHttpHeaders } from 'node:http';
import { classifyInboundRequest, type InboundClassificationOutcome } from '@modelcontextprotocol/server';
import { declarationOf } from '../mcp/methods.ts';
import type { ParamHeader } from '../mcp/schemas.ts';
import { MODERN_PROTOCOL_VERSION } from '../shared/protocol.ts';

/**
 * A refusal: its message and data in the shape the SDK gives its own header refusals (`header`: the
 * header's value, "(missing)" when absent; for Mcp-Param-* headers, the header's name).
 */
export interface HeaderRefusal {
  message: string;
  data: { mismatch: { header: string; body: string } };
}

export type HeaderVerdict =
  /**
   * `add`: headers the gateway supplies before the SDK judges the request (see mcpNameOf);
   * `route`: the request's protocol classification, which the MCP layer goes on with.
   */
  | { ok: true; add: Record<string, string>; route: InboundClassificationOutcome }
  | { ok: false; refusal: HeaderRefusal };

export interface RequestHeadersInput {
  httpMethod: string;
  /** Node's headers: names lower-cased, OWS around values already stripped by its parser. */
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The served tools' Mcp-Param-* declarations by name; a tool not in it has none to check. */
  paramHeaders?: ReadonlyMap<string, readonly ParamHeader[]>;
}

/**
 * The param Mcp-Name mirrors, as the method table declares it (mcp/methods.ts, `mcpName`): required
 * on tools/call (params.name) and resources/read (params.uri), as the core spec has it; supplied on
 * tasks/* (params.taskId). The Tasks extension (ext-tasks specification/draft/tasks.md, "Streamable
 * HTTP: Routing Headers") tells clients they MUST set Mcp-Name to params.taskId, so that
 * intermediaries can route to the instance holding the task; it states no server rule. So a
 * tasks/* request without Mcp-Name (fastmcp-tasks 4.1.4 and the Python SDK send none) is served
 * from params.taskId; the SDK's handler, stricter, is handed the header the client should have
 * sent. A Mcp-Name that names another task is still refused (Server Validation: headers match the
 * body). A method the gateway does not serve (prompts/get) is the SDK's to judge.
 */
function mcpNameOf(method: string) {
  return declarationOf(method)?.mcpName;
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Canonical Base64 only: the SEP-2243 test cases refuse bad padding and foreign characters. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A field value (RFC 9110 §5.5): visible ASCII, space, horizontal tab. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** A value that travels as itself: visible ASCII inside, no whitespace at either end. */
const PLAIN_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/** RFC 9110 §5.5: optional whitespace around a field value is not part of it. */
function stripOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

function isSentinel(value: string): boolean {
  return (
    value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    value.startsWith(SENTINEL_PREFIX) &&
    value.endsWith(SENTINEL_SUFFIX)
  );
}

/**
 * A header value as the value it carries: `=?base64?…?=` decoded (UTF-8), anything else as written.
 * Undefined when it cannot be a value: characters a field value may not hold, or a sentinel whose
 * payload is not canonical Base64 of UTF-8.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = stripOws(raw);
  if (!FIELD_VALUE.test(value)) return undefined;
  if (!isSentinel(value)) return value;
  const payload = value.slice(SENTINEL_PREFIX.length, -SENTINEL_SUFFIX.length);
  if (!BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

/** A value as a client must send it: itself when plain, else the Base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN_VALUE.test(value) && !isSentinel(value)) return value;
  return `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** An argument as its header spells it (the spec's type conversion); undefined: not a primitive. */
function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

const MISSING = '(missing)';

function refusal(header: string, detail: string): HeaderRefusal {
  return {
    message: `Bad Request: the request headers and body disagree: ${detail}`,
    data: { mismatch: { header, body: detail } },
  };
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The Mcp-Param-* headers of one tools/call against the tool's declarations; undefined: all good. */
export function paramHeaderRefusal(
  declarations: readonly ParamHeader[],
  args: unknown,
  headers: IncomingHttpHeaders,
): HeaderRefusal | undefined {
  for (const { path, name, type } of declarations) {
    const header = `Mcp-Param-${name}`;
    const bodyValue = valueAt(args, path);
    // null or absent: the client sends no header and the server expects none.
    if (bodyValue === undefined || bodyValue === null) continue;
    const bodyText = asHeaderText(bodyValue);
    if (bodyText === undefined) continue; // not a primitive: the argument check refuses it
    const where = path.join('.');
    const raw = headerValue(headers, header);
    if (raw === undefined) {
      return refusal(
        header,
        `the body carries ${where}=${JSON.stringify(bodyValue)} but the ${header} header is absent`,
      );
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) {
      return refusal(
        header,
        `the ${header} header holds characters a header value may not carry, or invalid Base64`,
      );
    }
    // Integers compare as numbers (the spec's SHOULD: 42.0 and 42 are one value).
    const numeric =
      (type === 'integer' || type === 'number') &&
      typeof bodyValue === 'number' &&
      /^-?\d+(\.\d+)?$/.test(decoded);
    if (numeric ? Number(decoded) !== bodyValue : decoded !== bodyText) {
      return refusal(
        header,
        `the ${header} header carries ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(bodyValue)}`,
      );
    }
  }
  return undefined;
}

/** Judges the headers of one POST to /mcp against its body (see the top of this file). */
export function judgeRequestHeaders(input: RequestHeadersInput): HeaderVerdict {
  const { headers, body } = input;
  const route = classifyInboundRequest({
    httpMethod: input.httpMethod,
    protocolVersionHeader: headerValue(headers, 'mcp-protocol-version'),
    mcpMethodHeader: headerValue(headers, 'mcp-method'),
    mcpNameHeader: headerValue(headers, 'mcp-name'),
    body,
  });
  const pass: HeaderVerdict = { ok: true, add: {}, route };
  // Legacy requests are not judged; a request the classifier refuses, or one on a revision the
  // gateway does not serve, gets the SDK's answer for that.
  if (route.kind !== 'modern' || route.messageKind !== 'request') return pass;
  if (route.classification.revision !== MODERN_PROTOCOL_VERSION) return pass;
  const { method } = route.message;
  const params = (route.message.params ?? {}) as Record<string, unknown>;
  const missing = (detail: string): HeaderVerdict => ({ ok: false, refusal: refusal(MISSING, detail) });
  if (headerValue(headers, 'mcp-protocol-version') === undefined) {
    return missing(
      `the body envelope names protocol version ${MODERN_PROTOCOL_VERSION} but the required MCP-Protocol-Version header is absent`,
    );
  }
  if (headerValue(headers, 'mcp-method') === undefined) {
    return missing(`the body names method ${method} but the required Mcp-Method header is absent`);
  }
  const mcpName = mcpNameOf(method);
  const named = mcpName ? params[mcpName.param] : undefined;
  const nameAbsent = typeof named === 'string' && headerValue(headers, 'mcp-name') === undefined;
  if (nameAbsent && mcpName?.required) {
    return missing(
      `the body carries params.${mcpName.param}=${JSON.stringify(named)} but the required Mcp-Name header is absent`,
    );
  }
  if (method === 'tools/call' && typeof named === 'string') {
    const declarations = input.paramHeaders?.get(named) ?? [];
    const problem = paramHeaderRefusal(declarations, params.arguments, headers);
    if (problem) return { ok: false, refusal: problem };
  }
  if (nameAbsent) return { ok: true, add: { 'mcp-name': encodeHeaderValue(named) }, route };
  return pass;
}
