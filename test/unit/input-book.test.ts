import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputBook } from '../../workflows/input-book.ts';
import type { InputResponse } from '../../workflows/mcp-contract.ts';
import { approvalRequest, readApproval } from '../../workflows/mining/approval.ts';

const chain = {
  difficulty: 8,
  data: 'd',
  blocks: [],
  finalHash: 'ab'.repeat(32),
  totalHashesTried: 1,
  totalMs: 1,
};
const yes: InputResponse = { action: 'accept', content: { approve: true } };

describe('input book', () => {
  it('issues keys unique for the lifetime and lists only outstanding requests', () => {
    const book = new InputBook();
    const first = book.ask('approve-publish', approvalRequest(chain));
    const second = book.ask('approve-publish', approvalRequest(chain));
    assert.equal(first, 'approve-publish-1');
    assert.equal(second, 'approve-publish-2');
    assert.deepEqual(Object.keys(book.pending()), [first, second]);
    book.supersede(first);
    assert.deepEqual(Object.keys(book.pending()), [second]);
  });

  it('ignores unknown, repeated and superseded keys, and malformed answers', () => {
    const book = new InputBook();
    const a = book.ask('q', approvalRequest(chain));
    const b = book.ask('q', approvalRequest(chain));
    const c = book.ask('q', approvalRequest(chain));
    book.supersede(c);
    assert.deepEqual(book.receive({ nope: yes, [c]: yes }), []);
    assert.deepEqual(
      book.receive({
        [a]: { action: 'maybe' } as unknown as InputResponse,
        [b]: { action: 'accept', content: [] } as unknown as InputResponse,
      }),
      [],
    );
    assert.deepEqual(book.receive({ [a]: yes }), [a], 'a partial set is taken');
    assert.deepEqual(Object.keys(book.pending()), [b], 'the rest stays outstanding');
    assert.deepEqual(
      book.receive({ [a]: { action: 'decline' } }),
      [],
      'an answered key is not answered twice',
    );
    assert.deepEqual(book.answer(a), yes);
    assert.equal(book.answer(c), undefined);
  });
});

describe('approval', () => {
  it('asks with an elicitation form naming the chain and its final hash', () => {
    const request = approvalRequest(chain);
    assert.equal(request.method, 'elicitation/create');
    assert.match(request.params.message, new RegExp(chain.finalHash));
    assert.deepEqual(request.params.requestedSchema.required, ['approve']);
    assert.equal(request.params.requestedSchema.properties.approve?.type, 'boolean');
    assert.equal(request.params.requestedSchema.properties.note?.type, 'string');
  });

  it('publishes only on accept with approve=true', () => {
    assert.deepEqual(readApproval({ action: 'accept', content: { approve: true, note: 'ok' } }), {
      kind: 'approved',
      note: 'ok',
    });
    assert.deepEqual(readApproval({ action: 'accept', content: { approve: false } }), {
      kind: 'declined',
      action: 'accept',
      note: undefined,
    });
    assert.equal(readApproval({ action: 'decline' }).kind, 'declined');
    assert.equal(readApproval({ action: 'cancel' }).kind, 'declined');
    assert.equal(readApproval({ action: 'accept', content: { approve: 'yes' } }).kind, 'invalid');
  });
});
