// What each tool tells an agent: when to call it, what comes back, and what to do next.
export const START_MINING = [
  'Start mining a proof-of-work chain of `blocks` blocks at `difficulty` leading zero bits.',
  'The call waits a while for the work to finish.',
  'If it finishes, the answer has status "completed" and the result.',
  'If it is still running, the answer has status "running", a `workflow_id` and `poll_after_seconds`:',
  'the work keeps going on the server, so do NOT call start_mining again (that starts a second job);',
  'wait `poll_after_seconds`, then call get_mining_result with that exact `workflow_id`.',
].join(' ');

export const GET_MINING_RESULT = [
  'Check a mining run started by start_mining. Pass the `workflow_id` exactly as start_mining returned it;',
  'never invent, shorten or alter it.',
  'Status "running": wait `poll_after_seconds`, then call again.',
  'Status "completed": use `result` and stop polling.',
  'Status "failed" or "cancelled": stop polling and tell the user.',
  'Status "not_found": stop polling; the id is unknown or expired (start again only if the user wants).',
  'Status "input_required": a person must answer `input_requests` before the run continues.',
].join(' ');

export const CANCEL_MINING = [
  'Cancel a running mining run. Pass the `workflow_id` exactly as start_mining returned it.',
  'Returns the run status afterwards, normally "cancelled"; a run that already ended keeps its outcome.',
  'Only cancel when the user asks to stop the work.',
].join(' ');
