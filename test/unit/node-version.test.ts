// The Node.js check (common/node-version.ts) reads package.json `engines` as npm does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { satisfies, unsupportedNode } from '../../common/node-version.ts';

describe('the Node.js engines check', () => {
  it('reads ^24.11.0 || >=26 as npm does', () => {
    const range = '^24.11.0 || >=26';
    const allowed = ['24.11.0', '24.22.3', '26.0.0', '27.1.2', 'v26.12.1'];
    const refused = ['20.20.2', '24.10.9', '25.9.0', '22.0.0', '23.99.99'];
    assert.deepEqual(
      [...allowed, ...refused].filter((version) => satisfies(version, range)),
      allowed,
    );
  });

  it('reads ~, >, <, <= and exact versions, and refuses what it cannot read', () => {
    assert.equal(satisfies('24.11.5', '~24.11.0'), true);
    assert.equal(satisfies('24.12.0', '~24.11.0'), false);
    assert.equal(satisfies('24.0.0', '>22 <25'), true);
    assert.equal(satisfies('25.0.0', '>22 <25'), false);
    assert.equal(satisfies('24.0.0', '<=24.0.0'), true);
    assert.equal(satisfies('24.0.1', '24.0.0'), false);
    assert.throws(() => satisfies('24.0.0', '24.x'), /24\.x is not a comparator/);
  });

  it('says in one line what is needed, what runs and how to get it; nothing for a supported one', () => {
    const line = unsupportedNode('20.20.2', '/usr/bin/node', '^24.11.0 || >=26');
    assert.equal(
      line,
      'temporal-mcp-gateway needs Node.js ^24.11.0 || >=26 (package.json engines), and this is Node.js 20.20.2 ' +
        '(/usr/bin/node): see README.md, Run it: export PATH="$(bash scripts/install-node.sh):$PATH" puts a ' +
        'Node.js 26 first on PATH (or nvm install 26)',
    );
    assert.equal(unsupportedNode('26.12.1', '/opt/node/bin/node', '^24.11.0 || >=26'), undefined);
  });
});
