// Who may call with a bearer token: MCP_AUTH_TOKENS, or the file MCP_AUTH_TOKENS_FILE names, or
// (a gateway beyond loopback given nothing else) a token generated into MCP_FIRST_START_TOKEN_FILE;
// and the OAuth scopes a static principal holds (MCP_AUTH_TOKEN_SCOPES).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as z from 'zod/v4';
import { createOnce } from '../../common/create-once.ts';
import { checked, nameValueList, parseSettings, text } from '../../common/settings.ts';
import { isLoopback } from '../http/loopback.ts';
import { PRINCIPAL_PATTERN, parseScopes } from '../http/oauth-settings.ts';

const MIN_TOKEN_LENGTH = 16;
const FIRST_START_PRINCIPAL = 'user';

export interface AuthSettings {
  /** principal → bearer token; empty: no auth, loopback only. */
  authTokens: Map<string, string>;
  /** Scopes of static principals (checked like a token's); one not listed holds every scope. */
  staticScopes: Map<string, string[]>;
  /** Where the first start's generated token is kept, when it is in use. */
  firstStartTokenFile?: string;
}

/**
 * `alice:token1,bob:token2` (commas, whitespace or newlines between pairs; `#` starts a comment
 * line in a file). `source` names where the text came from, for error messages.
 */
export function parseAuthTokens(text: string, source: string): Map<string, string> {
  const tokens = new Map<string, string>();
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/).filter((line) => !line.trim().startsWith('#'));
  for (const pair of lines.join(',').split(/[\s,]+/)) {
    if (pair === '') continue;
    const colon = pair.indexOf(':');
    const principal = colon > 0 ? pair.slice(0, colon) : '';
    const token = colon > 0 ? pair.slice(colon + 1) : '';
    if (!PRINCIPAL_PATTERN.test(principal)) {
      throw new Error(
        `${source}: expected principal:token pairs; "${principal || pair.slice(0, 12)}" is not a valid principal ` +
          '(letters, digits, . _ @ -, at most 64 characters)',
      );
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new Error(
        `${source}: the token of "${principal}" is shorter than ${MIN_TOKEN_LENGTH} characters`,
      );
    }
    if (tokens.has(principal)) throw new Error(`${source}: principal "${principal}" is listed twice`);
    if (seen.has(token)) throw new Error(`${source}: two principals share a token`);
    tokens.set(principal, token);
    seen.add(token);
  }
  return tokens;
}

function tokensFile(file: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`MCP_AUTH_TOKENS_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
  const tokens = parseAuthTokens(text, `MCP_AUTH_TOKENS_FILE (${file})`);
  if (tokens.size === 0) throw new Error(`MCP_AUTH_TOKENS_FILE (${file}) lists no principal:token pairs`);
  return tokens;
}

/**
 * MCP_FIRST_START_TOKEN_FILE, for a gateway that must listen beyond loopback and was given no
 * authentication (the compose stack out of the box): a strong token for the principal "user",
 * generated into that file on the first start and read from it on every later one.
 */
function firstStartTokens(path: string): Map<string, string> {
  try {
    // Only the first start writes it; a concurrent replica reads what that one wrote.
    createOnce(path, `${FIRST_START_PRINCIPAL}:${randomBytes(32).toString('base64url')}\n`);
  } catch (err) {
    throw new Error(`MCP_FIRST_START_TOKEN_FILE: cannot write ${path}: ${(err as Error).message}`);
  }
  return parseAuthTokens(readFileSync(path, 'utf8'), `MCP_FIRST_START_TOKEN_FILE (${path})`);
}

/**
 * MCP_AUTH_TOKEN_SCOPES: the scopes a static principal holds (`ops=mcp:tools echo:run;ci=mcp:tools`),
 * checked like an OAuth token's, with or without OAuth; a static principal not listed holds every scope.
 */
function staticScopes(text: string | undefined, tokens: ReadonlyMap<string, string>) {
  return nameValueList(text, {
    name: 'MCP_AUTH_TOKEN_SCOPES',
    separator: ';',
    shape: 'principal=scopes with a principal of MCP_AUTH_TOKENS',
    value: (list, principal) =>
      tokens.has(principal) ? parseScopes(list, `MCP_AUTH_TOKEN_SCOPES (${principal})`) : undefined,
  });
}

const variables = {
  MCP_AUTH_TOKENS: text('MCP_AUTH_TOKENS'),
  MCP_AUTH_TOKENS_FILE: text('MCP_AUTH_TOKENS_FILE'),
  MCP_FIRST_START_TOKEN_FILE: text('MCP_FIRST_START_TOKEN_FILE'),
  MCP_AUTH_TOKEN_SCOPES: text('MCP_AUTH_TOKEN_SCOPES'),
};

/** Tokens from MCP_AUTH_TOKENS or the file named by MCP_AUTH_TOKENS_FILE (not both). */
function givenTokens(inline: string | undefined, file: string | undefined): Map<string, string> {
  if (inline && file) throw new Error('set MCP_AUTH_TOKENS or MCP_AUTH_TOKENS_FILE, not both');
  if (inline) return parseAuthTokens(inline, 'MCP_AUTH_TOKENS');
  return file ? tokensFile(file) : new Map();
}

/**
 * Who may call, for a gateway on `host` with OAuth on or off. The generated token stands in only
 * where nothing else would let the gateway start.
 */
export function authSchema(host: string, oauth: boolean) {
  return z.object(variables).transform(
    (env, ctx): AuthSettings =>
      checked(ctx, () => {
        const given = env.MCP_AUTH_TOKENS || env.MCP_AUTH_TOKENS_FILE;
        const firstStartTokenFile =
          !given && !oauth && !isLoopback(host) ? env.MCP_FIRST_START_TOKEN_FILE : undefined;
        const authTokens = firstStartTokenFile
          ? firstStartTokens(firstStartTokenFile)
          : givenTokens(env.MCP_AUTH_TOKENS, env.MCP_AUTH_TOKENS_FILE);
        return {
          authTokens,
          staticScopes: staticScopes(env.MCP_AUTH_TOKEN_SCOPES, authTokens),
          ...(firstStartTokenFile ? { firstStartTokenFile } : {}),
        };
      }),
  );
}

/** Tokens from MCP_AUTH_TOKENS or the file named by MCP_AUTH_TOKENS_FILE (not both). */
export function authTokensFromEnv(env: NodeJS.ProcessEnv): Map<string, string> {
  return parseSettings(
    z
      .object({
        MCP_AUTH_TOKENS: variables.MCP_AUTH_TOKENS,
        MCP_AUTH_TOKENS_FILE: variables.MCP_AUTH_TOKENS_FILE,
      })
      .transform((given, ctx) =>
        checked(ctx, () => givenTokens(given.MCP_AUTH_TOKENS, given.MCP_AUTH_TOKENS_FILE)),
      ),
    env,
  );
}
