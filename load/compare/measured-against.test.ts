// A run is compared only with a baseline of the same kind of target: the committed baselines time the
// reference server, and a correct server slower than it is no regression.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareSummary, mergeSummaries, type Figures, type RunSummary } from './baseline.ts';
import { attachTarget, measuredAgainst } from './measured-against.ts';

const fig = (p50: number): Figures => ({ p50, p95: p50 * 2, p99: p50 * 3, count: 200, rps: 10, errorRate: 0 });
const summary = (deepMs: number, target?: RunSummary['target']): RunSummary => ({
  format: 'console-conformance.load-summary/1',
  script: 'paging',
  profile: 'smoke',
  durationMs: 4000,
  endpoints: { calibration: fig(1), 'listExperiments.deep': fig(deepMs) },
  ...(target ? { target } : {}),
});

test('the target is the reference server, or only the origin of the base URL: no credentials, path or query', () => {
  assert.deepEqual(measuredAgainst(undefined), { kind: 'reference' });
  assert.deepEqual(measuredAgainst('https://user:k_secret@staging.example.com:8443/console/v1?key=k_secret'), {
    kind: 'external',
    origin: 'https://staging.example.com:8443',
  });
});

test('a correct server ten times slower than the reference is not compared with the reference baseline', () => {
  const base = summary(2, { kind: 'reference' });
  const r = compareSummary(summary(20, { kind: 'external', origin: 'http://127.0.0.1:8080' }), base, 'paging.json');
  assert.equal(r.verdict, 'no-baseline');
  assert.match(r.reason, /^the baseline was measured on the reference server, this run on http:\/\/127\.0\.0\.1:8080: /);
  assert.ok(r.endpoints.every((e) => !e.regression));
  // The same slowdown on the reference itself is a regression.
  assert.equal(compareSummary(summary(20, { kind: 'reference' }), base, 'paging.json').verdict, 'regression');
});

test('two external origins, or a side that does not say, are compared as before', () => {
  const base = summary(2, { kind: 'external', origin: 'http://127.0.0.1:8080' });
  assert.equal(compareSummary(summary(20, { kind: 'external', origin: 'http://127.0.0.1:9090' }), base, 'p.json').verdict, 'regression');
  assert.equal(compareSummary(summary(20), base, 'p.json').verdict, 'regression');
  assert.equal(compareSummary(summary(20, { kind: 'reference' }), summary(2), 'p.json').verdict, 'regression');
});

test('merged runners keep the target they share, and none when they differ', () => {
  const ref = { kind: 'reference' } as const;
  assert.deepEqual(mergeSummaries([summary(2, ref), summary(3, ref)]).target, ref);
  assert.equal(mergeSummaries([summary(2, ref), summary(3)]).target, undefined);
});

test('attachTarget adds the target to the summary the run wrote, keeping the rest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-target-'));
  try {
    const file = join(dir, 'summary.json');
    writeFileSync(file, JSON.stringify(summary(2)));
    attachTarget(file, { kind: 'reference' });
    const written = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(written.target, { kind: 'reference' });
    assert.equal(written.endpoints['listExperiments.deep'].p50, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
