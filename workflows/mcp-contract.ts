// The wire contract between the gateway and any workflow it serves as an MCP tool. Plain JSON, so a
// workflow written with any Temporal SDK can meet it; every part is optional. Names here are the
// defaults a catalog entry's progressQuery / inputSignal usually take.
// Only defineQuery/defineSignal come from the workflow SDK: they are safe outside a workflow.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Query (no arguments) answering ToolProgress. */
export const PROGRESS_QUERY = 'mcp.progress';
/**
 * The memo key under which a run publishes its ToolProgress (upserted whenever it changes): the
 * gateway reads it in the one describe of a poll, with no worker round trip. A run whose memo lacks
 * it is asked with the progress query instead.
 */
export const PROGRESS_MEMO = 'mcp.progress';
/**
 * A Keyword search attribute a run upserts when its status changes: `working`, or `input_required`
 * while it waits for a person. Only when the run was started with it (the gateway sets it where the
 * namespace has it registered), so an unregistered attribute never fails a workflow.
 */
export const TASK_STATUS_ATTRIBUTE = 'McpTaskStatus';
export type TaskStatusValue = 'working' | 'input_required';
/** Signal (one argument: InputResponses) carrying a person's answers to input requests. */
export const INPUT_SIGNAL = 'mcp.input';
/** ApplicationFailure type of a tool-level error: the tool answered, with an error. */
export const TOOL_ERROR_TYPE = 'McpToolError';

/**
 * An outstanding request for input, as MCP embeds it in an input_required answer or a task: an
 * elicitation (a form for a person), a sampling request (the client's model) or a roots listing.
 * `params` are the MCP request's params, passed to the client as they are. The gateway shows a
 * client only the requests whose capability it declared (elicitation, sampling, roots).
 */
export type InputRequest = ElicitationRequest | SamplingRequest | RootsRequest;

export interface ElicitationRequest {
  method: 'elicitation/create';
  params: {
    mode?: 'form';
    message: string;
    requestedSchema: {
      type: 'object';
      properties: Record<
        string,
        { type: string; title?: string; description?: string; [k: string]: unknown }
      >;
      required?: string[];
    };
  };
}

export interface SamplingRequest {
  method: 'sampling/createMessage';
  params: { messages: unknown[]; maxTokens: number; [k: string]: unknown };
}

export interface RootsRequest {
  method: 'roots/list';
  params?: Record<string, unknown>;
}

/**
 * An answer to one input request, keyed like the request: the bare MCP result of the request.
 * An elicitation's is `{ action, content? }`; a sampling request's a CreateMessageResult
 * (`{ role, content, model, stopReason? }`); a roots listing's `{ roots: [{ uri, name? }] }`.
 */
export type InputResponse = ElicitationResponse | Record<string, unknown>;

export interface ElicitationResponse {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export type InputResponses = Record<string, InputResponse>;

/**
 * The result of a workflow whose catalog entry says `resultShape: toolResult`: an MCP tool result
 * the gateway passes on as it is (text, image, audio, resource_link and embedded resource blocks),
 * instead of rendering the workflow's JSON result as text and structuredContent.
 */
export interface ToolResultShape {
  content: Array<Record<string, unknown> & { type: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the progress query answers. */
export interface ToolProgress {
  /** One line for people and models: the task's statusMessage. */
  message?: string;
  progress?: number;
  total?: number;
  /** Outstanding input requests by key; non-empty makes the task input_required. */
  inputRequests?: Record<string, InputRequest>;
  /**
   * How long clients should wait before asking again, in milliseconds: the workflow knows best
   * when its next step ends. Replaces the gateway's own estimate (from the time run, progress/total
   * and input_required); still jittered and clamped to the gateway's min and max intervals.
   */
  pollAfterMs?: number;
}

export const progressQuery = defineQuery<ToolProgress>(PROGRESS_QUERY);
export const inputSignal = defineSignal<[InputResponses]>(INPUT_SIGNAL);

/** The `type` that marks a JSON object as an artifact reference. */
export const ARTIFACT_REFERENCE_TYPE = 'mcp_artifact';

/**
 * A large output kept outside Temporal history: what a workflow (or the activity that stored the
 * bytes) returns instead of the bytes, as its whole result or as a value of its top-level fields
 * (or an element of an array there). The gateway answers a `resource_link` for it and serves the
 * bytes through `resources/read` to the run's owner until `expiresAt`. docs/artifacts.md has the
 * shape in every SDK language and where the bytes go.
 */
export interface ArtifactReference {
  type: typeof ARTIFACT_REFERENCE_TYPE;
  /** The object's name in the artifact store: 16 to 128 characters of [A-Za-z0-9_-], random. */
  id: string;
  /** A file name for people and clients ("report.csv"). */
  name: string;
  /** MIME type of the bytes ("text/csv", "application/octet-stream"). */
  contentType: string;
  /** Size in bytes. */
  size: number;
  /** SHA-256 of the bytes, lower-case hex. */
  sha256: string;
  /** When the artifact stops being served (ISO 8601, UTC). */
  expiresAt: string;
}
