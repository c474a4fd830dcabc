// The codec server for the Temporal Web UI (and `temporal --codec-endpoint`): POST /codec/decode and
// POST /codec/encode take `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }` and answer
// the same shape, decrypted or encrypted with the gateway's codec keys. Off unless
// MCP_CODEC_SERVER=true. Who may call it:
//   - with bearer tokens or OAuth configured, or the embedding host's own authentication: a caller
//     /mcp accepts (the Web UI sends its own login's access token with `passAccessToken`), of a
//     principal in MCP_CODEC_PRINCIPALS (required then);
//   - without authentication (a loopback-only gateway, `npm start`): only callers on this machine (a
//     loopback peer: routes.ts puts /mcp and this endpoint under one rule, loopback.ts), and from a
//     browser only pages of an Origin in MCP_CODEC_CORS_ORIGINS — the dev server's Web UI has no
//     login to send, and the Origin check keeps every other web page the browser has open from
//     using it. The Temporal CLI's `--codec-endpoint` (no Origin) works too.
// CORS: an allowed Origin gets its own Access-Control-Allow-Origin (credentials allowed, for
// `includeCredentials`); any other Origin is refused, preflight included.
import type { Payload } from '@temporalio/common';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type EncryptionCodec, UndecryptablePayloadError } from '../../common/payload-codec.ts';
import {
  type CodecErrorBody,
  codecBadRequest,
  codecNamespaceMismatch,
  codecOriginRefused,
  codecPrincipalRefused,
  codecUndecryptable,
} from '../mcp/errors.ts';
import { type Authentication, bearerAuth } from './bearer-auth.ts';

export interface CodecServerSettings {
  /** The namespace whose payloads the keys are for (an X-Namespace naming another is refused). */
  namespace: string;
  /** Origins of the Web UI allowed to call from a browser. */
  corsOrigins: readonly string[];
  /** Principals that may use it when callers authenticate; absent: every principal. */
  principals?: readonly string[];
}

export interface CodecEndpointOptions extends CodecServerSettings {
  codec: EncryptionCodec;
  auth: Authentication;
  /** The embedding host's sign-in (http/host-auth.ts), used instead of `auth` when given. */
  signIn?: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/** A decode call carries a batch of payloads, each up to Temporal's blob limit (2 MB by default). */
const CODEC_BODY_LIMIT = 16 * 1024 * 1024;
const ALLOWED_HEADERS = 'authorization, content-type, x-namespace';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The request's payloads as the SDK's Payload objects; a string naming what is wrong otherwise. */
function payloadsFromJson(body: unknown): Payload[] | string {
  const payloads = (body as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads)) return 'the body must be {"payloads": [...]}';
  const out: Payload[] = [];
  for (const [index, item] of payloads.entries()) {
    if (!item || typeof item !== 'object') return `payloads[${index}] is not an object`;
    const { metadata = {}, data = '' } = item as JsonPayload;
    if (typeof metadata !== 'object' || metadata === null)
      return `payloads[${index}].metadata is not an object`;
    if (typeof data !== 'string' || !BASE64.test(data)) return `payloads[${index}].data is not base64`;
    const decoded: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== 'string' || !BASE64.test(value))
        return `payloads[${index}].metadata.${key} is not base64`;
      decoded[key] = Buffer.from(value, 'base64');
    }
    out.push({ metadata: decoded, data: Buffer.from(data, 'base64') });
  }
  return out;
}

function payloadsToJson(payloads: Payload[]): { payloads: JsonPayload[] } {
  return {
    payloads: payloads.map((payload) => ({
      metadata: Object.fromEntries(
        Object.entries(payload.metadata ?? {}).map(([key, value]) => [
          key,
          Buffer.from(value ?? new Uint8Array()).toString('base64'),
        ]),
      ),
      data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
    })),
  };
}

export const codecEndpoint: FastifyPluginAsync<CodecEndpointOptions> = async (app, options) => {
  const origins = new Set(options.corsOrigins);
  const authenticates = options.auth.tokens.size > 0 || options.auth.oauth !== undefined;
  const authenticate = options.signIn ?? (authenticates ? bearerAuth(options.auth) : undefined);
  const send = (reply: FastifyReply, status: number, body: CodecErrorBody) =>
    reply.code(status).header('content-type', 'application/json').send(body);

  // CORS first: an answer to an allowed Origin carries its headers, refusals included, so the Web
  // UI can read why; a foreign Origin is refused before anything else.
  app.addHook('onRequest', async (request, reply) => {
    const from = request.headers.origin;
    if (from === undefined) return;
    if (!origins.has(from)) return send(reply, 403, codecOriginRefused(from));
    reply
      .header('access-control-allow-origin', from)
      .header('access-control-allow-credentials', 'true')
      .header('vary', 'Origin');
  });

  // Who is calling (preflights carry no credentials and need none).
  app.addHook('onRequest', async (request, reply) => {
    // No authentication: the caller is on this machine (routes.ts), and a foreign Origin was refused above.
    if (request.method === 'OPTIONS' || reply.sent || !authenticate) return;
    await authenticate(request, reply);
    if (reply.sent) return;
    const principal = request.identity?.principal;
    if (options.principals && (!principal || !options.principals.includes(principal)))
      return send(reply, 403, codecPrincipalRefused(principal ?? ''));
  });

  app.options('/codec/:operation', async (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send(),
  );

  const route = (operation: 'encode' | 'decode') => codecRoute(operation, options, send);
  app.post('/codec/decode', { bodyLimit: CODEC_BODY_LIMIT }, route('decode'));
  app.post('/codec/encode', { bodyLimit: CODEC_BODY_LIMIT }, route('encode'));
};

/** POST /codec/encode or /codec/decode: the payloads through the codec, in the Web UI's JSON. */
function codecRoute(
  operation: 'encode' | 'decode',
  options: CodecEndpointOptions,
  send: (reply: FastifyReply, status: number, body: CodecErrorBody) => unknown,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const namespace = request.headers['x-namespace'];
    if (typeof namespace === 'string' && namespace !== '' && namespace !== options.namespace)
      return send(reply, 400, codecNamespaceMismatch(namespace, options.namespace));
    const payloads = payloadsFromJson(request.body);
    if (typeof payloads === 'string') return send(reply, 400, codecBadRequest(payloads));
    try {
      const out =
        operation === 'decode' ? await options.codec.decode(payloads) : await options.codec.encode(payloads);
      return reply.send(payloadsToJson(out));
    } catch (err) {
      if (err instanceof UndecryptablePayloadError) return send(reply, 400, codecUndecryptable(err));
      throw err;
    }
  };
}
