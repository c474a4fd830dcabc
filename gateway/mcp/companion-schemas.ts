// The arguments of the start/poll companions (result, cancel, respond) and of the tasks/* methods:
// the gateway's own, the same for every catalog tool.
import * as z from 'zod/v4';

const workflowId = (startTool: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .describe(`The workflow_id returned by ${startTool}, copied exactly. Never invent or alter it.`);

export const workflowIdArgs = (startTool: string) => z.object({ workflow_id: workflowId(startTool) });

export const respondArgs = (startTool: string) =>
  z.object({
    workflow_id: workflowId(startTool),
    key: z
      .string()
      .min(1)
      .max(200)
      .describe('The key of the input request being answered, exactly as it appears in input_requests.'),
    action: z
      .enum(['accept', 'decline', 'cancel'])
      .describe(
        '"accept" with the form content, "decline" when the person says no, "cancel" when they dismiss it.',
      ),
    content: z
      .record(z.string().max(100), z.union([z.string().max(1_000), z.number(), z.boolean()]))
      .optional()
      .describe(
        'The person\'s answers to the form fields (for accept), e.g. {"approve": true, "note": "ok"}.',
      ),
  });

/** tasks/* params. */
export const taskIdParams = z.object({ taskId: z.string() });

const inputResponse = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});

export const inputResponsesSchema = z.record(z.string(), inputResponse);
