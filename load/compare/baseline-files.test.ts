// One baseline per script and profile: a smoke baseline is <script>.json (what verify and npm test
// compare with), another profile's is <script>.<profile>.json, so recording a nightly baseline does not
// replace the smoke one, and a run is compared with the baseline of its own profile.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { baselineFileFor, compareRun, updateBaseline, type Figures, type RunSummary } from './baseline.ts';

const fig = (p50: number): Figures => ({ p50, p95: p50 * 2, p99: p50 * 3, count: 200, rps: 10, errorRate: 0 });
const run = (profile: string, deepMs: number): RunSummary => ({
  format: 'console-conformance.load-summary/1',
  script: 'paging',
  profile,
  durationMs: 60_000,
  endpoints: { calibration: fig(2), 'listExperiments.deep': fig(deepMs) },
});

function withDirs(body: (reports: string, baselines: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'cc-baseline-files-'));
  try {
    mkdirSync(join(dir, 'reports/load/paging'), { recursive: true });
    body(join(dir, 'reports'), join(dir, 'baselines'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const lastRun = (reports: string, s: RunSummary) => writeFileSync(join(reports, 'load/paging/summary.json'), JSON.stringify(s));

test('update writes <script>.json for smoke and <script>.<profile>.json for other profiles, side by side', () => {
  withDirs((reports, baselines) => {
    lastRun(reports, run('smoke', 10));
    assert.equal(updateBaseline('paging', reports, baselines), join(baselines, 'paging.json'));
    lastRun(reports, { ...run('baseline', 10), target: { kind: 'reference' } });
    const file = updateBaseline('paging', reports, baselines);
    assert.equal(file, join(baselines, 'paging.baseline.json'));
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).target, { kind: 'reference' }, 'the baseline says what it measured');
    assert.deepEqual(readdirSync(baselines).sort(), ['paging.baseline.json', 'paging.json']);
  });
});

test('compare picks the baseline of the run profile; each profile regresses against its own', () => {
  withDirs((reports, baselines) => {
    lastRun(reports, run('smoke', 10));
    updateBaseline('paging', reports, baselines);
    lastRun(reports, run('baseline', 40));
    updateBaseline('paging', reports, baselines);

    lastRun(reports, run('baseline', 40));
    const same = compareRun({ reportsDir: reports, baselinesDir: baselines, scripts: ['paging'] }).profiles.paging;
    assert.equal(same.baselineFile, join(baselines, 'paging.baseline.json'));
    assert.equal(same.verdict, 'pass');

    // 40 ms would be 4x the smoke baseline's 10 ms: it is the smoke baseline a smoke run meets.
    lastRun(reports, run('smoke', 40));
    const smoke = compareRun({ reportsDir: reports, baselinesDir: baselines, scripts: ['paging'] }).profiles.paging;
    assert.equal(smoke.baselineFile, join(baselines, 'paging.json'));
    assert.equal(smoke.verdict, 'regression');
  });
});

test('a <script>.json recorded with another profile is still found for that profile, and only for it', () => {
  withDirs((_reports, baselines) => {
    mkdirSync(baselines);
    writeFileSync(join(baselines, 'paging.json'), JSON.stringify(run('baseline', 10)));
    assert.equal(baselineFileFor(baselines, 'paging', 'baseline'), join(baselines, 'paging.json'));
    assert.equal(baselineFileFor(baselines, 'paging', 'stress'), join(baselines, 'paging.stress.json'));
    assert.equal(baselineFileFor(baselines, 'paging', 'smoke'), join(baselines, 'paging.json'));
    writeFileSync(join(baselines, 'paging.baseline.json'), JSON.stringify(run('baseline', 10)));
    assert.equal(baselineFileFor(baselines, 'paging', 'baseline'), join(baselines, 'paging.baseline.json'));
  });
});

test('update without samples keeps the figures and the target, not the histograms (the ratio tolerances judge it)', () => {
  withDirs((reports, baselines) => {
    const samples = { format: 'console-conformance.duration-histograms/1', endpoints: { calibration: { growth: 1.02, start: 30, counts: [3, 1] } } };
    lastRun(reports, { ...run('smoke', 10), target: { kind: 'reference' }, samples });
    const kept = JSON.parse(readFileSync(updateBaseline('paging', reports, baselines), 'utf8'));
    assert.deepEqual(kept.samples, samples);
    const left = JSON.parse(readFileSync(updateBaseline('paging', reports, baselines, false), 'utf8'));
    assert.equal(left.samples, undefined);
    assert.deepEqual(left.target, { kind: 'reference' });
    assert.equal(left.endpoints['listExperiments.deep'].p50, 10);
  });
});

test('a run shaped as data, or one that fell short of its load, is no baseline, and a shaped run is not compared', () => {
  withDirs((reports, baselines) => {
    const shape = { source: '--overrides', phases: [{ name: 'x', duration: 5, arrivalRate: 50, maxVusers: 10 }], limits: [] };
    lastRun(reports, { ...run('smoke', 10), shape });
    assert.throws(() => updateBaseline('paging', reports, baselines), /shaped by --overrides: a baseline is the smoke profile's own shape/);
    const delivery = { asked: 80, started: 40, dropped: 40, shortfall: 0.5, ok: false, note: 'the load fell short', generators: [] };
    lastRun(reports, { ...run('smoke', 10), delivery });
    assert.throws(() => updateBaseline('paging', reports, baselines), /did not deliver its load \(the load fell short\): it is no baseline/);
    lastRun(reports, run('smoke', 10));
    updateBaseline('paging', reports, baselines);
    lastRun(reports, { ...run('smoke', 40), shape });
    const result = compareRun({ scripts: ['paging'], reportsDir: reports, baselinesDir: baselines });
    assert.match(result.profiles.paging.reason, /shaped by --overrides, the baseline by the smoke profile: not comparable/);
    assert.notEqual(result.verdict, 'regression');
  });
});
