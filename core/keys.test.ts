// Redaction removes the key in its encodings, and the value of every SERVICE-API-KEY header in the
// forms Playwright and Node print it, whatever that value is (a near miss of the key included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { derivedKeys, keyForms, nearMisses, REDACTED, redactHeaders, redactText } from './keys.ts';

const KEY = 'cc_test_0123456789abcdef0123456789+/=?&';
// What a near-miss test key once was: the key one character short, and upper-cased.
const NEAR = [KEY.slice(0, -1), KEY.toUpperCase(), 'some other value with spaces'];

test('redactText removes the key raw, URL-encoded and base64-encoded', () => {
  const text = `a ${KEY} b ${encodeURIComponent(KEY)} c ${Buffer.from(KEY).toString('base64')} d`;
  assert.equal(redactText(text, KEY), `a ${REDACTED} b ${REDACTED} c ${REDACTED} d`);
});

test("redactText redacts the whole value of a header line in Playwright's call log, any case of the name", () => {
  for (const value of NEAR) {
    for (const name of ['SERVICE-API-KEY', 'service-api-key', 'Service-Api-Key']) {
      const log = `apiRequestContext.fetch: read ECONNRESET\nCall log:\n  - → POST http://127.0.0.1:1/console/v1/metrics\n    - accept: */*\n    - ${name}: ${value}\n    - content-length: 12\n`;
      const out = redactText(log, KEY);
      assert.ok(!out.includes(value), `${name}: ${value}`);
      assert.ok(out.includes(`    - ${name}: ${REDACTED}\n    - content-length: 12`), out);
    }
  }
});

test('redactText redacts a header line with ANSI colours, at the start of a text, and in a curl -H', () => {
  for (const value of NEAR) {
    assert.equal(redactText(`\x1b[2m    - SERVICE-API-KEY: ${value}\x1b[22m\n`, KEY), `\x1b[2m    - SERVICE-API-KEY: ${REDACTED}\x1b[22m\n`);
    assert.equal(redactText(`SERVICE-API-KEY: ${value}\r\nhost: x`, KEY), `SERVICE-API-KEY: ${REDACTED}\r\nhost: x`);
    assert.equal(
      redactText(`curl -H "SERVICE-API-KEY: ${value}" -H 'service-api-key: ${value}'`, KEY),
      `curl -H "SERVICE-API-KEY: ${REDACTED}" -H 'service-api-key: ${REDACTED}'`,
    );
  }
});

test('redactText redacts "SERVICE-API-KEY":"x" (JSON), also inside a JSON string, and \'SERVICE-API-KEY\': \'x\' (Node)', () => {
  for (const value of NEAR) {
    for (const json of [JSON.stringify({ 'SERVICE-API-KEY': value, a: 1 }), JSON.stringify({ 'service-api-key': value }, null, 2)]) {
      const out = redactText(json, KEY);
      assert.ok(!out.includes(value), json);
      assert.equal(JSON.parse(out)[Object.keys(JSON.parse(json))[0]], REDACTED, 'still JSON, the value redacted');
    }
    const nested = JSON.stringify({ attachment: JSON.stringify({ requestHeaders: { 'SERVICE-API-KEY': value } }) });
    assert.ok(!redactText(nested, KEY).includes(value), nested);
    assert.equal(JSON.parse(JSON.parse(redactText(nested, KEY)).attachment).requestHeaders['SERVICE-API-KEY'], REDACTED);
    const node = inspect({ 'SERVICE-API-KEY': value, 'content-type': 'application/json' });
    assert.ok(node.includes(`'SERVICE-API-KEY': '${value}'`), node);
    assert.equal(redactText(node, KEY), node.replace(`'${value}'`, `'${REDACTED}'`));
  }
});

test("redactText redacts a call log that was JSON-encoded (conformance.json, the HTML report's data)", () => {
  for (const value of NEAR) {
    const json = JSON.stringify({
      error: `fetch: read ECONNRESET\nCall log:\n\x1b[2m    - SERVICE-API-KEY: ${value}\x1b[22m\n\x1b[2m    - content-length: 12\x1b[22m`,
    });
    const out = redactText(json, KEY);
    assert.ok(!out.includes(value), out);
    assert.match(JSON.parse(out).error, /- SERVICE-API-KEY: <redacted>\x1b\[22m\n\x1b\[2m    - content-length: 12/);
  }
});

test("redactText keeps what is no key: the curl line's variable, a redacted value, an empty one, the name mid-sentence", () => {
  for (const text of [
    `curl -sS -X GET 'http://127.0.0.1:1/x' -H "SERVICE-API-KEY: $CONSOLE_API_KEY"`,
    JSON.stringify({ requestHeaders: { 'SERVICE-API-KEY': REDACTED } }),
    '    - SERVICE-API-KEY: \n',
    'listExperiments without SERVICE-API-KEY: must not be accepted, got 200',
    'the SERVICE-API-KEY header is required',
  ])
    assert.equal(redactText(text, KEY), text);
  assert.equal(redactText('no key here', undefined), 'no key here');
});

test('redactHeaders replaces the key header in any case and keeps the others', () => {
  assert.deepEqual(redactHeaders({ 'service-api-key': KEY, Accept: '*/*' }), { 'service-api-key': REDACTED, Accept: '*/*' });
});

test('redactHeaders replaces Authorization and Cookie whatever they hold (the auth tests send the key there)', () => {
  const basic = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
  assert.deepEqual(redactHeaders({ Authorization: basic, cookie: `apiKey=${KEY}`, Accept: '*/*' }), {
    Authorization: REDACTED,
    cookie: REDACTED,
    Accept: '*/*',
  });
});

test('redactText removes the key inside a larger base64 text: a Basic pair with the key as user or password', () => {
  for (const pair of [`${KEY}:`, `:${KEY}`, `api:${KEY}`]) {
    const text = `echoed: Basic ${Buffer.from(pair).toString('base64')}`;
    const out = redactText(text, KEY);
    assert.ok(out.includes(REDACTED), `${pair}: ${out}`);
    assert.ok(!keyForms(KEY).some((f) => out.includes(f)), `${pair}: no form of the key is left: ${out}`);
  }
});

test('derivedKeys: one short, the first half, one added and each other case, never the key itself, each once', () => {
  const mixed = 'Cc_Live_0123456789abcdefABCDEFabcd';
  const got = derivedKeys(mixed);
  assert.deepEqual(
    got.map((d) => d.key),
    [mixed.slice(0, -1), mixed.slice(0, 17), `${mixed}0`, mixed.toUpperCase(), mixed.toLowerCase(), 'cC_lIVE_0123456789ABCDEFabcdefABCD'],
  );
  assert.equal(new Set(got.map((d) => d.what)).size, got.length, 'each says what it is');
  // A key with no upper-case letter: upper and swapped case are the same key, lower case is the key.
  assert.deepEqual(
    derivedKeys(KEY).map((d) => d.what),
    ['the key one character short', "the key's first half", 'the key with one character added', 'the key upper-cased'],
  );
  // A short key has no first half to send: it may be little more than its vendor's prefix, in every file.
  assert.ok(!derivedKeys('console-0123456789abcdef').some((d) => d.what.includes('first half')));
  for (const key of [mixed, KEY, 'console-0123456789abcdef']) {
    for (const d of derivedKeys(key)) {
      assert.notEqual(d.key, key);
      // What the secret scan looks for covers it: a near miss of the key, or the key inside it.
      assert.ok(nearMisses(key).includes(d.key) || d.key.includes(key), `${d.what} of ${key}`);
      assert.ok(
        keyForms(key).some((f) => d.key.includes(f)),
        `${d.what}: a form of the key is in it`,
      );
    }
  }
});

test('redactText removes a derived key wherever a server echoed it, in any case, longest match first', () => {
  const mixed = 'Cc_Live_0123456789abcdefABCDEFabcd';
  for (const d of derivedKeys(mixed)) {
    const text = JSON.stringify({ status: 401, message: `key ${d.key} is not valid` });
    const out = redactText(text, mixed);
    assert.ok(!out.includes(d.key), `${d.what}: ${out}`);
    for (const near of nearMisses(mixed)) assert.ok(!out.toLowerCase().includes(near.toLowerCase()), `${d.what}: ${near} left in ${out}`);
    assert.match(JSON.parse(out).message, /^key <redacted>0? is not valid$/);
  }
});
