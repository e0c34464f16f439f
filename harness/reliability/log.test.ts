// The server's log holds no key and no request-body secret: start it with --log,
// send the key in every way a client might (right, wrong, in the query by mistake) and bodies carrying
// secrets (valid, malformed, rejected), then look through everything it wrote, in every encoding the
// secret scanner knows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyForms } from '../../core/keys.ts';
import { callServer, startServer } from './server.ts';

const BODY_SECRET = 'cc_body_secret_7f3a9d0e51';

test('log: with --log on, the server writes no form of the key and no body secret', { timeout: 30_000 }, async () => {
  const server = await startServer({ log: true });
  const key = server.apiKey;
  try {
    const requests: [string, string, unknown, Record<string, string>?][] = [
      ['GET', '/console/v1/experiments?limit=2', undefined],
      ['POST', '/console/v1/metrics', { name: 'cc_log_metric', type: 'sum', description: BODY_SECRET }],
      ['POST', '/console/v1/metrics/cc_log_metric::sum', { owner: { email: `${BODY_SECRET}@example.com`, ownerID: BODY_SECRET } }],
      ['POST', '/console/v1/metrics', { name: BODY_SECRET, type: 'not-a-type' }],
      ['POST', '/console/v1/gates/gate_cc_alpha/rules', { rules: [{ name: BODY_SECRET, unknownField: BODY_SECRET }] }],
      ['PATCH', '/console/v1/experiments/exp_cc_overrides_1/overrides', { overrides: [], userIDOverrides: [{ groupID: 'g', ids: [BODY_SECRET] }] }],
      ['GET', '/console/v1/release_pipelines', undefined, { 'SERVICE-API-KEY': `${key}x` }],
      ['GET', '/console/v1/release_pipelines', undefined, { 'SERVICE-API-KEY': key.toUpperCase() }],
      ['GET', '/console/v1/release_pipelines', undefined, { authorization: `Bearer ${key}` }],
    ];
    for (const [method, path, body, headers] of requests) {
      const r = await callServer(server, method, path, body, headers);
      assert.ok(r.status < 500, `${method} ${path} answered ${r.status}`);
    }
    // A client that puts the key in the query by mistake (spec 5: header only) is refused, and its
    // mistake must not end up in the log either.
    const inQuery = await fetch(`${server.baseUrl}/console/v1/release_pipelines?SERVICE-API-KEY=${encodeURIComponent(key)}`);
    assert.equal(inQuery.status, 401);
    // A malformed body: the parser's message quotes the text it choked on.
    const malformed = await fetch(`${server.baseUrl}/console/v1/metrics`, {
      method: 'POST',
      headers: { 'SERVICE-API-KEY': key, 'content-type': 'application/json' },
      body: `{"name": "${BODY_SECRET}", oops`,
    });
    assert.equal(malformed.status, 400);
  } finally {
    await server.stop();
  }
  const log = server.output();
  // The log is on: something was written for the requests (else this test would prove nothing).
  assert.ok(log.split('\n').filter((l) => l.includes('"reqId"')).length >= 10, `the server logged too little to judge:\n${log.slice(0, 500)}`);
  const leaks = keyForms(key).filter((form) => log.includes(form));
  assert.deepEqual(
    leaks.length,
    0,
    `the log holds the key (${leaks.length} forms), e.g. on line: ${log
      .split('\n')
      .find((l) => leaks.some((f) => l.includes(f)))
      ?.split(key)
      .join('<KEY>')
      .slice(0, 300)}`,
  );
  assert.ok(
    !log.includes(BODY_SECRET),
    `the log holds a body secret: ${log
      .split('\n')
      .find((l) => l.includes(BODY_SECRET))
      ?.slice(0, 300)}`,
  );
});
