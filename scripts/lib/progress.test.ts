// verify's progress reader counts the list reporter's lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTestLine, type TestProgress } from './progress.ts';

test("progress: the list reporter's lines count as tests done, failures apart", () => {
  const p: TestProgress = { total: null, done: 0, failed: 0 };
  assert.equal(readTestLine(p, 'Running 64 tests using 2 workers'), 'other');
  assert.equal(readTestLine(p, '  ✓   1 contracts/conformance/auth.spec.ts:24:3 › auth › x (202ms)'), 'test-passed');
  assert.equal(readTestLine(p, '  ✘   2 contracts/conformance/metrics.spec.ts:16:3 › metrics › y (20ms)'), 'test-failed');
  assert.equal(readTestLine(p, '  1) contracts/conformance/metrics.spec.ts:16:3 › metrics › y'), 'other');
  assert.deepEqual(p, { total: 64, done: 2, failed: 1 });
});
