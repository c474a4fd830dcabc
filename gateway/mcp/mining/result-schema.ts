// The JSON Schema of a mined chain (ChainResult), start_mining's outputSchema: typed clients read
// `result` as this shape. Kept beside the workflow's own type by the type check below.
import * as z from 'zod/v4';
import type { ChainResult } from '../../../workflows/contract.ts';
import type { JsonSchema } from '../json-schema.ts';

const block = z.object({
  index: z.int(),
  nonce: z.int(),
  hash: z.string(),
  previousHash: z.string(),
  hashesTried: z.int(),
  ms: z.int(),
  attempt: z.int(),
  startNonce: z.int(),
});

const publication = z.union([
  z.object({ status: z.literal('published'), ledgerPath: z.string(), approvedNote: z.string().optional() }),
  z.object({
    status: z.literal('declined'),
    action: z.enum(['accept', 'decline', 'cancel']),
    note: z.string().optional(),
  }),
  z.object({ status: z.literal('approval_timed_out'), waitedMs: z.number() }),
]);

const chainResult = z.object({
  difficulty: z.int(),
  data: z.string(),
  blocks: z.array(block),
  finalHash: z.string(),
  totalHashesTried: z.int(),
  totalMs: z.int(),
  publication: publication.optional(),
});

// Fails to compile when the workflow's result type and this schema drift apart.
const _sameShape: z.infer<typeof chainResult> = {} as ChainResult;

export function chainResultSchema(): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(chainResult) as JsonSchema;
  return schema;
}
