// What a finished run says about publishing its chain, for people and models. A declined or
// timed-out approval is the tool's answer, not a broken run: the task is `completed` with
// isError, the mined chain still in the result, and a message saying why nothing was published.
import type { ChainResult } from '../../../workflows/contract.ts';

export interface PublicationOutcome {
  isError: boolean;
  message: string;
}

export function publicationOutcome(result: ChainResult): PublicationOutcome | undefined {
  const publication = result.publication;
  if (!publication) return undefined;
  const note = 'note' in publication && publication.note ? ` Their note: "${publication.note}".` : '';
  switch (publication.status) {
    case 'published':
      return { isError: false, message: `Approved and published to the ledger (${publication.ledgerPath}).` };
    case 'declined':
      return {
        isError: true,
        message: `The person declined publishing the chain (${publication.action}); it was mined but not published.${note}`,
      };
    case 'approval_timed_out':
      return {
        isError: true,
        message: `The approval timed out: nobody answered within ${Math.round(publication.waitedMs / 1000)} s, so the chain was mined but not published.`,
      };
  }
}
