// Secrets under each keyword of JSON Schema 2020-12 that applies a subschema (Core §10, the
// unevaluated vocabulary §11, Validation §8's contentSchema) and draft-07's `dependencies`, each in
// a schema the gateway's Ajv compiles; `$ref` resolved against a nested `$id` (Core §8.2.1, §8.2.3);
// and what the walk cannot read refused, naming the keyword and its JSON pointer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileSchema } from '../../gateway/mcp/schemas.ts';
import { secretArguments } from '../../gateway/shared/secret-arguments.ts';

const hidden = (value: unknown) => `<${JSON.stringify(value)}>`;

/** A schema the gateway compiles: its secret places, and `args` with them replaced by `<value>`. */
function found(properties: Record<string, unknown>, args: Record<string, unknown>, extra = {}) {
  const schema = { type: 'object', properties, ...extra };
  const validate = compileSchema(schema);
  assert.ok(validate(args), `the arguments fit the schema: ${JSON.stringify(validate.errors)}`);
  const secrets = secretArguments(schema);
  assert.ok(secrets, 'the schema has secrets');
  return { paths: [...secrets.paths].sort(), replaced: secrets.replaced(args, hidden) };
}

describe('a secret under each keyword that applies a subschema', () => {
  test('if, then, else: a secret in any of the three', () => {
    // A passing `if` keeps its annotations (Core §10.2.2.1), as does the branch that applies.
    const login = {
      type: 'object',
      properties: { mode: { enum: ['basic', 'token', 'pin'] } },
      if: { properties: { mode: { const: 'pin' }, pin: { writeOnly: true } } },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a promise
      then: { properties: { mode: { const: 'pin' } } },
      else: {
        if: { properties: { mode: { const: 'basic' } } },
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a promise
        then: { properties: { password: { type: 'string', writeOnly: true } } },
        else: { properties: { token: { type: 'string', writeOnly: true } } },
      },
    };
    const { paths, replaced } = found(
      { a: login, b: login, c: login },
      { a: { mode: 'basic', password: 'p' }, b: { mode: 'token', token: 't' }, c: { mode: 'pin', pin: 1 } },
    );
    assert.deepEqual(paths, [
      'a.password',
      'a.pin',
      'a.token',
      'b.password',
      'b.pin',
      'b.token',
      'c.password',
      'c.pin',
      'c.token',
    ]);
    assert.deepEqual(replaced, {
      a: { mode: 'basic', password: '<"p">' },
      b: { mode: 'token', token: '<"t">' },
      c: { mode: 'pin', pin: '<1>' },
    });
  });

  test('dependentSchemas, and draft-07 dependencies beside a list of names', () => {
    const { paths, replaced } = found(
      {
        login: {
          type: 'object',
          dependentSchemas: { user: { properties: { password: { type: 'string', writeOnly: true } } } },
        },
        legacy: {
          type: 'object',
          dependencies: { user: { properties: { pin: { writeOnly: true } } }, pin: ['user'] },
        },
      },
      { login: { user: 'ann', password: 'p' }, legacy: { user: 'bob', pin: 42 } },
    );
    assert.deepEqual(paths, ['legacy.pin', 'login.password']);
    assert.deepEqual(replaced, {
      login: { user: 'ann', password: '<"p">' },
      legacy: { user: 'bob', pin: '<42>' },
    });
  });

  test('unevaluatedProperties and unevaluatedItems', () => {
    const { paths, replaced } = found(
      {
        headers: { type: 'object', unevaluatedProperties: { type: 'string', writeOnly: true } },
        keys: { type: 'array', unevaluatedItems: { type: 'string', writeOnly: true } },
      },
      { headers: { 'X-Key': 'h' }, keys: ['k1', 'k2'] },
    );
    assert.deepEqual(paths, ['headers.*', 'keys[]']);
    assert.deepEqual(replaced, { headers: { 'X-Key': '<"h">' }, keys: ['<"k1">', '<"k2">'] });
  });

  test('contains: the items it matches', () => {
    const { paths, replaced } = found(
      { keys: { type: 'array', contains: { type: 'string', writeOnly: true } } },
      { keys: ['k1', 'k2'] },
    );
    assert.deepEqual(paths, ['keys[]']);
    assert.deepEqual(replaced, { keys: ['<"k1">', '<"k2">'] });
  });

  test('not: a secret declared under it is still one (the gateway fails closed)', () => {
    // Core §10.2.1.4 drops `not`'s annotations; a schema that writes writeOnly there is kept secret all the same.
    const { paths } = found({ pin: { not: { type: 'string', writeOnly: true } } }, { pin: 1 });
    assert.deepEqual(paths, ['pin']);
  });

  test('propertyNames and contentSchema: a secret there hides the object or the string whole', () => {
    // The names are strings, and the content is inside one string: neither can be hidden alone.
    const { paths, replaced } = found(
      {
        vault: { type: 'object', propertyNames: { writeOnly: true } },
        blob: {
          type: 'string',
          contentMediaType: 'application/json',
          contentSchema: { type: 'object', properties: { password: { writeOnly: true } } },
        },
        plain: { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
      },
      { vault: { 'sk-123': 1 }, blob: '{"password":"p"}', plain: { a: 1 } },
    );
    assert.deepEqual(paths, ['blob', 'vault']);
    assert.deepEqual(replaced, {
      vault: '<{"sk-123":1}>',
      blob: '<"{\\"password\\":\\"p\\"}">',
      plain: { a: 1 },
    });
  });

  test('combinators, not and dependentSchemas nested in each other', () => {
    const { paths } = found(
      {
        deep: {
          allOf: [
            {
              not: {
                anyOf: [
                  { type: 'object', dependentSchemas: { a: { properties: { k: { writeOnly: true } } } } },
                ],
              },
            },
          ],
        },
      },
      { deep: 'not an object' },
    );
    assert.deepEqual(paths, ['deep.k']);
  });

  test('$dynamicRef: the schema the dynamic scope picks, not only its static target', () => {
    // Core §8.2.3.2: `#node` in tree.json names the outermost resource on the way in with a `node`
    // anchor: secret-tree.json, whose `key` is secret at every depth.
    const { paths, replaced } = found(
      { tree: { $ref: 'secret-tree.json' } },
      { tree: { key: 'a', children: [{ key: 'b', children: [] }] } },
      {
        $id: 'https://tools.example/root.json',
        $defs: {
          Tree: {
            $id: 'tree.json',
            $dynamicAnchor: 'node',
            type: 'object',
            properties: { key: {}, children: { type: 'array', items: { $dynamicRef: '#node' } } },
          },
          SecretTree: {
            $id: 'secret-tree.json',
            $dynamicAnchor: 'node',
            $ref: 'tree.json',
            properties: { key: { type: 'string', writeOnly: true } },
          },
        },
      },
    );
    assert.deepEqual(paths, ['tree.key']);
    assert.deepEqual(replaced, { tree: { key: '<"a">', children: [{ key: '<"b">', children: [] }] } });
  });
});

describe('$ref against a nested $id', () => {
  // The one Login resource: its `#/$defs/Token` is its own (a secret), not the root's (plain).
  const extra = {
    $id: 'https://tools.example/echo.json',
    $defs: {
      Token: { type: 'string' },
      Login: {
        $id: 'login.json',
        $defs: { Token: { $anchor: 'token', type: 'string', writeOnly: true } },
        type: 'object',
        properties: { token: { $ref: '#/$defs/Token' }, again: { $ref: '#token' } },
      },
    },
  };

  test('a reference resolves against the base URI of its resource', () => {
    const { paths, replaced } = found(
      {
        login: { $ref: 'login.json' },
        absolute: { $ref: 'https://tools.example/login.json#/$defs/Token' },
        anchored: { $ref: 'login.json#token' },
        plain: { $ref: '#/$defs/Token' },
      },
      { login: { token: 't', again: 'a' }, absolute: 'x', anchored: 'y', plain: 'p' },
      extra,
    );
    assert.deepEqual(paths, ['absolute', 'anchored', 'login.again', 'login.token']);
    assert.deepEqual(replaced, {
      login: { token: '<"t">', again: '<"a">' },
      absolute: '<"x">',
      anchored: '<"y">',
      plain: 'p',
    });
  });

  test('an $anchor belongs to its resource: the root has no #token', () => {
    assert.throws(
      () => secretArguments({ type: 'object', ...extra, properties: { a: { $ref: '#token' } } }),
      /#\/properties\/a\/\$ref: \$ref "#token": nothing at that place/,
    );
  });
});

describe('what the walk cannot read is refused, naming the keyword and its place', () => {
  // The first three compile in the gateway's Ajv (it reads neither unreferenced $defs nor
  // contentSchema, and compiles whatever a pointer names); the others it refuses too.
  const refused: [string, Record<string, unknown>, RegExp][] = [
    [
      'an unknown keyword in $defs',
      { type: 'object', $defs: { A: { 'x-vendor': { properties: { k: { writeOnly: true } } } } } },
      /^Error: #\/\$defs\/A: unknown keyword "x-vendor": the gateway cannot tell whether it holds a secret/,
    ],
    [
      'an unknown keyword in a contentSchema',
      {
        type: 'object',
        properties: {
          blob: { type: 'string', contentSchema: { type: 'object', secretFields: ['password'] } },
        },
      },
      /^Error: #\/properties\/blob\/contentSchema: unknown keyword "secretFields"/,
    ],
    [
      'a $ref to a place that is not a subschema',
      { type: 'object', enum: [{ type: 'string' }], properties: { a: { $ref: '#/enum/0' } } },
      /^Error: #\/properties\/a\/\$ref: \$ref "#\/enum\/0" names a place that is not a subschema/,
    ],
    [
      'a $ref to another document',
      { type: 'object', properties: { a: { $ref: 'https://example.com/key.json' } } },
      /^Error: #\/properties\/a\/\$ref: \$ref "https:\/\/example\.com\/key\.json" names no schema inside this one/,
    ],
    [
      'a $ref to nothing',
      { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } },
      /\$ref "#\/\$defs\/Missing": nothing at that place/,
    ],
  ];
  for (const [index, [what, schema, reason]] of refused.entries())
    test(what, () => {
      if (index < 3) assert.doesNotThrow(() => compileSchema(schema));
      assert.throws(() => secretArguments(schema), reason);
    });

  test("a 2019-09 $recursiveRef, which the gateway's Ajv also knows", () => {
    assert.throws(
      () => secretArguments({ type: 'object', properties: { a: { $recursiveRef: '#' } } }),
      /^Error: #\/properties\/a: unknown keyword "\$recursiveRef": a 2019-09 keyword: use \$dynamicRef/,
    );
  });
});
