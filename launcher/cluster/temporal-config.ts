// The Temporal server's static config for the cluster (`<root>/config/cluster.yaml`, read with
// `--env cluster`) and its dynamic config. One file serves all four services: each process starts
// the one `--service` it is told, binds that service's ports, and finds the others through the
// membership table in PostgreSQL.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEMPORAL_DB_PASSWORD, TEMPORAL_DB_USER } from './postgres.ts';
import {
  CONFIG_DIR_NAME,
  CONFIG_ENV_NAME,
  DYNAMIC_CONFIG,
  TEMPORAL_DB,
  TEMPORAL_SERVICES,
  type TemporalPorts,
  type TemporalService,
  VISIBILITY_DB,
} from './temporal-server.ts';

export interface TemporalConfigOptions {
  /** The services' `--root`: the config is written to its `config` folder. */
  root: string;
  postgresPort: number;
  ports: TemporalPorts;
  numHistoryShards?: number;
}

function datastore(database: string, maxConns: number, postgresPort: number): string {
  return `      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "127.0.0.1:${postgresPort}"
        connectProtocol: tcp
        user: ${TEMPORAL_DB_USER}
        password: ${TEMPORAL_DB_PASSWORD}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
}

function persistence(postgresPort: number, numHistoryShards: number): string {
  return `persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${numHistoryShards}
  datastores:
    postgres-default:
${datastore(TEMPORAL_DB, 20, postgresPort)}
    postgres-visibility:
${datastore(VISIBILITY_DB, 5, postgresPort)}`;
}

function service(name: TemporalService, ports: TemporalPorts): string {
  return `  ${name}:
    rpc:
      grpcPort: ${ports.grpc[name]}
      membershipPort: ${ports.membership[name]}
      bindOnIP: 127.0.0.1${name === 'frontend' ? `\n      httpPort: ${ports.frontendHttp}` : ''}`;
}

/** One cluster named `active`, its frontend the one address clients and the services use. */
function clusterMetadata(ports: TemporalPorts): string {
  const frontend = `127.0.0.1:${ports.grpc.frontend}`;
  return `clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "${frontend}"
      httpAddress: "127.0.0.1:${ports.frontendHttp}"

dcRedirectionPolicy:
  policy: noop

publicClient:
  hostPort: "${frontend}"`;
}

/** Writes both configs, at every start of the cluster (edits are overwritten). */
export function writeTemporalConfig({
  root,
  postgresPort,
  ports,
  numHistoryShards = 4,
}: TemporalConfigOptions): void {
  const configDir = join(root, CONFIG_DIR_NAME);
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, `${CONFIG_ENV_NAME}.yaml`),
    `# Written by launcher/cluster/temporal-config.ts at every start of the cluster; edits are overwritten.
log:
  stdout: true
  level: warn

${persistence(postgresPort, numHistoryShards)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1

services:
${TEMPORAL_SERVICES.map((name) => service(name, ports)).join('\n')}

${clusterMetadata(ports)}

dynamicConfigClient:
  filepath: "${join(configDir, 'dynamicconfig.yaml')}"
  pollInterval: 10s
`,
  );
  copyFileSync(DYNAMIC_CONFIG, join(configDir, 'dynamicconfig.yaml'));
}
