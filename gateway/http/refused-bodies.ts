// What Fastify refuses on /mcp before the MCP layer sees the request, as JSON-RPC errors: a body
// over the limit (413, read to its end first, within a bound), a body that is not JSON, any other
// refusal of the HTTP request itself.
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { bodyTooLarge, type ErrorBody, invalidRequest, parseError } from '../mcp/errors.ts';

const sendJson = (reply: FastifyReply, status: number, body: ErrorBody) =>
  reply.code(status).header('content-type', 'application/json').send(body);

/** Most of a refused body read (and dropped) before the 413 goes out, and for how long. */
const DRAIN_LIMIT = { bytes: 64 * 1024 * 1024, ms: 10_000 };

/**
 * Reads and drops the rest of a request body, up to a bound. A client still writing its body when
 * the server answers and closes gets EPIPE instead of the answer; letting it finish first delivers
 * the 413. Past the bound (a body too large to wait for) the answer goes out anyway.
 */
function drainRequest(raw: IncomingMessage, limit = DRAIN_LIMIT): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', finish);
      raw.off('error', finish);
      raw.off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limit.bytes) finish();
    };
    const timer = setTimeout(finish, limit.ms);
    raw.on('data', onData);
    raw.once('end', finish);
    raw.once('error', finish);
    raw.once('close', finish);
    raw.resume();
  });
}

/**
 * Error handler of the /mcp route: what Fastify refuses before the MCP layer sees the request
 * (a body over the limit, a body that is not JSON, an unsupported content type) as JSON-RPC errors.
 */
export function refusedBodyHandler(bodyLimitBytes: number) {
  return async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        await drainRequest(request.raw);
        reply.header('connection', 'close');
        return sendJson(reply, 413, bodyTooLarge(bodyLimitBytes));
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendJson(reply, 400, parseError(error.message));
      default: {
        const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
        if (status >= 500) throw error;
        return sendJson(reply, status, invalidRequest(error.message));
      }
    }
  };
}
