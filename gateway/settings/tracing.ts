// What the gateway's spans carry beyond the standard OTEL_* settings (common/tracing.ts).
import * as z from 'zod/v4';
import { boolean, parseSettings } from '../../common/settings.ts';

export interface TraceSettings {
  /** Whether a request's span names its principal (MCP_TRACE_PRINCIPAL=true). */
  tracePrincipal: boolean;
}

const traceSchema = z
  .object({ MCP_TRACE_PRINCIPAL: boolean('MCP_TRACE_PRINCIPAL') })
  .transform((env): TraceSettings => ({ tracePrincipal: env.MCP_TRACE_PRINCIPAL }));

export function traceFromEnv(env: NodeJS.ProcessEnv): TraceSettings {
  return parseSettings(traceSchema, env);
}
