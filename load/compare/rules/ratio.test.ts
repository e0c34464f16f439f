import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TOLERANCE } from '../baseline.ts';
import { latencyRatio, ratioRule } from './ratio.ts';
import type { RuleInput } from './rule.ts';

const figures = (ms: number, count = 200) => ({ p50: ms, p95: ms * 2, p99: ms * 3, count, rps: 50, errorRate: 0 });
const input = (run: number, base: number, scale = 1, count = 200): RuleInput => ({
  run: figures(run, count),
  baseline: figures(base, count),
  scale,
  tolerance: DEFAULT_TOLERANCE,
  detection: undefined,
});

test('ratio: a latency over its tolerance of the calibrated baseline is a regression, named by percentile', () => {
  const reasons = ratioRule.judge(input(30, 10));
  // p99 is 3x, not over its 3x tolerance.
  assert.deepEqual(
    reasons.map((r) => r.split(' ')[0]),
    ['p50', 'p95'],
  );
  assert.match(reasons[0], /^p50 30 ms is 3x the calibrated baseline 10 ms \(tolerance 2x\)$/);
});

test('ratio: a machine twice as slow (calibration) excuses twice the latency', () => {
  assert.equal(latencyRatio(input(30, 10, 2), 'p50'), 1.5);
  assert.deepEqual(ratioRule.judge(input(30, 10, 2)), []);
});

test('ratio: differences under minDeltaMs are noise, and p95/p99 of a few requests are not judged', () => {
  assert.deepEqual(ratioRule.judge(input(3, 1)), []);
  const few = ratioRule.judge(input(30, 10, 1, 5));
  assert.deepEqual(
    few.map((r) => r.split(' ')[0]),
    ['p50'],
  );
});
