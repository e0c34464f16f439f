import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMPARE_RULES, ERRORS_RULE, RATIO_RULE, STATISTICAL_RULE, THROUGHPUT_RULE } from './index.ts';

test('rules: every rule once, the latency rules first, the statistical one before the ratio fallback', () => {
  assert.deepEqual(
    COMPARE_RULES.map((r) => r.id),
    [STATISTICAL_RULE, RATIO_RULE, THROUGHPUT_RULE, ERRORS_RULE],
  );
  const latency = COMPARE_RULES.map((r) => r.latency);
  assert.deepEqual(latency, [true, true, false, false]);
});
