// The JSON body parser of /mcp: Fastify's own (which refuses prototype poisoning), behind a nesting
// limit checked on the raw text first. A body nested deeper than any real request parses fine but
// overflows the stack later, when the SDK serialises it (a 30,000-level array → a 500); refused here
// it is a 400 with a JSON-RPC error.
import type { FastifyInstance } from 'fastify';

/** Deepest nesting of arrays and objects a request body may have. */
const MAX_JSON_DEPTH = 64;

const JSON_TOO_DEEP = 'MCP_JSON_TOO_DEEP';

/** Whether `text` nests arrays/objects deeper than `limit` (a linear scan; strings are skipped). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/** Installs the parser for application/json bodies on `app` (an encapsulated plugin scope). */
export function limitJsonDepth(app: FastifyInstance, limit = MAX_JSON_DEPTH): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestsDeeperThan(text, limit)) {
      const error = Object.assign(new Error(`the body nests arrays or objects deeper than ${limit} levels`), {
        code: JSON_TOO_DEEP,
        statusCode: 400,
      });
      done(error, undefined);
      return;
    }
    parse(request, text, done);
  });
}
