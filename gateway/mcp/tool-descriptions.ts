// What each tool tells an agent: when to call it, what comes back, and what to do next.
export const START_MINING = [
  'Start mining a proof-of-work chain of `blocks` blocks at `difficulty` leading zero bits.',
  'The call waits a while for the work to finish.',
  'If it finishes, the answer has status "completed" and the result.',
  'If it is still running, the answer has status "running", a `workflow_id` and `poll_after_seconds`:',
  'the work keeps going on the server, so do NOT call start_mining again (that starts a second job);',
  'wait `poll_after_seconds`, then call get_mining_result with that exact `workflow_id`.',
  'With `require_approval` (or for very large jobs) the run pauses after mining with status "input_required":',
  'ask the user the message of each entry of `input_requests` and answer with respond_to_mining.',
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

export const RESPOND_TO_MINING = [
  'Answer an input request of a mining run whose status is "input_required".',
  'Pass the `workflow_id` and the request `key` exactly as given in `input_requests`; never invent either.',
  'Ask the user the request message first and send only what they said: action "accept" with `content`',
  'holding the form fields (e.g. {"approve": true}), "decline" if they refuse, "cancel" if they dismiss it.',
  'Answer each key once. The reply is the run status afterwards: "completed" with the result, or',
  '"input_required" with new requests, or "running" (then poll get_mining_result).',
].join(' ');

export const CANCEL_MINING = [
  'Cancel a running mining run. Pass the `workflow_id` exactly as start_mining returned it.',
  'Returns the run status afterwards, normally "cancelled"; a run that already ended keeps its outcome.',
  'Only cancel when the user asks to stop the work.',
].join(' ');
