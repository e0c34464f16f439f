import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TOLERANCE } from '../baseline.ts';
import { errorsRule } from './errors.ts';
import type { RuleInput } from './rule.ts';

const input = (runRate: number, baseRate: number): RuleInput => ({
  run: { p50: 1, p95: 1, p99: 1, count: 200, rps: 50, errorRate: runRate },
  baseline: { p50: 1, p95: 1, p99: 1, count: 200, rps: 50, errorRate: baseRate },
  scale: 1,
  tolerance: DEFAULT_TOLERANCE,
  detection: undefined,
});

test("errors: an error rate above the baseline's plus the margin is a regression", () => {
  assert.deepEqual(errorsRule.judge(input(0.05, 0.01)), ['error rate 5% is above the baseline 1% + 1%']);
});

test('errors: within the margin it holds', () => {
  assert.deepEqual(errorsRule.judge(input(0.015, 0.01)), []);
});
