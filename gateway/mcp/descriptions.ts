// What each tool tells an agent: the catalog's own description of the work, then what every
// long-running tool must say: when to poll, with which companion, and what to do next.
import type { CatalogTool } from './catalog.ts';

type Described = Pick<CatalogTool, 'name' | 'description' | 'companions' | 'presentation'>;

export function startDescription(tool: Described): string {
  const { result, respond } = tool.companions;
  return [
    tool.description,
    'The call waits a while for the work to finish.',
    'If it finishes, the answer has status "completed" and the result.',
    'If it is still running, the answer has status "running", a `workflow_id` and `poll_after_seconds`:',
    `the work keeps going on the server, so do NOT call ${tool.name} again (that starts a second job);`,
    `wait \`poll_after_seconds\`, then call ${result} with that exact \`workflow_id\`.`,
    ...(respond
      ? [
          'If the run pauses with status "input_required", ask the user the message of each entry of',
          `\`input_requests\` and answer with ${respond}.`,
        ]
      : []),
  ].join(' ');
}

export function resultDescription(tool: Described): string {
  const noun = tool.presentation.noun;
  return [
    `Check a ${noun} started by ${tool.name}. Pass the \`workflow_id\` exactly as ${tool.name} returned it;`,
    'never invent, shorten or alter it.',
    'Status "running": wait `poll_after_seconds`, then call again.',
    'Status "completed": use `result` and stop polling.',
    'Status "failed" or "cancelled": stop polling and tell the user.',
    'Status "not_found": stop polling; the id is unknown or expired (start again only if the user wants).',
    ...(tool.companions.respond
      ? ['Status "input_required": a person must answer `input_requests` before the run continues.']
      : []),
  ].join(' ');
}

export function respondDescription(tool: Described): string {
  return [
    `Answer an input request of a ${tool.presentation.noun} whose status is "input_required".`,
    'Pass the `workflow_id` and the request `key` exactly as given in `input_requests`; never invent either.',
    'Ask the user the request message first and send only what they said: action "accept" with `content`',
    'holding the form fields (e.g. {"approve": true}), "decline" if they refuse, "cancel" if they dismiss it.',
    'Answer each key once. The reply is the run status afterwards: "completed" with the result, or',
    `"input_required" with new requests, or "running" (then poll ${tool.companions.result}).`,
  ].join(' ');
}

export function cancelDescription(tool: Described): string {
  return [
    `Cancel a running ${tool.presentation.noun}. Pass the \`workflow_id\` exactly as ${tool.name} returned it.`,
    'Returns the run status afterwards, normally "cancelled"; a run that already ended keeps its outcome.',
    'Only cancel when the user asks to stop the work.',
  ].join(' ');
}
