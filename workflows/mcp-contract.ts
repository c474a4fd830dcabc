// The wire contract between the gateway and any workflow it serves as an MCP tool. Plain JSON, so a
// workflow written with any Temporal SDK can meet it; every part is optional. Names here are the
// defaults a catalog entry's progressQuery / inputSignal usually take.
// Only defineQuery/defineSignal come from the workflow SDK: they are safe outside a workflow.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Query (no arguments) answering ToolProgress. */
export const PROGRESS_QUERY = 'mcp.progress';
/** Signal (one argument: InputResponses) carrying a person's answers to input requests. */
export const INPUT_SIGNAL = 'mcp.input';
/** ApplicationFailure type of a tool-level error: the tool answered, with an error. */
export const TOOL_ERROR_TYPE = 'McpToolError';

/** An outstanding request for input (an MCP elicitation/create form request). */
export interface InputRequest {
  method: 'elicitation/create';
  params: {
    mode: 'form';
    message: string;
    requestedSchema: {
      type: 'object';
      properties: Record<string, { type: string; title?: string; description?: string }>;
      required?: string[];
    };
  };
}

/** An answer to one input request, keyed like the request. */
export interface InputResponse {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export type InputResponses = Record<string, InputResponse>;

/** What the progress query answers. */
export interface ToolProgress {
  /** One line for people and models: the task's statusMessage. */
  message?: string;
  progress?: number;
  total?: number;
  /** Outstanding input requests by key; non-empty makes the task input_required. */
  inputRequests?: Record<string, InputRequest>;
}

export const progressQuery = defineQuery<ToolProgress>(PROGRESS_QUERY);
export const inputSignal = defineSignal<[InputResponses]>(INPUT_SIGNAL);
