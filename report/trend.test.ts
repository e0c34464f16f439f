// Trends from the run history: a slowdown that starts on a known night is reported with that night's
// run and its size; like runs only (target, profile); the page draws them from a real history file.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendRun, type HistoryRun } from '../core/history.ts';
import { renderPage } from './html.ts';
import { readInputs } from './inputs.ts';
import { describeChange, trendsOf } from './trend.ts';

const TARGET = 'https://staging.example.com fixtures/targets/staging.json';
const zero = { pass: 0, fail: 0, warn: 0, observed: 0, uncovered: 0 };

/** Night `i` of a history: listExperiments.page1 at `ms`, machine `scale`, `failing` stated clauses. */
function night(i: number, ms: number, extra: { scale?: number; failing?: number; target?: string; profile?: string } = {}): HistoryRun {
  const scale = extra.scale ?? 1;
  return {
    startedAt: new Date(Date.UTC(2026, 9, 1 + i, 3, 17)).toISOString(),
    target: extra.target ?? TARGET,
    version: `0.1.0 (c0ffee${String(i).padStart(2, '0')})`,
    exitCode: 0,
    verdict: 'pass',
    strict: false,
    profile: extra.profile ?? 'baseline',
    partial: false,
    clauses: {
      stated: { ...zero, pass: 305 - (extra.failing ?? 0), fail: extra.failing ?? 0 },
      inferred: { ...zero, pass: 21 },
      open: { ...zero, observed: 35 },
    },
    endpoints: [
      { script: 'paging', endpoint: 'listExperiments.page1', p50: ms * scale, p95: 2 * ms * scale, p99: 3 * ms * scale, count: 600, median: null, scale },
      { script: 'paging', endpoint: 'calibration', p50: 1 * scale, p95: 2, p99: 3, count: 300, median: null, scale },
    ],
  };
}

/** 40 nights, the endpoint 30% slower from night 28 on, with a little noise; runners of two speeds. */
function history(): HistoryRun[] {
  const wobble = [0, 0.02, -0.01, 0.015, -0.02, 0.01, -0.015, 0.005];
  return Array.from({ length: 40 }, (_, i) => night(i, 40 * (1 + wobble[i % 8]) * (i >= 28 ? 1.3 : 1), { scale: i % 3 === 0 ? 1.5 : 1 }));
}

test('a slowdown from a known night is reported with that run, its commit and its size, on calibrated latency', () => {
  const t = trendsOf(history());
  const page1 = t.latency.find((x) => x.key === 'paging listExperiments.page1')!;
  assert.equal(page1.calibrated, true, 'divided by the runner speed: the 1.5x runners are no shift');
  assert.equal(page1.changes.length, 1, JSON.stringify(page1.changes));
  const c = page1.changes[0];
  assert.equal(c.index, 28);
  assert.equal(c.at.version, '0.1.0 (c0ffee28)');
  assert.ok(Math.abs(c.size - 1.3) < 0.05, `size ${c.size}`);
  assert.match(describeChange(page1, c), /1\.3\dx \(40\.\d\d to 5\d\.\d\d ms\) from the run of 2026-10-29 03:17 UTC, 0\.1\.0 \(c0ffee28\)/);
  // The calibration endpoint is the ruler: kept raw, its runner changes are not a shift of 10%+ in level.
  assert.equal(t.latency.find((x) => x.key === 'paging calibration')!.calibrated, false);
  assert.deepEqual(t.passRate.changes, []);
});

test('a clause that starts failing is a pass-rate change at its run', () => {
  const runs = Array.from({ length: 12 }, (_, i) => night(i, 40, { failing: i >= 8 ? 2 : 0 }));
  const { passRate } = trendsOf(runs);
  assert.deepEqual(
    passRate.changes.map((c) => c.index),
    [8],
  );
  assert.match(describeChange(passRate, passRate.changes[0]), /clause pass rate -0\.6 points \(100\.0% to 99\.4%\) from the run of 2026-10-09/);
});

test('only like runs: the last run decides the target and the profile; partial runs have no pass rate', () => {
  const runs = [
    ...Array.from({ length: 6 }, (_, i) => night(i, 400, { target: 'reference fixtures/targets/reference.json' })),
    ...Array.from({ length: 6 }, (_, i) => night(10 + i, 40, { profile: 'smoke' })),
    ...Array.from({ length: 6 }, (_, i) => night(20 + i, 40)),
  ];
  runs[14] = { ...runs[14], partial: true };
  const t = trendsOf(runs);
  assert.equal(t.runs, 12);
  assert.equal(t.profile, 'baseline');
  assert.equal(t.passRate.points.length, 11);
  assert.equal(t.latency[0].points.length, 6);
  // A last run without load (--skip-load) keeps the latency trends of the profile before it.
  const skipped = trendsOf([...runs, { ...night(30, 40), profile: null, endpoints: [] }]);
  assert.equal(skipped.profile, 'baseline');
  assert.equal(skipped.latency[0].points.length, 6);
});

test('the page draws each trend from the history file, change-points marked; no history is said so', (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-trend-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const summary = {
    verdict: 'pass',
    strict: false,
    target: 'https://staging.example.com',
    manifest: 'fixtures/targets/staging.json',
    startedAt: '2026-11-09T03:17:00.000Z',
    durationMs: 1000,
    tests: { total: 1, passed: 1, failed: 0, failedCounting: 0, inconclusive: 0, notRun: 0 },
    findings: { total: 0, counting: 0 },
    partial: false,
    stop: null,
    clauses: { total: 1, ...zero, pass: 1 },
    byLevel: { stated: { ...zero, pass: 1 }, inferred: zero, open: zero },
    drift: 0,
    playwrightStatus: 'passed',
  };
  writeFileSync(join(dir, 'conformance.json'), JSON.stringify({ summary, clauses: [], failures: [], inconclusive: [], drift: [] }));
  assert.match(renderPage(readInputs(dir)), /<section id="trend">.*No run history/s);
  const file = join(dir, 'history.sqlite');
  for (const run of history()) appendRun(file, run);
  const page = renderPage(readInputs(dir, file));
  const section = page.slice(page.indexOf('<section id="trend">'), page.indexOf('</section>', page.indexOf('<section id="trend">')));
  assert.match(section, /<figure class="trend" data-trend="paging listExperiments.page1" data-changes="1">/);
  assert.match(section, /<figure class="trend" data-trend="pass-rate" data-changes="0">/);
  assert.equal((section.match(/<g class="change">/g) ?? []).length, 1);
  assert.equal((section.match(/<svg class="chart trend"/g) ?? []).length, 3);
  assert.match(section, /1 shifted/);
  assert.doesNotMatch(section, /https?:\/\/(?!staging)/, 'no link or request anywhere');
  writeFileSync(join(dir, 'bad.sqlite'), 'not a database');
  assert.match(renderPage(readInputs(dir, join(dir, 'bad.sqlite'))), /The run history could not be read: /);
});

test('the nights a manifest runs out of trigger phases: a coverage change at the first of them', () => {
  const coverage = (checked: number) => ({ total: 305, checked, uncovered: 305 - checked, unverifiable: 0, waived: 0, excluded: 0 });
  const runs = Array.from({ length: 12 }, (_, i) => ({ ...night(i, 40), coverage: coverage(i >= 8 ? 280 : 305) }));
  const t = trendsOf(runs);
  assert.deepEqual(
    t.coverage.changes.map((c) => c.index),
    [8],
  );
  assert.match(describeChange(t.coverage, t.coverage.changes[0]), /stated clauses checked -8\.2 points \(100\.0% to 91\.8%\) from the run of 2026-10-09/);
  assert.deepEqual(trendsOf(runs.map((r) => ({ ...r, coverage: null }))).coverage.points, [], 'runs recorded before coverage was kept have none');
});
