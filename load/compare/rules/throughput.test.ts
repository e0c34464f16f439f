import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TOLERANCE } from '../baseline.ts';
import type { RuleInput } from './rule.ts';
import { throughputRule } from './throughput.ts';

const input = (runRps: number, baseRps: number, baseCount = 200): RuleInput => ({
  run: { p50: 1, p95: 1, p99: 1, count: 200, rps: runRps, errorRate: 0 },
  baseline: { p50: 1, p95: 1, p99: 1, count: baseCount, rps: baseRps, errorRate: 0 },
  scale: 1,
  tolerance: DEFAULT_TOLERANCE,
  detection: undefined,
});

test('throughput: below its share of the baseline is a regression', () => {
  assert.deepEqual(throughputRule.judge(input(30, 50)), ['throughput 30/s is below 0.8 of the baseline 50/s']);
  assert.deepEqual(throughputRule.judge(input(45, 50)), []);
});

test('throughput: not judged on a baseline of fewer requests than p95 needs, or none per second', () => {
  assert.equal(throughputRule.applies(input(1, 50, DEFAULT_TOLERANCE.minP95Count - 1)), false);
  assert.equal(throughputRule.applies(input(1, 0)), false);
  assert.equal(throughputRule.applies(input(1, 50)), true);
});
