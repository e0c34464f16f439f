// The compare's statistical rule, when the run and the baseline keep their request durations
// (load/compare/): what the ratio tolerances let pass (an endpoint at 40 ms made 50% slower) is a
// regression; an unchanged run is not; endpoints with too few requests, and runs without samples,
// are judged by the tolerances, and the result says which rule judged.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compareSummary, DEFAULT_TOLERANCE, mergeSummaries, needsConfirmation, updateBaseline, type Figures, type RunSummary } from './baseline.ts';
import { histogramCount, histogramOf } from './samples.ts';
import { quantile, seededRandom } from './stats.ts';

/** Log-normal durations around `medianMs` (sigma 0.35), seeded. */
function latencies(random: () => number, n: number, medianMs: number): number[] {
  return Array.from({ length: n }, () => medianMs * Math.exp(0.35 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())));
}

const figures = (d: number[]): Figures => ({
  p50: quantile(d, 0.5),
  p95: quantile(d, 0.95),
  p99: quantile(d, 0.99),
  count: d.length,
  rps: d.length / 60,
  errorRate: 0,
});

/** A 60 s run: the calibration request (300 at 2 ms) and two endpoints, each `n` requests around its median. */
function summary(seed: number, medians: Record<string, number>, n = 600, withSamples = true): RunSummary {
  const random = seededRandom(seed);
  const durations: Record<string, number[]> = { calibration: latencies(random, 300, 2) };
  for (const [name, ms] of Object.entries(medians)) durations[name] = latencies(random, n, ms);
  const endpoints = Object.fromEntries(Object.entries(durations).map(([k, d]) => [k, figures(d)]));
  const samples = {
    format: 'console-conformance.duration-histograms/1',
    endpoints: Object.fromEntries(Object.entries(durations).map(([k, d]) => [k, histogramOf(d)])),
  };
  return {
    format: 'console-conformance.load-summary/1',
    script: 'paging',
    profile: 'baseline',
    durationMs: 60_000,
    endpoints,
    ...(withSamples ? { samples } : {}),
  };
}

const BASE = { 'listExperiments.page1': 40, 'listExperiments.deep': 40 };

test('an endpoint at 40 ms made 50% slower: a regression by the statistical rule, a pass by the ratio tolerances', () => {
  const slower = { ...BASE, 'listExperiments.deep': 60 };
  const r = compareSummary(summary(2, slower), summary(1, BASE), 'paging.json');
  assert.equal(r.verdict, 'regression');
  const deep = r.endpoints.find((e) => e.endpoint === 'listExperiments.deep');
  assert.equal(deep?.rule, 'statistical');
  assert.equal(deep?.regression, true);
  assert.match(deep?.reason ?? '', /^latency slower: p < 0\.005 and the interval is above 1\.1x: median [\d.]+ ms is 1\.\d+x the calibrated baseline/);
  assert.ok(deep?.statistical && deep.statistical.lower > 1.1 && deep.statistical.upper > 1.5, JSON.stringify(deep?.statistical));
  assert.equal(r.endpoints.find((e) => e.endpoint === 'listExperiments.page1')?.regression, false);
  assert.match(r.latencyRule ?? '', /^statistical/);
  assert.deepEqual(deep?.flaggedBy, ['statistical']);
  assert.equal(needsConfirmation(r), false, 'the statistical rule alone: its verdict stands on one run');

  const old = compareSummary(summary(2, slower, 600, false), summary(1, BASE, 600, false), 'paging.json');
  assert.equal(old.verdict, 'pass', 'the tolerances (2x p50 and 5 ms) let it through');
  assert.ok(old.endpoints.every((e) => e.rule === 'ratio' && e.statistical === undefined));
  assert.equal(old.latencyRule, "ratio tolerances: the run keeps no request samples with the calibration request's");
  const half = compareSummary(summary(2, slower), summary(1, BASE, 600, false), 'paging.json');
  assert.equal(half.latencyRule, "ratio tolerances: the baseline keeps no request samples with the calibration request's");
});

test('an unchanged run passes; --min-effect sets the smallest slowdown that counts', () => {
  assert.equal(compareSummary(summary(3, BASE), summary(1, BASE), 'paging.json').verdict, 'pass');
  const slower = summary(4, { ...BASE, 'listExperiments.page1': 56 });
  assert.equal(compareSummary(slower, summary(1, BASE), 'paging.json').verdict, 'regression');
  const r = compareSummary(slower, summary(1, BASE), 'paging.json', { ...DEFAULT_TOLERANCE, minEffect: 0.5 });
  assert.equal(r.verdict, 'pass');
  assert.match(
    r.endpoints.find((e) => e.endpoint === 'listExperiments.page1')?.statistical?.reason ?? '',
    /not by the minimum effect: the interval reaches below 1\.5x \(--min-effect 50%\)/,
  );
});

test('too few requests for the test: the tolerances judge the endpoint, and say so', () => {
  // 4 against 4: the smallest p the test can give is 1/70, above 0.01 / 2.
  const r = compareSummary(summary(6, { ...BASE, 'listExperiments.deep': 200 }, 4), summary(5, BASE, 4), 'paging.json');
  const deep = r.endpoints.find((e) => e.endpoint === 'listExperiments.deep');
  assert.equal(deep?.rule, 'ratio');
  assert.equal(deep?.regression, true);
  assert.match(deep?.reason ?? '', /^p50 [\d.]+ ms is [\d.]+x the calibrated baseline/);
  assert.deepEqual(deep?.flaggedBy, ['ratio']);
  assert.equal(needsConfirmation(r), true, 'found by the tolerances: run again before it is believed');
  assert.match(deep?.statistical?.reason ?? '', /^too few requests to tell/);
});

test("merge adds the runners' histograms; update keeps them in the baseline, a histogram on one line", () => {
  const a = summary(7, BASE, 100);
  const b = summary(8, BASE, 150);
  const merged = mergeSummaries([a, b]);
  const samples = merged.samples as { endpoints: Record<string, { growth: number; start: number; counts: number[] }> };
  assert.equal(histogramCount(samples.endpoints['listExperiments.deep']), 250);
  assert.equal(mergeSummaries([a, summary(9, BASE, 100, false)]).samples, undefined, 'kept only when every runner kept them');

  const dir = mkdtempSync(join(tmpdir(), 'cc-baseline-samples-'));
  try {
    mkdirSync(join(dir, 'reports/load/paging'), { recursive: true });
    writeFileSync(join(dir, 'reports/load/paging/summary.json'), JSON.stringify(a));
    const file = updateBaseline('paging', join(dir, 'reports'), join(dir, 'baselines'));
    const text = readFileSync(file, 'utf8');
    const written = JSON.parse(text);
    assert.deepEqual(written.samples, a.samples);
    assert.match(text, /^ {8}"counts": \[\d+(, \d+)*\]$/m);
    assert.throws(
      () => compareSummary(a, { ...a, samples: { format: 'x' } }, 'bad.json'),
      /bad\.json: "samples" is not console-conformance\.duration-histograms\/1/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
