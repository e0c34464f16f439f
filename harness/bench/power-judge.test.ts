// The power benchmark's judgement of one run: the compare with request samples (the statistical rule)
// and without them (the ratio tolerances), on seeded synthetic runs, and the table it prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Figures, RunSummary } from '../../core/formats.ts';
import { histogramOf } from '../../load/compare/samples.ts';
import { quantile, seededRandom, normalDraw } from '../../load/compare/stats.ts';
import { judgeRun, table, tallyJudgements } from './power-judge.ts';

/** A run of two endpoints and the calibration, log-normal around 40 ms; `slower` multiplies the endpoint "slow". */
function run(seed: number, slower = 1): RunSummary {
  const random = seededRandom(seed);
  const draws = (n: number, median: number) => Array.from({ length: n }, () => median * Math.exp(0.25 * normalDraw(random)));
  const durations: Record<string, number[]> = { calibration: draws(300, 40), slow: draws(600, 40 * slower), same: draws(600, 40) };
  const figures = (xs: number[]): Figures => ({
    p50: quantile(xs, 0.5),
    p95: quantile(xs, 0.95),
    p99: quantile(xs, 0.99),
    avg: xs.reduce((a, b) => a + b, 0) / xs.length,
    max: Math.max(...xs),
    count: xs.length,
    rps: xs.length / 60,
    errorRate: 0,
  });
  return {
    format: 'console-conformance.load-summary/1',
    script: 'paging',
    profile: 'baseline',
    durationMs: 60_000,
    endpoints: Object.fromEntries(Object.entries(durations).map(([k, xs]) => [k, figures(xs)])),
    samples: {
      format: 'console-conformance.duration-histograms/1',
      endpoints: Object.fromEntries(Object.entries(durations).map(([k, xs]) => [k, histogramOf(xs)])),
    },
  };
}

test('a 50% slower endpoint is flagged by the statistical rule and passed by the ratio tolerances (1.5x is under 2x)', () => {
  const j = judgeRun(50, run(2, 1.5), run(1));
  assert.equal(j.flaggedNew, true);
  assert.deepEqual(j.newEndpoints, ['slow']);
  assert.equal(j.flaggedOld, false);
  assert.equal(j.statistical, 2);
  assert.ok(j.largestEffect! > 1.35 && j.largestEffect! < 1.65, `effect ${j.largestEffect}`);
});

test('an unchanged run is flagged by neither rule', () => {
  const j = judgeRun(0, run(3), run(1));
  assert.equal(j.flaggedNew, false);
  assert.equal(j.flaggedOld, false);
});

test('tally counts each condition, and the table shows one row per change', () => {
  const base = run(1);
  const js = [judgeRun(0, run(4), base), judgeRun(0, run(5), base), judgeRun(50, run(6, 1.5), base)];
  const rows = tallyJudgements(js, [0, 50]);
  assert.deepEqual(
    rows.map((r) => [r.change, r.runs, r.flaggedNew, r.flaggedOld]),
    [
      [0, 2, 0, 0],
      [50, 1, 1, 0],
    ],
  );
  const text = table(rows, 'listExperiments');
  assert.match(text, /\| none \(false alarms\) \| 2 \| 0 \| 0 \|/);
  assert.match(text, /\| \+50% \| 1 \| 1 \| 0 \| 1\.\d\dx \|/);
});

test('a slowdown in front of a route and one in its handler are rows of their own, and the table says where', () => {
  const base = run(1);
  const js = [
    judgeRun(0, run(7), base),
    judgeRun(25, run(8, 1.5), base, 'b', 'handler'),
    judgeRun(25, run(9, 1.5), base, 'b', 'route'),
    judgeRun(25, run(10), base, 'b', 'route'),
  ];
  const rows = tallyJudgements(js, [0, { change: 25, where: 'handler' }, { change: 25, where: 'route' }]);
  assert.deepEqual(
    rows.map((r) => [r.change, r.where, r.runs, r.flaggedNew]),
    [
      [0, 'handler', 1, 0],
      [25, 'handler', 1, 1],
      [25, 'route', 2, 1],
    ],
  );
  const text = table(rows, 'listReleasePipelines');
  assert.match(text, /\| \+25% in its handler \| 1 \| 1 \|/);
  assert.match(text, /\| \+25% in front of its route \(requests without the key too\) \| 2 \| 1 \|/);
});
