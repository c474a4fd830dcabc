// Secret arguments: the places an inputSchema marks writeOnly at any depth (nested objects, array
// items, $ref into $defs and definitions, the combinators, recursion), and the arguments with
// every value at those places replaced.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SECRET_PLACEHOLDER,
  secretArguments,
  withoutSecrets,
} from '../../gateway/shared/secret-arguments.ts';

const hidden = (value: unknown) => `<${JSON.stringify(value)}>`;

/** The schema's secret places and `args` with them replaced by `<value>`. */
function found(schema: Record<string, unknown>, args: Record<string, unknown> = {}) {
  const secrets = secretArguments(schema);
  assert.ok(secrets, 'the schema has secrets');
  return { paths: [...secrets.paths].sort(), replaced: secrets.replaced(args, hidden), secrets };
}

describe('where a schema keeps secrets', () => {
  test('none: no secrets, and the arguments untouched', () => {
    const schema = { type: 'object', properties: { text: { type: 'string', writeOnly: false } } };
    assert.equal(secretArguments(schema), undefined);
    const args = { text: 'hi' };
    assert.equal(withoutSecrets(args, undefined), args);
  });

  test('top level and nested objects, at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        api_key: { type: 'string', writeOnly: true },
        auth: {
          type: 'object',
          properties: {
            user: { type: 'string' },
            vault: { type: 'object', properties: { token: { type: 'string', writeOnly: true } } },
          },
        },
      },
    };
    const args = { api_key: 'k-1', auth: { user: 'ann', vault: { token: 't-1' } }, other: 1 };
    const { paths, replaced } = found(schema, args);
    assert.deepEqual(paths, ['api_key', 'auth.vault.token']);
    assert.deepEqual(replaced, {
      api_key: '<"k-1">',
      auth: { user: 'ann', vault: { token: '<"t-1">' } },
      other: 1,
    });
    assert.deepEqual(args.auth.vault, { token: 't-1' }, 'the arguments given are not changed');
  });

  test('a writeOnly object or array is secret as a whole', () => {
    const schema = {
      type: 'object',
      properties: {
        credentials: { type: 'object', writeOnly: true, properties: { password: { type: 'string' } } },
        keys: { type: 'array', writeOnly: true, items: { type: 'string' } },
      },
    };
    const { paths, replaced } = found(schema, { credentials: { password: 'p' }, keys: ['a', 'b'] });
    assert.deepEqual(paths, ['credentials', 'keys']);
    assert.deepEqual(replaced, { credentials: '<{"password":"p"}>', keys: '<["a","b"]>' });
  });

  test("arrays' items, tuples (prefixItems) and any key (additionalProperties, patternProperties)", () => {
    const schema = {
      type: 'object',
      properties: {
        accounts: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, password: { type: 'string', writeOnly: true } },
          },
        },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string', writeOnly: true }] },
        headers: { type: 'object', additionalProperties: { type: 'string', writeOnly: true } },
        env: { type: 'object', patternProperties: { '^SECRET_': { type: 'string', writeOnly: true } } },
      },
    };
    const args = {
      accounts: [{ name: 'a', password: 'p1' }, { name: 'b' }, { name: 'c', password: 'p3' }],
      pair: ['user', 'pass'],
      headers: { 'X-Key': 'h' },
      env: { SECRET_A: 's' },
    };
    const { paths, replaced } = found(schema, args);
    assert.deepEqual(paths, ['accounts[].password', 'env.*', 'headers.*', 'pair[1]']);
    assert.deepEqual(replaced, {
      accounts: [{ name: 'a', password: '<"p1">' }, { name: 'b' }, { name: 'c', password: '<"p3">' }],
      pair: ['user', '<"pass">'],
      headers: { 'X-Key': '<"h">' },
      env: { SECRET_A: '<"s">' },
    });
  });

  test('$ref into $defs and definitions, by JSON pointer and by $anchor', () => {
    const schema = {
      type: 'object',
      $defs: {
        Token: { type: 'string', writeOnly: true },
        Login: {
          $anchor: 'login',
          type: 'object',
          properties: { password: { type: 'string', writeOnly: true } },
        },
      },
      definitions: { Key: { $ref: '#/$defs/Token' } },
      properties: {
        token: { $ref: '#/$defs/Token' },
        key: { $ref: '#/definitions/Key' },
        login: { $ref: '#login' },
        plain: { $ref: '#/$defs/Login/properties/password', description: 'a ref to a secret place' },
      },
    };
    const args = { token: 't', key: 'k', login: { password: 'p', user: 'u' }, plain: 'x' };
    const { paths, replaced } = found(schema, args);
    assert.deepEqual(paths, ['key', 'login.password', 'plain', 'token']);
    assert.deepEqual(replaced, {
      token: '<"t">',
      key: '<"k">',
      login: { password: '<"p">', user: 'u' },
      plain: '<"x">',
    });
  });

  test('anyOf, oneOf, allOf: a place any branch calls secret is secret', () => {
    const schema = {
      type: 'object',
      properties: {
        auth: {
          anyOf: [
            { type: 'object', properties: { token: { type: 'string', writeOnly: true } } },
            { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } } },
          ],
        },
        target: {
          oneOf: [{ type: 'string' }, { type: 'object', properties: { secret: { writeOnly: true } } }],
        },
        both: { allOf: [{ type: 'object' }, { properties: { pin: { type: 'integer', writeOnly: true } } }] },
        password: { oneOf: [{ type: 'string' }, { type: 'null' }], writeOnly: true },
      },
    };
    const args = { auth: { token: 't', user: 'u' }, target: 'plain', both: { pin: 1234 }, password: null };
    const { paths, replaced } = found(schema, args);
    assert.deepEqual(paths, ['auth.token', 'both.pin', 'password', 'target.secret']);
    assert.deepEqual(replaced, {
      auth: { token: '<"t">', user: 'u' },
      target: 'plain',
      both: { pin: '<1234>' },
      password: '<null>',
    });
  });

  test('a recursive schema: its secrets replaced at every depth the arguments reach', () => {
    const schema = {
      type: 'object',
      $defs: {
        Node: {
          type: 'object',
          properties: {
            key: { type: 'string', writeOnly: true },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
        },
      },
      properties: { tree: { $ref: '#/$defs/Node' } },
    };
    const args = { tree: { key: 'a', children: [{ key: 'b', children: [{ key: 'c', children: [] }] }] } };
    const { paths, replaced } = found(schema, args);
    assert.deepEqual(paths, ['tree.key'], 'listed once, where the recursion starts');
    assert.deepEqual(replaced, {
      tree: { key: '<"a">', children: [{ key: '<"b">', children: [{ key: '<"c">', children: [] }] }] },
    });
  });

  test('values of another shape than the schema says are left as they are, secrets still replaced', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { k: { writeOnly: true } } },
        list: { items: { writeOnly: true } },
      },
    };
    const { replaced } = found(schema, { a: 'text', list: { k: 1 }, b: [1] });
    assert.deepEqual(replaced, { a: 'text', list: { k: 1 }, b: [1] });
    assert.deepEqual(found(schema, { list: [0, { x: 1 }] }).replaced, { list: ['<0>', '<{"x":1}>'] });
  });

  test('a writeOnly root makes every argument secret', () => {
    const { paths, replaced } = found(
      { type: 'object', writeOnly: true, properties: { a: { type: 'string' } } },
      { a: 'x', b: 2 },
    );
    assert.deepEqual(paths, ['*']);
    assert.deepEqual(replaced, { a: '<"x">', b: '<2>' });
  });

  test('withoutSecrets shows each secret as the placeholder; nothing secret given, the same object', () => {
    const secrets = secretArguments({
      type: 'object',
      properties: { nested: { type: 'object', properties: { key: { type: 'string', writeOnly: true } } } },
    });
    assert.deepEqual(withoutSecrets({ nested: { key: 'k' }, n: 1 }, secrets), {
      nested: { key: SECRET_PLACEHOLDER },
      n: 1,
    });
    const plain = { n: 1, nested: { other: 2 } };
    assert.equal(withoutSecrets(plain, secrets), plain);
  });

  test('x-mcp-header at or under a secret place is told, with its place', () => {
    const { secrets } = found({
      type: 'object',
      properties: {
        auth: {
          type: 'object',
          properties: { token: { type: 'string', writeOnly: true, 'x-mcp-header': 'Token' } },
        },
        login: {
          type: 'object',
          writeOnly: true,
          properties: { user: { type: 'string', 'x-mcp-header': 'User' } },
        },
        region: { type: 'string', 'x-mcp-header': 'Region' },
      },
    });
    assert.deepEqual([...secrets.mirrored].sort(), ['auth.token', 'login.user']);
  });

  test('a $ref the gateway cannot follow is refused, not read as "no secrets"', () => {
    assert.throws(
      () => secretArguments({ type: 'object', properties: { a: { $ref: 'https://example.com/key.json' } } }),
      /\$ref "https:\/\/example\.com\/key\.json" names no schema inside this one: only references inside the schema/,
    );
    assert.throws(
      () => secretArguments({ type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } }),
      /nothing at that place/,
    );
  });
});
