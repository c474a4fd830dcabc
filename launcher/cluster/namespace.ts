// The cluster's namespace, made ready through the Temporal CLI once the frontend answers: a day's
// retention, and the search attributes the gateway writes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { retryUntil } from '../../common/poll.ts';
import { SEARCH_ATTRIBUTES } from '../dev-server.ts';

const run = promisify(execFile);

export const NAMESPACE = 'default';
/** Keeps closed runs a day: as long as the gateway advertises a task (MCP_TASK_TTL_MS). */
export const NAMESPACE_RETENTION = '24h';

/** The Temporal CLI at `address`, its standard output. */
function temporalCli(cli: string, address: string) {
  return async (args: string[]): Promise<string> => {
    const { stdout } = await run(cli, [...args, '--address', address], { timeout: 15_000 });
    return stdout;
  };
}

/** Describes the namespace, or creates it when the describe fails; retried until the frontend serves. */
async function ensureNamespace(temporal: (args: string[]) => Promise<string>, say: (line: string) => void) {
  const namespace = ['--namespace', NAMESPACE];
  await retryUntil(
    async () => {
      try {
        await temporal(['operator', 'namespace', 'describe', ...namespace]);
      } catch {
        say(`registering namespace ${NAMESPACE} (retention ${NAMESPACE_RETENTION})`);
        await temporal(['operator', 'namespace', 'create', ...namespace, '--retention', NAMESPACE_RETENTION]);
      }
    },
    { timeoutMs: 90_000, intervalMs: 1_000 },
  );
}

/** The namespace with a day's retention, and the search attributes the gateway writes. */
export async function prepareNamespace(
  cli: string,
  address: string,
  say: (line: string) => void,
): Promise<void> {
  const temporal = temporalCli(cli, address);
  await ensureNamespace(temporal, say);
  const attributes = ['operator', 'search-attribute'];
  const namespace = ['--namespace', NAMESPACE];
  const retried = { timeoutMs: 30_000, intervalMs: 500 };
  const listed = JSON.parse(
    await retryUntil(() => temporal([...attributes, 'list', ...namespace, '-o', 'json']), retried),
  ) as { customAttributes?: Record<string, unknown> };
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    if (listed.customAttributes?.[name]) continue;
    say(`registering search attribute ${name} (${type})`);
    await retryUntil(
      () => temporal([...attributes, 'create', ...namespace, '--name', name, '--type', type]),
      retried,
    );
  }
}
