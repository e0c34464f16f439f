// The operator's mechanism with the real k6: runners initialise and wait paused until every one is
// ready, are released together through the REST API, and between them run the test once; a runner
// that cannot start, or a test that outlives its bound, is one line and no process left behind.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, ROOT } from '../../core/config.ts';
import { durationMs, runRunners, testBoundMs } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'cc-runners-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function k6Binary(): string {
  const which = spawnSync('bash', [join(ROOT, 'scripts/install-k6'), '--which'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : join(ROOT, '.tools/bin/k6');
  assert.ok(existsSync(found), `k6 is needed for this test: npm run k6:install (looked for ${found})`);
  return found;
}

/** A loopback server that counts the requests of each execution segment. */
async function counter(): Promise<{ url: string; hits: Map<string, number>; total: () => number; server: Server }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const seg = new URL(req.url ?? '/', 'http://x').searchParams.get('seg') ?? '?';
    hits.set(seg, (hits.get(seg) ?? 0) + 1);
    res.end('ok');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const total = () => [...hits.values()].reduce((a, b) => a + b, 0);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits, total, server };
}

// 30 iterations a second for 2 s (60 in all, split between the segments) and one iteration of a
// single VU (one segment gets it), each request naming its runner's segment; a summary per runner.
const SCRIPT = `
import http from 'k6/http';
import exec from 'k6/execution';
export const options = {
  scenarios: {
    rate: { executor: 'constant-arrival-rate', rate: 30, timeUnit: '1s', duration: '2s', preAllocatedVUs: 4, maxVUs: 8 },
    once: { executor: 'per-vu-iterations', vus: 1, iterations: 1, exec: 'once' },
  },
};
const hit = () => http.get(__ENV.BASE + '/hit?seg=' + encodeURIComponent(exec.test.options.executionSegment));
export default hit;
export function once() { hit(); }
export function handleSummary(d) {
  return { [__ENV.LOAD_REPORT_DIR + '/summary.json']: JSON.stringify({ iterations: d.metrics.iterations.values.count }) };
}
`;

test('three runners wait paused until all are ready, are released together, and between them run the test once', { timeout: 120_000 }, async () => {
  const k6 = k6Binary();
  const target = await counter();
  try {
    const script = join(dir, 'count.js');
    writeFileSync(script, SCRIPT);
    let hitsBeforeRelease = -1;
    const lines: string[] = [];
    const results = await runRunners({
      k6,
      script,
      runners: 3,
      env: { PATH: process.env.PATH ?? '', HOME: dir, BASE: target.url, K6_NO_USAGE_REPORT: 'true' },
      reportDir: join(dir, 'report'),
      cwd: dir,
      args: ['--quiet', '--no-color'],
      stopWithinMs: 60_000,
      label: 'test',
      say: (l) => lines.push(l),
      beforeRelease: () => {
        hitsBeforeRelease = target.total();
      },
    });
    assert.equal(hitsBeforeRelease, 0, 'a runner sent load before the release');
    assert.match(
      lines[0],
      /^test: 3 k6 runners started paused \(segments 0:1\/3, 1\/3:2\/3, 2\/3:1\), REST API on 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+$/,
    );
    assert.match(lines[1], /^test: all 3 runners ready after [\d.]+ s, released together$/);
    assert.deepEqual(
      results.map((r) => [r.index, r.segment, r.exit]),
      [
        [1, '0:1/3', 0],
        [2, '1/3:2/3', 0],
        [3, '2/3:1', 0],
      ],
    );
    // Every segment sent its third of the arrival rate; the single VU's iteration ran in one runner only.
    assert.deepEqual([...target.hits.keys()].sort(), ['0:1/3', '1/3:2/3', '2/3:1']);
    // 60 + 1, give or take the arrival-rate executor's iteration at the boundary of a second (as one
    // k6 gives); a segment run twice or left out would be 80 or 40.
    const total = target.total();
    assert.ok(total >= 59 && total <= 63, JSON.stringify([...target.hits]));
    const iterations = results.map((r) => (JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8')) as { iterations: number }).iterations);
    assert.equal(
      iterations.reduce((a, b) => a + b, 0),
      total,
    );
  } finally {
    target.server.close();
  }
});

test('a runner that cannot start stops the others, with one line saying which and why', { timeout: 60_000 }, async () => {
  const k6 = k6Binary();
  const started = Date.now();
  await assert.rejects(
    runRunners({
      k6,
      script: join(dir, 'no-such-script.js'),
      runners: 2,
      env: { PATH: process.env.PATH ?? '', HOME: dir, K6_NO_USAGE_REPORT: 'true' },
      reportDir: join(dir, 'broken'),
      cwd: dir,
      stopWithinMs: 60_000,
      label: 'test',
      say: () => {},
    }),
    (err: Error) => {
      assert.match(err.message, /^runner [12] of 2 exited \(code \d+\) before it was ready: .*no-such-script/);
      assert.equal(err.message.split('\n').length, 1);
      return err instanceof ConfigError;
    },
  );
  assert.ok(Date.now() - started < 30_000);
});

test('a test that outlives its bound is stopped, and says so', { timeout: 60_000 }, async () => {
  const k6 = k6Binary();
  const script = join(dir, 'long.js');
  writeFileSync(script, `import { sleep } from 'k6';\nexport const options = { vus: 1, duration: '60s' };\nexport default function () { sleep(0.2); }\n`);
  const started = Date.now();
  await assert.rejects(
    runRunners({
      k6,
      script,
      runners: 2,
      env: { PATH: process.env.PATH ?? '', HOME: dir, K6_NO_USAGE_REPORT: 'true' },
      reportDir: join(dir, 'long'),
      cwd: dir,
      stopWithinMs: 2000,
      label: 'test',
      say: () => {},
    }),
    (err: Error) => err instanceof ConfigError && err.message === 'the runners did not stop within 2 s of their release: stopped',
  );
  assert.ok(Date.now() - started < 40_000, `${Date.now() - started} ms`);
  // The bound of a real test comes from k6: its scenarios' length, graceful stops included, plus setup and teardown.
  assert.equal(await testBoundMs(k6, script, { PATH: process.env.PATH ?? '', HOME: dir }, dir), 60_000 + 30_000 + 60_000 + 60_000 + 60_000);
});

test('durationMs reads Go durations as k6 prints them', () => {
  assert.equal(durationMs('1m35s'), 95_000);
  assert.equal(durationMs('2h0m0.5s'), 7_200_500);
  assert.equal(durationMs('500ms'), 500);
  assert.equal(durationMs('soon'), undefined);
  assert.equal(durationMs(undefined), undefined);
});
