// A request that fails at the network level must not carry the key, or anything from which it can be
// recovered, into what a run writes. Playwright's network errors list the request headers in their
// call log, so a connection reset on a request with a wrong key once wrote that key (a near-miss of
// the real one) into conformance.json, junit.xml, the HTML report, test-results/ and the CI log.
// Here a loopback proxy in front of a real reference server resets every request that carries a
// wrong key, the auth tests run through it, and everything the run wrote or printed is scanned for
// every form of the key (core/keys.ts keyForms: raw, case-changed, one short and its first half, each
// raw, URL, base64 and hex). With --auth-probes derived the suite sends wrong keys made from the real
// one; a second proxy answers each wrong key with a 401 that echoes it (in its body and a header), as a
// careless server might, and the scan proves that none of them reached anything the run wrote. (A
// derived key's reset is the first run's path: an exchange redacts the key header whatever its value.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { startReference } from '../core/reference.ts';
import { derivedKeys, keyForms } from '../core/keys.ts';
import { scan } from '../core/scan.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

interface Proxy {
  url: string;
  resets(): number;
  /** Requests with a wrong key derived from the real one that the echoing proxy answered. */
  echoedDerived(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback to `upstream` that resets the connection (RST, no answer) as soon as a
 * request on it carries a SERVICE-API-KEY header whose value is not `key`. Header lines are read as
 * they stream by, on every request of a kept-alive connection; nothing is held but the current line.
 */
function resettingProxy(upstream: URL, key: string, mode: 'reset' | 'echo' = 'reset'): Promise<Proxy> {
  let resets = 0;
  let echoedDerived = 0;
  const derived = new Set(derivedKeys(key).map((d) => d.key));
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const up = connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, up]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined); // a reset is the point of the exercise; the other side is closed below
    }
    let partial = '';
    let answered = false;
    client.on('data', (chunk: Buffer) => {
      if (answered) return;
      const lines = (partial + chunk.toString('latin1')).split('\r\n');
      // Only the unfinished last line is kept (a body without line breaks is cut to its tail).
      partial = lines.pop()!.slice(-4096);
      const wrongKey = lines.map((line) => /^service-api-key:[ \t]*(.*?)[ \t]*$/i.exec(line)).find((m) => m !== null && m[1] !== key)?.[1];
      if (wrongKey !== undefined && mode === 'echo') {
        // A 401 that names the key it was sent, in its body and a header; the connection closed after it.
        if (derived.has(wrongKey)) echoedDerived++;
        answered = true;
        up.destroy();
        const body = JSON.stringify({ status: 401, error: 'unauthorized', message: `SERVICE-API-KEY ${wrongKey} is not valid` });
        client.end(
          `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-rejected-key: ${wrongKey}\r\nconnection: close\r\n\r\n${body}`,
        );
        return;
      }
      if (wrongKey !== undefined) {
        resets++;
        up.destroy();
        client.resetAndDestroy();
        return;
      }
      up.write(chunk);
    });
    up.on('data', (d: Buffer) => client.write(d));
    client.on('end', () => up.end());
    up.on('end', () => client.end());
    client.on('close', () => up.destroy());
    up.on('close', () => client.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        resets: () => resets,
        echoedDerived: () => echoedDerived,
        close: () =>
          new Promise<void>((done) => {
            for (const s of open) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** `npm run conformance -- ARGS` with `env` (target, key, reports folder): its exit code and everything it printed. */
function conformance(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'contracts/conformance.ts'), ...args], {
    cwd: ROOT,
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('a connection reset on a request with a wrong key leaves no form of the key in reports, test-results or output', async () => {
  const server = await startReference({ stderr: 'ignore' });
  const proxy = await resettingProxy(new URL(server.baseUrl), server.apiKey);
  const reports = mkdtempSync(join(tmpdir(), 'cc-key-leak-'));
  const output = mkdtempSync(join(tmpdir(), 'cc-key-leak-out-'));
  try {
    const run = await conformance(['--grep', 'auth'], { CONSOLE_BASE_URL: proxy.url, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: reports });
    // The exit code is the transport handling's business (a reset run is inconclusive, or fails):
    // whatever it is, the key must not be in anything the run left behind.
    assert.ok(proxy.resets() > 0, `the proxy reset no request: the leak path was not exercised (exit ${run.code})\n${run.stdout.slice(-2000)}`);
    assert.match(run.stdout + run.stderr, /ECONNRESET|socket hang up/, 'the run reports the reset: its error went through the writers');
    const forms = keyForms(server.apiKey);
    const key = server.apiKey;
    assert.ok(
      [key, key.slice(0, -1), key.slice(1), key.toUpperCase()].every((k) => forms.includes(k)),
      'the scan looks for the key and its near misses',
    );
    assertNoFormOfKey(run, reports, output, server.apiKey);
  } finally {
    await proxy.close();
    await server.stop();
    rmSync(reports, { recursive: true, force: true });
    rmSync(output, { recursive: true, force: true });
  }
});

test('wrong keys derived from the real one (--auth-probes derived), echoed back by the target, leave no form of the key anywhere', async () => {
  const server = await startReference({ stderr: 'ignore' });
  const proxy = await resettingProxy(new URL(server.baseUrl), server.apiKey, 'echo');
  const reports = mkdtempSync(join(tmpdir(), 'cc-key-leak-'));
  const output = mkdtempSync(join(tmpdir(), 'cc-key-leak-out-'));
  try {
    const run = await conformance(['--grep', 'auth', '--auth-probes', 'derived'], {
      CONSOLE_BASE_URL: proxy.url,
      CONSOLE_API_KEY: server.apiKey,
      CONSOLE_REPORTS_DIR: reports,
    });
    const derived = derivedKeys(server.apiKey);
    // The reference's key (cc_ and 48 hex digits) has no upper case: one short, first half, one added, upper-cased.
    assert.equal(derived.length, 4, derived.map((d) => d.what).join(', '));
    // Each derived key on each of the ten operations, refused by the proxy's 401: the run passes.
    assert.ok(proxy.echoedDerived() >= derived.length * 10, `the proxy echoed ${proxy.echoedDerived()} derived keys`);
    assert.equal(run.code, 0, `the auth tests pass against a target that refuses every wrong key\n${run.stdout.slice(-2000)}`);
    // What the scan looks for covers every derived key: each is a near miss of the key, or holds the key.
    const forms = keyForms(server.apiKey);
    for (const d of derived)
      assert.ok(
        forms.some((f) => d.key.includes(f)),
        `the scan looks for ${d.what}`,
      );
    assertNoFormOfKey(run, reports, output, server.apiKey);
  } finally {
    await proxy.close();
    await server.stop();
    rmSync(reports, { recursive: true, force: true });
    rmSync(output, { recursive: true, force: true });
  }
});

/** The run's output beside its reports, then the scan of both: no file holds any form of the key. */
function assertNoFormOfKey(run: { code: number | null; stdout: string; stderr: string }, reports: string, output: string, key: string) {
  writeFileSync(join(output, 'stdout.txt'), run.stdout);
  writeFileSync(join(output, 'stderr.txt'), run.stderr);
  const { scanned, found } = scan([reports, output], key);
  assert.ok(scanned > 2, `the run wrote reports to scan (exit ${run.code}, ${scanned} files)`);
  assert.deepEqual(
    found.map((f) => f.replace(reports, '<reports>').replace(output, '<output>')),
    [],
    'files that hold a form of the key',
  );
}
