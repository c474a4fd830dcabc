// `temporal-mcp-gateway/workflow`: the workflow side of the package, for a Temporal project of its
// own. McpTool (progress, input rounds, tool errors) and the contract's query, signal, names and
// types. It imports nothing but @temporalio/workflow, so it bundles into any worker's workflows.
export {
  ARTIFACT_REFERENCE_TYPE,
  type ArtifactReference,
  type ElicitationRequest,
  type ElicitationResponse,
  INPUT_SIGNAL,
  type InputRequest,
  type InputResponse,
  type InputResponses,
  inputSignal,
  PROGRESS_MEMO,
  PROGRESS_QUERY,
  progressQuery,
  type RootsRequest,
  type SamplingRequest,
  TASK_STATUS_ATTRIBUTE,
  type TaskStatusValue,
  TOOL_ERROR_TYPE,
  type ToolProgress,
  type ToolResultShape,
} from './mcp-contract.ts';
export { McpTool, toolError } from './mcp-tool.ts';
