// The Helm chart (deploy/helm/temporal-mcp-gateway): `helm lint` and `helm template` for the default
// values, the dev server and a production set (Temporal Cloud with an API key, OAuth, codec keys,
// the autoscaler on); every rendered document decoded strictly into the official Kubernetes API
// types by kube-validate (deploy/validate), which must also refuse a misspelled field. Helm v4.3.2
// and kube-validate are built with Go when missing (scripts/install-helm.sh,
// scripts/build-kube-validate.sh); CI builds them first and passes HELM_PATH and KUBE_VALIDATE_PATH.
// Under CI=true a missing one fails the file; elsewhere, without Go, it is skipped.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { loadServerSecret } from '../gateway/server-secret.ts';
import { loadSettings } from '../gateway/settings/index.ts';
import { SEARCH_ATTRIBUTES } from '../launcher/dev-server.ts';
import { workerSettings } from '../worker/options.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHART = join(ROOT, 'deploy/helm/temporal-mcp-gateway');
const PRODUCTION = join(CHART, 'ci/production-values.yaml');
const CATALOG = join(ROOT, 'catalog/tools.yaml');

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { secretRef?: { name: string } }[];
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  securityContext?: {
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
  };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Volume {
  name: string;
  projected?: { sources: { secret?: Source }[] };
  configMap?: Source;
}
interface Source {
  name: string;
  items?: { key: string; path: string }[];
}
interface K8sObject {
  kind: string;
  metadata: { name: string };
  spec?: {
    replicas?: number;
    scaleTargetRef?: { kind: string; name: string };
    template?: {
      spec: { containers: Container[]; volumes?: Volume[]; terminationGracePeriodSeconds?: number };
    };
  };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

let helm: string | undefined;
let validator: string | undefined;
let missing = '';
const times: string[] = [];

/** A tool's path from its variable, else its script (which builds it with Go when it can). */
async function tool(variable: string, script: string): Promise<string> {
  if (process.env[variable]) return process.env[variable];
  const started = performance.now();
  const { stdout } = await run('bash', [join(ROOT, script)], { maxBuffer: 16 << 20 });
  times.push(`${variable}: ${script} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return stdout.trim().split('\n').at(-1) ?? '';
}

before(async () => {
  try {
    helm = await tool('HELM_PATH', 'scripts/install-helm.sh');
    validator = await tool('KUBE_VALIDATE_PATH', 'scripts/build-kube-validate.sh');
  } catch (err) {
    missing = `helm or kube-validate unavailable: ${(err as Error).message}`;
    if (process.env.CI === 'true') throw new Error(`${missing} (CI must run this file)`);
  }
});

after(() => {
  if (times.length > 0) console.log(`helm chart: ${times.join('; ')}`);
});

function skipUnlessTools(t: { skip(message: string): void }): boolean {
  if (helm && validator) return false;
  t.skip(missing);
  return true;
}

/** `helm template` of the chart with these arguments: the stream and its objects. */
async function render(label: string, ...args: string[]): Promise<{ text: string; objects: K8sObject[] }> {
  const started = performance.now();
  const { stdout } = await run(helm as string, ['template', 'mcp', CHART, ...args], { maxBuffer: 16 << 20 });
  times.push(`render ${label} ${Math.round(performance.now() - started)} ms`);
  const objects = parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  return { text: stdout, objects };
}

/** kube-validate on a rendered stream: its exit code and what it printed. */
async function validate(
  label: string,
  text: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const started = performance.now();
  const child = execFile(validator as string, []);
  child.stdin?.end(text);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  times.push(`validate ${label} ${Math.round(performance.now() - started)} ms`);
  return { code, stdout, stderr };
}

function find(objects: K8sObject[], kind: string, suffix: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name.endsWith(suffix));
  assert.ok(
    found,
    `a ${kind} named *${suffix} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
  );
  return found;
}

function container(objects: K8sObject[], suffix: string): Container {
  const first = find(objects, 'Deployment', suffix).spec?.template?.spec.containers[0];
  assert.ok(first, `Deployment *${suffix} has a container`);
  return first;
}

/** A rendered Secret's or ConfigMap's key, as the pod reads it. */
function keyOf(objects: K8sObject[], kind: string, name: string, key: string): string {
  const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(object, `${kind}/${name} is rendered`);
  const encoded = kind === 'Secret' ? object.data?.[key] : undefined;
  const value = encoded !== undefined ? Buffer.from(encoded, 'base64').toString() : object.data?.[key];
  assert.ok(value !== undefined, `${kind}/${name} has the key ${key}`);
  return value;
}

/**
 * The environment a Deployment's container starts with, as the kubelet would give it: its Secret
 * and ConfigMap files written under `root` at their mount paths (the env's paths follow them),
 * secretKeyRef and envFrom resolved from the rendered objects.
 */
function podEnvironment(objects: K8sObject[], suffix: string, root: string): NodeJS.ProcessEnv {
  const spec = find(objects, 'Deployment', suffix).spec?.template?.spec;
  const c = container(objects, suffix);
  const mounts: string[] = [];
  for (const mount of c.volumeMounts ?? []) {
    const volume = spec?.volumes?.find((v) => v.name === mount.name);
    const sources = [
      ...(volume?.projected?.sources.flatMap((s) => (s.secret ? [['Secret', s.secret] as const] : [])) ?? []),
      ...(volume?.configMap ? [['ConfigMap', volume.configMap] as const] : []),
    ];
    for (const [kind, source] of sources)
      for (const item of source.items ?? []) {
        const file = join(root, mount.mountPath, item.path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, keyOf(objects, kind, source.name, item.key));
      }
    if (sources.length > 0) mounts.push(mount.mountPath);
  }
  const env: NodeJS.ProcessEnv = {};
  for (const from of c.envFrom ?? []) {
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === from.secretRef?.name);
    Object.assign(env, secret?.stringData);
  }
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    const value = ref ? keyOf(objects, 'Secret', ref.name, ref.key) : (e.value ?? '');
    const mount = mounts.find((m) => value.startsWith(`${m}/`));
    env[e.name] = mount ? join(root, value) : value;
  }
  return env;
}

const envOf = (c: Container) => new Map((c.env ?? []).map((e) => [e.name, e]));

/** The variables docs/configuration.md names (its tables, and the TLS variables its prose lists). */
function documentedSettings(): Set<string> {
  const text = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  return new Set([...text.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)].map(([, name = '']) => name));
}

test('helm lint passes for the default values and the production set', async (t) => {
  if (skipUnlessTools(t)) return;
  for (const args of [[], ['-f', PRODUCTION, '--set-file', `catalog.tools=${CATALOG}`]]) {
    const { stdout } = await run(helm as string, ['lint', '--strict', CHART, ...args]);
    assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  }
});

test('the default values render valid objects: gateways with probes, drain grace and a PDB, workers apart', async (t) => {
  if (skipUnlessTools(t)) return;
  const { text, objects } = await render('default');
  const checked = await validate('default', text);
  assert.equal(checked.code, 0, checked.stderr);
  assert.match(checked.stdout, new RegExp(`${objects.length} object\\(s\\) valid`));

  const gateway = container(objects, '-gateway');
  assert.deepEqual(gateway.livenessProbe?.httpGet, { path: '/healthz', port: 'http' });
  assert.deepEqual(gateway.readinessProbe?.httpGet, { path: '/readyz', port: 'http' });
  assert.ok(gateway.resources?.requests?.cpu && gateway.resources?.limits?.memory, 'resources set');
  for (const c of [gateway, container(objects, '-worker')]) {
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true, `${c.name}: read-only root`);
    assert.equal(c.securityContext?.runAsNonRoot, true, `${c.name}: non-root`);
    assert.equal(c.securityContext?.allowPrivilegeEscalation, false, `${c.name}: no escalation`);
  }
  // The drain (gateway/standalone.ts): 10 s for requests in flight, 2 s for spans, after the preStop sleep.
  const grace =
    find(objects, 'Deployment', '-gateway').spec?.template?.spec.terminationGracePeriodSeconds ?? 30;
  assert.ok(grace >= 5 + 10 + 2, `gateway grace ${grace} s covers the preStop sleep and the drain`);
  // The worker gives running activities 10 s (worker/main.ts shutdownGraceTime) before it closes.
  const workerGrace =
    find(objects, 'Deployment', '-worker').spec?.template?.spec.terminationGracePeriodSeconds ?? 30;
  assert.ok(workerGrace > 10, `worker grace ${workerGrace} s lets running activities heartbeat out`);

  assert.equal(find(objects, 'Service', '-gateway').kind, 'Service');
  assert.equal(find(objects, 'PodDisruptionBudget', '-gateway').kind, 'PodDisruptionBudget');
  assert.equal(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').length, 0, 'no HPA by default');
  assert.equal(find(objects, 'Deployment', '-gateway').spec?.replicas, 2);

  // Every replica the same server secret and tokens: made once by the chart, read from files.
  const env = envOf(gateway);
  assert.equal(env.get('MCP_SERVER_SECRET_FILE')?.value, '/etc/mcp-gateway/secrets/server-secret');
  assert.equal(env.get('MCP_AUTH_TOKENS_FILE')?.value, '/etc/mcp-gateway/secrets/auth-tokens');
  const secret = find(objects, 'Secret', 'mcp-temporal-mcp-gateway');
  const token = Buffer.from(secret.data?.['auth-tokens'] ?? '', 'base64').toString();
  assert.match(token, /^user:[A-Za-z0-9]{43}$/, 'a generated token for the principal "user"');
  assert.ok(
    Buffer.from(secret.data?.['server-secret'] ?? '', 'base64').length >= 32,
    'a server secret of 32+',
  );
  // The fleet's size comes from Temporal, never from a count the chart would have to keep true.
  assert.doesNotMatch(text, /MCP_GATEWAY_REPLICAS/);
});

test('every setting the chart passes is one docs/configuration.md documents', async (t) => {
  if (skipUnlessTools(t)) return;
  const documented = documentedSettings();
  for (const [label, args] of [
    ['default', []],
    ['production', ['-f', PRODUCTION, '--set-file', `catalog.tools=${CATALOG}`]],
    [
      'dev server',
      ['--set', 'devServer.enabled=true', '--set', 'codec.keys=k1=x', '--set', 'temporal.taskQueue=q'],
    ],
    ['mTLS', ['--set', 'temporal.tls.existingSecret=temporal-mtls', '--set', 'temporal.tls.caKey=ca.crt']],
  ] as const) {
    const { objects } = await render(label, ...args);
    for (const suffix of ['-gateway', '-worker'])
      for (const name of envOf(container(objects, suffix)).keys())
        assert.ok(
          documented.has(name),
          `${label}: ${suffix} sets ${name}, which docs/configuration.md does not list`,
        );
    const oauth = objects.find((o) => o.kind === 'Secret' && o.metadata.name.endsWith('-oauth'));
    for (const name of Object.keys(oauth?.stringData ?? {}))
      assert.ok(documented.has(name), `${label}: the OAuth Secret holds ${name}, not a documented setting`);
  }
});

test('the gateway and the worker accept the configuration the chart renders', async (t) => {
  if (skipUnlessTools(t)) return;
  const key = Buffer.alloc(32, 7).toString('base64');
  const { objects } = await render(
    'settings',
    ...['--set', `codec.keys=k1=${key}`, '--set', 'codec.server=true', '--set', 'codec.principals=user'],
    ...['--set-file', `catalog.tools=${CATALOG}`, '--set', 'gateway.settings.MCP_WAIT_BUDGET_MS=15000'],
  );
  const root = mkdtempSync(join(tmpdir(), 'helm-pod-'));
  try {
    const gatewayEnv = podEnvironment(objects, '-gateway', root);
    const settings = await loadSettings(gatewayEnv);
    assert.equal(settings.host, '0.0.0.0');
    assert.equal(settings.waitBudgetMs, 15_000);
    assert.deepEqual([...(settings.authTokens?.keys() ?? [])], ['user'], 'the generated token, for "user"');
    assert.deepEqual(
      settings.tools.map((tool) => tool.name),
      ['mine_chain'],
      'the catalog from the ConfigMap',
    );
    assert.ok(settings.codec && settings.codecServer, "payloads encrypted with the chart's codec keys");
    assert.ok(loadServerSecret(gatewayEnv, root).secret.length >= 32);
    const worker = workerSettings(podEnvironment(objects, '-worker', root));
    assert.ok(worker.codec, 'the worker reads the same keys');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the production set: Temporal Cloud with an API key, OAuth, codec keys, the catalog, the HPA', async (t) => {
  if (skipUnlessTools(t)) return;
  const { text, objects } = await render(
    'production',
    '-f',
    PRODUCTION,
    '--set-file',
    `catalog.tools=${CATALOG}`,
  );
  const checked = await validate('production', text);
  assert.equal(checked.code, 0, checked.stderr);
  // The Secrets it names but does not make must exist in the namespace: the validator lists them.
  for (const name of ['temporal-cloud', 'mcp-gateway-secrets', 'artifact-store-credentials'])
    assert.match(checked.stdout, new RegExp(`expects an existing Secret/${name}\\b`));

  const values = parseYaml(readFileSync(PRODUCTION, 'utf8'));
  const hpa = find(objects, 'HorizontalPodAutoscaler', '-gateway');
  assert.deepEqual(hpa.spec?.scaleTargetRef?.name, find(objects, 'Deployment', '-gateway').metadata.name);
  assert.equal(find(objects, 'Deployment', '-gateway').spec?.replicas, undefined, 'the HPA owns the count');

  for (const suffix of ['-gateway', '-worker']) {
    const env = envOf(container(objects, suffix));
    assert.equal(env.get('TEMPORAL_ADDRESS')?.value, values.temporal.address);
    assert.equal(env.get('TEMPORAL_NAMESPACE')?.value, values.temporal.namespace);
    assert.deepEqual(env.get('TEMPORAL_API_KEY')?.valueFrom?.secretKeyRef, {
      name: 'temporal-cloud',
      key: 'api-key',
    });
    assert.equal(env.get('MCP_CODEC_KEYS_FILE')?.value, '/etc/mcp-gateway/secrets/codec-keys');
    assert.equal(env.get('MCP_CODEC_KEY_ID')?.value, 'k2');
  }
  const gateway = container(objects, '-gateway');
  const env = envOf(gateway);
  assert.equal(env.get('MCP_AUTH_TOKENS_FILE'), undefined, 'OAuth alone: no token generated');
  assert.equal(env.get('MCP_WAIT_BUDGET_MS')?.value, '15000');
  const oauthSecret = find(objects, 'Secret', '-oauth');
  assert.ok(gateway.envFrom?.some((e) => e.secretRef?.name === oauthSecret.metadata.name));
  assert.equal(oauthSecret.stringData?.MCP_OAUTH_ISSUER, values.oauth.issuer);
  assert.equal(oauthSecret.stringData?.MCP_OAUTH_AUDIENCE, values.oauth.audience);
  assert.equal(objects.filter((o) => o.kind === 'Secret').length, 1, 'only the OAuth Secret: the rest exist');
  // The catalog: the file's own text in the ConfigMap, mounted where MCP_TOOLS_FILE points.
  const catalog = find(objects, 'ConfigMap', '-catalog');
  assert.equal(catalog.data?.['tools.yaml'], readFileSync(CATALOG, 'utf8').trimEnd());
  assert.equal(env.get('MCP_TOOLS_FILE')?.value, '/etc/mcp-gateway/catalog/tools.yaml');
  assert.ok(gateway.volumeMounts?.some((m) => m.mountPath === '/etc/mcp-gateway/catalog' && m.readOnly));
});

test('the dev server registers every search attribute the gateway writes, with fairness on', async (t) => {
  if (skipUnlessTools(t)) return;
  const { text, objects } = await render('dev server', '--set', 'devServer.enabled=true');
  const checked = await validate('dev server', text);
  assert.equal(checked.code, 0, checked.stderr);
  const args = container(objects, '-temporal').args ?? [];
  const registered = args.flatMap((arg, i) => (args[i - 1] === '--search-attribute' ? [arg] : []));
  assert.deepEqual(
    registered.sort(),
    Object.entries(SEARCH_ATTRIBUTES)
      .map(([n, type]) => `${n}=${type}`)
      .sort(),
  );
  // The dynamic config the Compose dev server runs with (docs/operations.md: fairness within one partition).
  const compose = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'));
  const composeArgs: string[] = compose.services.temporal.command;
  const dynamic = (list: string[]) => list.filter((_, i) => list[i - 1] === '--dynamic-config-value');
  assert.deepEqual(dynamic(args), dynamic(composeArgs));
  assert.equal(container(objects, '-temporal').image, compose.services.temporal.image);
  const service = find(objects, 'Service', '-temporal').metadata.name;
  for (const suffix of ['-gateway', '-worker'])
    assert.equal(envOf(container(objects, suffix)).get('TEMPORAL_ADDRESS')?.value, `${service}:7233`);
});

test('kube-validate refuses a misspelled field, a wrong type and a Service that selects no port', async (t) => {
  if (skipUnlessTools(t)) return;
  const { text } = await render('default');
  const misspelled = await validate('misspelled', text.replace('readinessProbe:', 'readinesProbe:'));
  assert.equal(misspelled.code, 1);
  assert.match(misspelled.stderr, /unknown field "spec\.template\.spec\.containers\[0\]\.readinesProbe"/);
  const wrongType = await validate('wrong type', text.replace(/replicas: 2/, 'replicas: two'));
  assert.equal(wrongType.code, 1);
  assert.match(wrongType.stderr, /Deployment.*replicas/);
  const noPort = await validate('no such port', text.replace('targetPort: http', 'targetPort: web'));
  assert.equal(noPort.code, 1);
  assert.match(noPort.stderr, /Service.*targetPort.*web/);
});

test('a bad value is refused at render with the value named', async (t) => {
  if (skipUnlessTools(t)) return;
  await assert.rejects(
    run(helm as string, ['template', 'mcp', CHART, '--set', 'temporal.address=']),
    /temporal\.address is required/,
  );
  await assert.rejects(
    run(helm as string, ['template', 'mcp', CHART, '--set', 'gateway.replicas=two']),
    /gateway\.replicas/,
  );
  await assert.rejects(
    run(helm as string, ['template', 'mcp', CHART, '--set', 'gateway.replica=3']),
    /replica/,
  );
});
