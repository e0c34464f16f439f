// What verify adds to the history is read from the files the run wrote: the verdict, clause counts
// by level, the target as drift knows it, and per endpoint the figures, the samples' median and the
// calibration scale.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readInputs } from './inputs.ts';
import { histogramMedian, historyRunOf } from './history-record.ts';

function reportsDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-hrec-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const zero = { pass: 0, fail: 0, warn: 0, observed: 0, uncovered: 0 };
const byLevel = { stated: { ...zero, pass: 304, fail: 1 }, inferred: { ...zero, pass: 20, warn: 1 }, open: { ...zero, observed: 35 } };
const verify = {
  format: 'console-conformance.verify/1',
  exitCode: 1,
  startedAt: '2026-11-23T03:17:00.000Z',
  durationMs: 30000,
  target: { url: 'http://127.0.0.1:4000', reference: true },
  manifest: 'fixtures/targets/reference.json',
  options: { strict: false, profile: 'smoke', skipLoad: false, observationsBaseline: null, grep: null },
  versions: { 'console-conformance': '0.1.0 (3afac32)', node: 'v24.19.0' },
  stages: [],
};

test('histogram median: the middle request, read as its bucket geometric middle', () => {
  assert.equal(histogramMedian({ growth: 2, start: 0, counts: [1, 0, 3] }), 2 ** 2.5);
  assert.equal(histogramMedian({ growth: 2, start: 1, counts: [2, 2] }), 2 ** 1.5);
  assert.equal(histogramMedian({ growth: 2, start: 0, counts: [] }), null);
  assert.equal(histogramMedian(undefined), null);
});

test('a run is recorded from verify.json, conformance.json and load/', (t) => {
  const dir = reportsDir(t);
  writeFileSync(join(dir, 'verify.json'), JSON.stringify(verify));
  writeFileSync(join(dir, 'conformance.json'), JSON.stringify({ summary: { verdict: 'fail', partial: false, byLevel }, clauses: [], failures: [], drift: [] }));
  mkdirSync(join(dir, 'load', 'paging'), { recursive: true });
  writeFileSync(
    join(dir, 'load', 'paging', 'summary.json'),
    JSON.stringify({
      script: 'paging',
      profile: 'smoke',
      durationMs: 4000,
      endpoints: { 'listExperiments.page1': { p50: 1.2, p95: 2.5, p99: 3, count: 40, rps: 10, errorRate: 0 } },
      samples: { format: 'console-conformance.duration-histograms/1', endpoints: { 'listExperiments.page1': { growth: 1.02, start: 9, counts: [1, 3, 1] } } },
    }),
  );
  writeFileSync(join(dir, 'load', 'compare.json'), JSON.stringify({ verdict: 'pass', profiles: { paging: { calibration: { scale: 0.97 } } } }));
  const row = historyRunOf(readInputs(dir))!;
  assert.deepEqual(row, {
    startedAt: '2026-11-23T03:17:00.000Z',
    target: 'reference fixtures/targets/reference.json',
    version: '0.1.0 (3afac32)',
    exitCode: 1,
    verdict: 'fail',
    strict: false,
    profile: 'smoke',
    partial: false,
    clauses: byLevel,
    coverage: null,
    footprint: null,
    endpoints: [{ script: 'paging', endpoint: 'listExperiments.page1', p50: 1.2, p95: 2.5, p99: 3, count: 40, median: 1.02 ** 10.5, scale: 0.97 }],
  });
});

test('a --grep run is partial, a --skip-load run has no profile, and no verify.json is no row', (t) => {
  const dir = reportsDir(t);
  assert.equal(historyRunOf(readInputs(dir)), undefined);
  writeFileSync(join(dir, 'verify.json'), JSON.stringify({ ...verify, options: { ...verify.options, grep: 'auth', skipLoad: true } }));
  const row = historyRunOf(readInputs(dir))!;
  assert.equal(row.partial, true);
  assert.equal(row.profile, null);
  assert.equal(row.clauses, null);
});

test("a run's stated coverage and its footprint (ledger.json totals and state) are recorded", (t) => {
  const dir = reportsDir(t);
  const coverage = { total: 305, checked: 279, uncovered: 26, unverifiable: 0, waived: 0, excluded: 0 };
  writeFileSync(join(dir, 'verify.json'), JSON.stringify({ ...verify, exitCode: 3 }));
  writeFileSync(
    join(dir, 'conformance.json'),
    JSON.stringify({ summary: { verdict: 'incomplete', partial: false, byLevel, coverage }, clauses: [], failures: [], drift: [] }),
  );
  const totals = {
    writes: 3,
    rulesAdded: { gate_a: 2 },
    metricsCreated: 1,
    metricsUpdated: 0,
    phasesSkipped: {},
    unpaused: 0,
    gateToggles: 0,
    overridePatches: 0,
    notRestored: 0,
  };
  const state = { gates: { gate_a: { rules: 12, isEnabled: true } }, triggers: {} };
  writeFileSync(
    join(dir, 'ledger.json'),
    JSON.stringify({ format: 'console-conformance.ledger/1', target: 'x', manifest: 'm', readOnly: false, parts: [], totals, state }),
  );
  const row = historyRunOf(readInputs(dir))!;
  assert.equal(row.verdict, 'incomplete');
  assert.deepEqual(row.coverage, coverage);
  assert.deepEqual(row.footprint, { totals, state });
});
