// The suite's HTTP client against a real loopback server: compressed answers (a CDN in front of a real
// server compresses; without Accept-Encoding any coding is allowed, RFC 9110 12.5.3) are decoded and
// judged as the JSON they are, and a body that does not decode is a transport problem, not a verdict.
import { type TestContext, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type RequestListener } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { TestInfo } from '@playwright/test';
import { call } from './evidence.ts';
import { TransportError } from './transport.ts';
import { SPEC_MESSAGES } from '../index.ts';

const BODY = JSON.stringify({ message: SPEC_MESSAGES.listReleasePipelines, data: [{ id: 'rp_1' }], pagination: {} });
const CODINGS: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

/** A loopback server answering with `handler`, and the client's context for it; both gone when the test ends. */
async function loopback(t: TestContext, handler: RequestListener, apiKey = 'k_secret_value') {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const reportsDir = mkdtempSync(join(tmpdir(), 'cc-evidence-'));
  t.after(() => {
    server.close();
    rmSync(reportsDir, { recursive: true, force: true });
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey, requestTimeoutMs: 5000, reportsDir };
}

test('the client decodes gzip, deflate and br answers, and calls a body that does not decode a transport problem', async (t) => {
  const seen: string[] = [];
  const ctx = await loopback(t, (req, res) => {
    seen.push(String(req.headers['accept-encoding']));
    const coding = new URL(req.url ?? '/', 'http://x').searchParams.get('coding') ?? '';
    const body = coding === 'broken' ? Buffer.from('not gzip at all') : (CODINGS[coding] ?? ((b: Buffer) => b))(Buffer.from(BODY));
    res.writeHead(200, { 'content-type': 'application/json', ...(coding ? { 'content-encoding': coding === 'broken' ? 'gzip' : coding } : {}) });
    res.end(body);
  });
  // The client records each exchange on the test; here the record is kept for the assertions.
  const attached: string[] = [];
  const info = { attach: async (_name: string, a: { body: string }) => void attached.push(a.body), annotations: [] } as unknown as TestInfo;

  for (const coding of ['', 'gzip', 'deflate', 'br']) {
    const reply = await call(info, ctx, 'POST', `/console/v1/release_pipelines?coding=${coding}`, { data: {} });
    assert.equal(reply.status, 200, coding);
    assert.deepEqual(reply.body, JSON.parse(BODY), `body sent with content-encoding ${coding || 'none'}`);
  }
  await assert.rejects(
    call(info, ctx, 'POST', '/console/v1/release_pipelines?coding=broken', { data: {} }),
    (err: unknown) => err instanceof TransportError && /does not decode as gzip/.test(err.reason),
  );
  assert.ok(
    seen.every((s) => s === 'gzip, deflate, br'),
    `accept-encoding sent: ${[...new Set(seen)].join(' | ')}`,
  );
  assert.equal(attached.length, 5, 'every exchange recorded, the failed one too');
});

test('the client sends a header name as spelt (lower, mixed, capitals), and the exchange redacts its value whatever it is', async (t) => {
  // Playwright's request context and some HTTP clients normalise header names; this client must not,
  // or the suite could not send the key header in another case (auth.key.headerNameCase).
  const names: string[][] = [];
  const key = 'k_secret_value_0123456789';
  const ctx = await loopback(
    t,
    (req, res) => {
      names.push(req.rawHeaders.filter((_, i) => i % 2 === 0));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(BODY);
    },
    key,
  );
  const attached: string[] = [];
  const info = { attach: async (_name: string, a: { body: string }) => void attached.push(a.body), annotations: [] } as unknown as TestInfo;
  const spellings = ['service-api-key', 'Service-Api-Key', 'SERVICE-API-KEY'];
  // The key, and a wrong key derived from it (upper-cased): neither may be in the recorded exchange.
  for (const [i, name] of spellings.entries())
    await call(info, ctx, 'GET', '/console/v1/release_pipelines', { headers: { [name]: i === 1 ? key.toUpperCase() : key } });
  assert.deepEqual(
    names.map((n) => n.find((x) => x.toLowerCase() === 'service-api-key')),
    spellings,
    'the names on the wire',
  );
  assert.equal(attached.length, 3);
  for (const [i, text] of attached.entries()) {
    assert.ok(!text.toLowerCase().includes(key.toLowerCase()), `exchange ${i} holds the key in some case`);
    assert.equal(JSON.parse(text).requestHeaders[spellings[i]], '<redacted>');
  }
});

test('every 5xx the server answers is a finding naming the request, also after a retry and in text; a gateway page is not', async (t) => {
  let tries = 0;
  const ctx = await loopback(t, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/json-500') return res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"boom"}');
    if (path === '/text-500') return res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
    if (path === '/html-502') return res.writeHead(502, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>');
    // A read answered 500 once, then 200: the retry succeeds, the 500 is still reported.
    if (path === '/flaky' && tries++ === 0) return res.writeHead(500, { 'content-type': 'text/plain' }).end('oops');
    res.writeHead(200, { 'content-type': 'application/json' }).end(BODY);
  });
  const judged = async (method: string, path: string) => {
    const annotations: { type: string; description?: string }[] = [];
    const info = { attach: async () => undefined, annotations } as unknown as TestInfo;
    await call(info, ctx, method, path, method === 'GET' ? {} : { data: {} }).catch((err) => assert.ok(err instanceof TransportError, String(err)));
    assert.ok(
      annotations.some((a) => a.type === 'checked' && a.description === 'errors.no5xx'),
      `${path}: every answer checks errors.no5xx`,
    );
    return annotations.filter((a) => a.type === 'finding').map((a) => JSON.parse(a.description!).message as string);
  };
  assert.deepEqual(await judged('POST', '/json-500?x=1'), ['POST /json-500 answered HTTP 500']);
  assert.deepEqual(await judged('POST', '/text-500'), ['POST /text-500 answered HTTP 500'], "a 500 in text is the server's answer too");
  assert.deepEqual(await judged('POST', '/html-502'), [], "a gateway's 502 page is the network's doing (inconclusive), not a finding");
  assert.deepEqual(await judged('GET', '/flaky'), ['GET /flaky answered HTTP 500 (then HTTP 200 when tried again)']);
  assert.deepEqual(await judged('GET', '/ok'), []);
});
