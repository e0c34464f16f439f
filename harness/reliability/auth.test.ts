// Auth on every operation, through the real server over HTTP: a missing, empty,
// wrong, padded or case-changed key, or a key sent only in the query, is refused with 4xx in the error
// shape and changes nothing; the right key is then accepted. Spec 5: "The key is sent in the header only."
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../core/config.ts';
import { FUZZ_METRIC, loadOperations } from '../fuzz/contract.ts';
import { build } from '../../reference/app.ts';
import { startServer, type Server } from './server.ts';

let server: Server;
before(async () => {
  server = await startServer();
  // update-metric needs a metric to update: the one the fuzz's valid requests name.
  const r = await send('POST', '/console/v1/metrics', { 'SERVICE-API-KEY': server.apiKey }, JSON.stringify(FUZZ_METRIC));
  assert.ok(r.status >= 200 && r.status < 300, `cannot create ${FUZZ_METRIC.name}: ${r.status}`);
});
after(async () => {
  await server?.stop();
});

/** Raw request: header values go on the wire exactly as given (latin1), nothing added but Host. */
function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.baseUrl);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const operations = loadOperations();
const index = JSON.parse(readFileSync(join(ROOT, 'contracts/schemas/index.json'), 'utf8')).operations as Record<string, unknown>;

test('auth: the matrix covers every operation of the contract', () => {
  assert.deepEqual(operations.map((o) => o.id).sort(), Object.keys(index).sort());
});

for (const op of operations) {
  test(`auth: ${op.id} refuses missing, empty, wrong, padded, case-changed and query-only keys, then accepts the right one`, async () => {
    const key = server.apiKey;
    const path = op.validId === undefined ? op.path : op.path.replace('{id}', op.validId);
    const body = op.validBody === undefined ? undefined : JSON.stringify(op.validBody);
    const bad: [string, Record<string, string>, string][] = [
      ['missing', {}, path],
      ['empty', { 'SERVICE-API-KEY': '' }, path],
      ['wrong', { 'SERVICE-API-KEY': 'cc_not_the_key_0000000000000000' }, path],
      ['one character short', { 'SERVICE-API-KEY': key.slice(0, -1) }, path],
      ['one character more', { 'SERVICE-API-KEY': `${key}0` }, path],
      ['upper-cased', { 'SERVICE-API-KEY': key.toUpperCase() }, path],
      ['first letter changed in case', { 'SERVICE-API-KEY': key[0].toUpperCase() + key.slice(1) }, path],
      // Spaces and tabs at the ends of a field value are not part of it (RFC 9110, 5.5): HTTP parsers drop
      // them before the server sees the key. Padding that survives the parser must be refused.
      ['padded with no-break spaces', { 'SERVICE-API-KEY': `\u00a0${key}\u00a0` }, path],
      ['with an inner space', { 'SERVICE-API-KEY': `${key.slice(0, 4)} ${key.slice(4)}` }, path],
      ['quoted', { 'SERVICE-API-KEY': `"${key}"` }, path],
      ['twice in one header', { 'SERVICE-API-KEY': `${key}, ${key}` }, path],
      ['in Authorization instead', { authorization: `Bearer ${key}` }, path],
      ['only in the query', {}, `${path}?SERVICE-API-KEY=${encodeURIComponent(key)}`],
      ['only in the query, lower-case name', {}, `${path}?service-api-key=${encodeURIComponent(key)}`],
      ['only in the query as api_key', {}, `${path}?api_key=${encodeURIComponent(key)}`],
    ];
    for (const [what, headers, url] of bad) {
      const r = await send(op.method, url, headers, body);
      assert.ok(r.status >= 400 && r.status < 500, `${what}: ${op.method} ${op.path} answered ${r.status}`);
      const err = JSON.parse(r.text);
      assert.deepEqual(Object.keys(err).sort(), ['error', 'message', 'status'], `${what}: error shape`);
      assert.equal(err.status, r.status);
      assert.ok(!r.text.includes(key), `${what}: the answer holds the key`);
    }
    // The right key, after all the refusals: a state-changing operation (skip, unpause needs a pause
    // first) succeeds as if it were the first call, so none of the refused calls changed anything.
    if (op.id === 'unpauseTrigger') {
      const r = await send(op.method, path, { 'SERVICE-API-KEY': key }, body);
      assert.equal(r.status, 409, 'unpause of a trigger that is not paused (none of the refused calls paused or skipped it)');
      return;
    }
    const ok = await send(op.method, path, { 'SERVICE-API-KEY': key }, body);
    assert.ok(ok.status >= 200 && ok.status < 300, `the right key: ${op.method} ${op.path} answered ${ok.status} ${ok.text.slice(0, 200)}`);
    // Padding with spaces and tabs reaches the server without them (see above), so it is accepted too;
    // this pins down that the server and the HTTP layer agree on it rather than failing by accident.
    if (op.method === 'GET') {
      const padded = await send(op.method, path, { 'SERVICE-API-KEY': ` \t${key}\t ` });
      assert.equal(padded.status, 200, 'spaces and tabs around the value are stripped by HTTP itself');
    }
  });
}

test('auth: the server itself refuses a key padded with spaces or tabs, should a proxy pass them through', async () => {
  // Over HTTP the parser strips them (above); in process nothing does, so this is the server's own check.
  const key = 'cc_padded_key_0123456789abcdef';
  const app = build({ apiKey: key });
  try {
    for (const padded of [` ${key}`, `${key} `, `\t${key}`, `${key}\t`, ` ${key} `]) {
      const r = await app.inject({ method: 'GET', url: '/console/v1/release_pipelines', headers: { 'service-api-key': padded } });
      assert.equal(r.statusCode, 401, JSON.stringify(padded));
      assert.deepEqual(Object.keys(r.json()).sort(), ['error', 'message', 'status']);
    }
    const ok = await app.inject({ method: 'GET', url: '/console/v1/release_pipelines', headers: { 'service-api-key': key } });
    assert.equal(ok.statusCode, 200);
  } finally {
    await app.close();
  }
});
