// Everything the gateway serves, as one encapsulated Fastify plugin mounted under the host's prefix:
// POST /mcp (http/mcp-route.ts) over the catalog's durable tools and the host's quick tools; with
// `probes`, GET /healthz (the process is up), GET /readyz (Temporal answers within a bounded time,
// 503 if not) and GET /metrics (Prometheus text, not request-logged); with OAuth the RFC 9728
// metadata; with MCP_CODEC_SERVER the codec server. With nobody signing in, /mcp and the codec
// server serve loopback peers only. The standalone gateway (app.ts) and the package's plugin
// (plugin.ts) both mount it. Each piece gets the settings it uses, once.
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ArtifactStore } from '../common/artifact-store.ts';
import { openArtifactStore } from '../common/artifact-store-settings.ts';
import type { Authentication } from './http/bearer-auth.ts';
import { type CodecEndpointOptions, codecEndpoint } from './http/codec-endpoint.ts';
import { type HostAuthenticate, hostAuth } from './http/host-auth.ts';
import { isLoopback, loopbackHostnames, loopbackPeersOnly } from './http/loopback.ts';
import { mcpRoute } from './http/mcp-route.ts';
import { OAuthResourceServer, protectedResourceRoutes } from './http/oauth.ts';
import { Readiness } from './http/readiness.ts';
import { Catalog, type CatalogTool } from './mcp/catalog.ts';
import { McpHandler } from './mcp/handler.ts';
import { hostToolDefinitions, type QuickTool, quickToolScopes } from './mcp/host-tools.ts';
import { pacedIntervals } from './mcp/poll-pacing.ts';
import { ReadBudget } from './mcp/read-budget.ts';
import { Rights } from './mcp/rights.ts';
import type { ToolDefinition } from './mcp/tool-definition.ts';
import type { GatewaySettings } from './settings/index.ts';
import { renderMetrics } from './shared/metrics.ts';
import type { TemporalBackend } from './temporal/backend.ts';
import { missingAttributeMessages } from './temporal/optional-attributes.ts';
import { missingFeatures, serverInfo } from './temporal/server-features.ts';
import type { TaskRef } from './temporal/task-ids.ts';

export interface GatewayRoutesOptions {
  settings: GatewaySettings;
  backend: TemporalBackend;
  /** The catalog's tools; absent: the settings' (MCP_TOOLS_FILE or the built-in catalog). */
  tools?: CatalogTool[];
  /** The host's quick tools, beside the catalog's. */
  hostTools?: readonly QuickTool[];
  /** The host authenticates callers of /mcp itself (the settings' tokens and OAuth are then unused). */
  authenticate?: HostAuthenticate;
  /** Whether /healthz, /readyz and /metrics are mounted too. */
  probes?: boolean;
}

export const gatewayRoutes: FastifyPluginAsync<GatewayRoutesOptions> = async (app, options) => {
  const { settings, backend } = options;
  const catalog = new Catalog(options.tools ?? settings.tools);
  const hostTools = hostToolDefinitions(options.hostTools ?? [], servedNames(catalog));
  // Who a request is from (http/bearer-auth.ts), on every request object from the start.
  app.decorateRequest('identity', undefined);
  if (isLoopback(settings.host)) {
    // DNS-rebinding protection for a local server: only loopback Host and Origin values.
    const hostnames = loopbackHostnames(settings.host);
    app.addHook('onRequest', hostHeaderValidation(hostnames));
    app.addHook('onRequest', originValidation(hostnames));
  }
  if (options.probes) probes(app, settings, backend);
  // Counted among the gateways sharing the per-principal bounds while it serves (temporal/fleet.ts):
  // from ready, so an app that fails to start never polls.
  app.addHook('onReady', async () => backend.fleet.join());
  app.addHook('onClose', async () => backend.fleet.leave());
  const oauth = settings.oauth && !options.authenticate ? new OAuthResourceServer(settings.oauth) : undefined;
  const auth: Authentication = options.authenticate
    ? { tokens: new Map() }
    : { tokens: settings.authTokens, staticScopes: settings.staticScopes, ...(oauth ? { oauth } : {}) };
  // One rule for every caller's scopes, whoever signed it in: the gateway's tokens, OAuth or the host.
  const rights = new Rights(
    catalog,
    settings.oauth?.requiredScopes ?? [],
    quickToolScopes(options.hostTools ?? []),
  );
  if (oauth) resourceMetadata(app, oauth, rights);
  const authenticates = options.authenticate !== undefined || auth.tokens.size > 0 || oauth !== undefined;
  const artifactStore = await openArtifactStore(settings.artifacts.store);
  const parts = { backend, catalog, auth, hostTools, rights, artifactStore };
  await app.register(async (guarded) => {
    // Nobody signs in: /mcp and /codec serve this machine only, by the socket's peer, whatever the
    // Host header says or where the host app listens (the standalone refuses to bind beyond loopback).
    if (!authenticates) guarded.addHook('onRequest', loopbackPeersOnly);
    if (settings.codec && settings.codecServer) {
      const signIn = options.authenticate ? { signIn: hostAuth(options.authenticate) } : {};
      const codec = { ...settings.codecServer, codec: settings.codec, auth, ...signIn };
      await codecServer(guarded, codec, authenticates);
    }
    // The host's own authentication applies to /mcp alone: the probes stay open.
    await guarded.register(async (scope) => {
      if (options.authenticate) scope.addHook('onRequest', hostAuth(options.authenticate));
      mcp(scope, settings, parts);
    });
  });
};

/**
 * The codec server: it decrypts every payload of the namespace, so with callers that authenticate
 * only the named operators use it, never every principal with a token for /mcp; its callers sign in
 * as /mcp's do (the host's own authentication when it brings one).
 */
async function codecServer(app: FastifyInstance, codec: CodecEndpointOptions, authenticates: boolean) {
  if (authenticates && !codec.principals?.length) {
    throw new Error(
      'MCP_CODEC_SERVER=true on a gateway that authenticates needs MCP_CODEC_PRINCIPALS: the principals ' +
        '(operators) who may decrypt payloads through /codec',
    );
  }
  await app.register(codecEndpoint, codec);
}

/** The names the catalog serves: its tools and their companions. */
function servedNames(catalog: Catalog): Set<string> {
  return new Set(
    catalog.tools.flatMap((tool) => [
      tool.name,
      ...Object.values(tool.companions).filter((n) => n !== undefined),
    ]),
  );
}

/** /healthz, /readyz and /metrics: for probes and scrapers, never authenticated. */
function probes(app: FastifyInstance, settings: GatewaySettings, backend: TemporalBackend): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  const readiness = new Readiness({
    ping: (timeoutMs) => backend.calls.ping(timeoutMs),
    timeoutMs: settings.readyTimeoutMs,
    onUnready: (reason) => app.log.warn(`gateway: not ready: Temporal did not answer: ${reason}`),
  });
  let told = false;
  app.get('/readyz', async (_request, reply) => {
    if (await readiness.check()) {
      if (!told) told = tellWhatTemporalLacks(app, backend);
      return { status: 'ready', temporal: 'reachable' };
    }
    return reply.code(503).send({ status: 'unavailable', temporal: 'unreachable' });
  });
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    const { contentType, body } = await renderMetrics();
    return reply.type(contentType).send(body);
  });
}

/**
 * Says once, the first time Temporal answers the readiness check, which optional search attributes
 * the namespace lacks, the server's version and what it lacks of what the gateway uses (asked only
 * of a Temporal that is up: nothing is left pending at a close).
 */
function tellWhatTemporalLacks(app: FastifyInstance, backend: TemporalBackend): true {
  void backend.optionalAttributes.look().then((registered) => {
    for (const line of registered
      ? missingAttributeMessages(registered, backend.calls.options.namespace)
      : [])
      app.log.warn(`gateway: ${line}`);
  });
  void serverInfo(backend.calls).then(
    (info) => {
      app.log.info(`gateway: Temporal server ${info.serverVersion ?? '(version not given)'}`);
      const missing = missingFeatures(info);
      if (missing) app.log.warn(`gateway: ${missing}`);
    },
    () => {},
  );
  return true;
}

/** RFC 9728 metadata; discovery and keys fetched ahead of the first request (retried on requests). */
function resourceMetadata(app: FastifyInstance, oauth: OAuthResourceServer, rights: Rights): void {
  app.register(protectedResourceRoutes, { oauth, scopesSupported: rights.supported() });
  app.addHook('onReady', async () => {
    const { issuer, audience } = oauth.settings;
    oauth.verifier.warmUp().then(
      () => app.log.info(`gateway: OAuth access tokens from ${issuer} for ${audience}`),
      (err) => app.log.warn(`gateway: OAuth issuer ${issuer} not usable yet: ${(err as Error).message}`),
    );
  });
}

interface McpParts {
  backend: TemporalBackend;
  catalog: Catalog;
  auth: Authentication;
  hostTools: readonly ToolDefinition[];
  rights: Rights;
  artifactStore: ArtifactStore;
}

/** POST /mcp: the MCP layer over the catalog and the host's tools, behind the route's admission. */
function mcp(app: FastifyInstance, settings: GatewaySettings, parts: McpParts): void {
  const { backend, catalog, auth, rights, hostTools, artifactStore } = parts;
  const onError = (error: Error) => app.log.warn({ err: error }, 'mcp request error');
  const { starts, waits, views, actions, listing, recentRuns } = backend;
  const handler = new McpHandler({
    ...{ starts, waits, views, actions, listing, recentRuns },
    requestStateKey: backend.derivedKey('request-state'),
    catalog,
    timing: {
      ttlMs: settings.taskTtlMs,
      pollIntervalFor: pacedIntervals(settings.pollPacing),
    },
    listen: settings.listen,
    fleet: backend.fleet,
    requestStateTtlSeconds: settings.inputStateTtlSeconds,
    clientWaitBudgets: settings.clientWaitBudgets,
    artifacts: {
      store: artifactStore,
      readMaxBytes: settings.artifacts.readMaxBytes,
      budget: new ReadBudget(settings.artifacts.readLimits),
    },
    ...(hostTools.length > 0 ? { hostTools } : {}),
    onError,
  });
  app.register(mcpRoute, {
    mcp: handler,
    auth,
    catalog,
    rights,
    bodyLimitBytes: settings.bodyLimitBytes,
    writeTimeoutMs: settings.writeTimeoutMs,
    ...(settings.pollMinIntervalMs
      ? {
          pollLimit: {
            minIntervalMs: settings.pollMinIntervalMs,
            issuedTo: (task: TaskRef, principal: string) => backend.issuedTo(task, principal),
          },
        }
      : {}),
    paramHeaders: catalog.paramHeaders,
    onError,
  });
}
