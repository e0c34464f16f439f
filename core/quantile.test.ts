import { test } from 'node:test';
import assert from 'node:assert/strict';
import { median, quantile, quantileSorted } from './quantile.ts';

test('quantile: type 7, interpolated between order statistics, input left as it was', () => {
  const xs = [40, 10, 30, 20];
  assert.equal(median(xs), 25);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(quantile(xs, 0), 10);
  assert.equal(quantile(xs, 1), 40);
  assert.equal(quantile(xs, 0.95), 38.5);
  assert.equal(quantile(xs, 2), 40, 'q is clamped to [0, 1]');
  assert.deepEqual(xs, [40, 10, 30, 20]);
  assert.equal(quantileSorted([1, 2, 3, 4, 5], 0.25), 2);
  // numpy.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90) is 9.1.
  assert.ok(Math.abs(quantile([10, 9, 8, 7, 6, 5, 4, 3, 2, 1], 0.9) - 9.1) < 1e-12);
  assert.ok(Number.isNaN(median([])));
});
