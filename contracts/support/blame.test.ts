// Per-clause blame (support/blame.ts): what a failed test says of each clause it names, from the clauses
// its errors were claimed for and the clauses its checks held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blameOf, blamedOn, claim } from './blame.ts';

const NAMED = ['metrics.create.message', 'metric.id.shape', 'metric.field.id', 'metric.field.name'];

test('blame: a claimed failure fails its clause only; what held before passes, the rest is not reached', () => {
  assert.deepEqual(blameOf(NAMED, ['metrics.create.message', 'metric.field.id'], [['metric.id.shape']]), {
    blamed: ['metric.id.shape'],
    unreached: ['metric.field.name'],
  });
});

test('blame: a clause the test does not name is blamed all the same (a field clause found by the shared schema check)', () => {
  assert.deepEqual(blameOf(['gates.enable.message'], [], [['gateRule.field.passPercentage', 'condition.field.type']]), {
    blamed: ['gateRule.field.passPercentage', 'condition.field.type'],
    unreached: ['gates.enable.message'],
  });
});

test('blame: a failure no clause claimed falls on the clauses that did not hold, or on all when all held', () => {
  assert.deepEqual(blameOf(NAMED, ['metric.field.id'], [[]]), {
    blamed: ['metrics.create.message', 'metric.id.shape', 'metric.field.name'],
    unreached: [],
  });
  assert.deepEqual(blameOf(['a.b'], ['a.b'], [[]]).blamed, ['a.b']);
  // A test that failed with no error reported still fails a clause.
  assert.deepEqual(blameOf(['a.b', 'c.d'], [], []).blamed, ['a.b', 'c.d']);
});

test('blame: with several errors, an unclaimed one adds the fallback to the claimed ones', () => {
  const got = blameOf(NAMED, ['metric.field.id'], [['metric.id.shape'], []]);
  assert.deepEqual(got.blamed.sort(), ['metric.field.name', 'metric.id.shape', 'metrics.create.message']);
  assert.deepEqual(got.unreached, []);
});

test('blame: claim marks an error once, the innermost clause first, leaves its message alone and what is not an Error alone', () => {
  const err = new Error('expected 200, got 400');
  assert.equal(claim(err, ['metrics.create.name.length']), err);
  assert.equal(claim(err, ['metrics.create.path']), err);
  assert.deepEqual(blamedOn(err), ['metrics.create.name.length']);
  assert.equal(err.message, 'expected 200, got 400', 'the message stays the assertion');
  assert.equal(claim('a string', ['x.y']), 'a string');
  assert.deepEqual(blamedOn('a string'), []);
  const untouched = new Error('no clause');
  claim(untouched, []);
  assert.deepEqual(blamedOn(untouched), []);
});
