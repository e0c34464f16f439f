import { test } from 'node:test';
import assert from 'node:assert/strict';
import { worst } from './exit.ts';

test('worst: 1 before 3 before 2 before 0, in any order', () => {
  assert.equal(worst([]), 0);
  assert.equal(worst([0, 0]), 0);
  assert.equal(worst([2, 0]), 2);
  assert.equal(worst([2, 3]), 3);
  assert.equal(worst([3, 2]), 3);
  assert.equal(worst([2, 3, 1]), 1);
  assert.equal(worst([1, 3]), 1);
  assert.equal(worst([null, undefined, 2]), 2);
});

test('worst: a code outside 0..3 is a run not carried out, never a pass or a contract failure', () => {
  assert.equal(worst([0, 137]), 3);
  assert.equal(worst([137, 1]), 1);
});
