import { sleep } from '@temporalio/workflow';
import { type ElicitationResponse, McpTool, toolError } from 'temporal-mcp-gateway/workflow';

export async function buildReport(args: { year: number }): Promise<{ url: string }> {
  const tool = new McpTool(); // the progress query and input signal; publishes progress to the memo
  for (let month = 1; month <= 12; month++) {
    tool.report({ message: `Month ${month} of 12`, progress: month - 1, total: 12 });
    await sleep('1 second'); // stands in for an activity doing the work
  }
  // An elicitation's answer: { action, content? } (ask resolves undefined only with a timeout).
  const answer = (await tool.ask('publish', {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: `Publish the ${args.year} report?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    },
  })) as ElicitationResponse | undefined;
  if (answer?.action !== 'accept' || answer.content?.ok !== true) throw toolError('Not published');
  return { url: `https://reports.example/${args.year}` };
}
