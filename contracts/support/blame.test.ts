// Per-clause blame (support/blame.ts): what a failed test says of each clause it names, from the tags its
// errors carry and the clauses its checks held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blameOf, blamedIn, claim, tagged, untagged } from './blame.ts';

const NAMED = ['metrics.create.message', 'metric.id.shape', 'metric.field.id', 'metric.field.name'];

test('blame: a tagged failure fails its clause only; what held before passes, the rest is not reached', () => {
  const message = tagged(['metric.id.shape'], 'expected "a::sum", got "a"');
  assert.deepEqual(blamedIn(message), ['metric.id.shape']);
  assert.equal(untagged(message), 'expected "a::sum", got "a"');
  assert.deepEqual(blameOf(NAMED, ['metrics.create.message', 'metric.field.id'], [message]), {
    blamed: ['metric.id.shape'],
    unreached: ['metric.field.name'],
  });
});

test('blame: a clause the test does not name is blamed all the same (a field clause found by the shared schema check)', () => {
  const message = tagged(['gateRule.field.passPercentage', 'condition.field.type'], 'schema');
  assert.deepEqual(blameOf(['gates.enable.message'], [], [message]), {
    blamed: ['gateRule.field.passPercentage', 'condition.field.type'],
    unreached: ['gates.enable.message'],
  });
});

test('blame: a failure no clause claimed falls on the clauses that did not hold, or on all when all held', () => {
  assert.deepEqual(blameOf(NAMED, ['metric.field.id'], ['expected 200, got 500']), {
    blamed: ['metrics.create.message', 'metric.id.shape', 'metric.field.name'],
    unreached: [],
  });
  assert.deepEqual(blameOf(['a.b'], ['a.b'], ['after the last check']).blamed, ['a.b']);
  // A test that failed with no message still fails a clause.
  assert.deepEqual(blameOf(['a.b', 'c.d'], [], []).blamed, ['a.b', 'c.d']);
});

test('blame: with several errors, an untagged one adds the fallback to the tagged ones', () => {
  const got = blameOf(NAMED, ['metric.field.id'], [tagged(['metric.id.shape'], 'x'), 'untagged']);
  assert.deepEqual(got.blamed.sort(), ['metric.field.name', 'metric.id.shape', 'metrics.create.message']);
  assert.deepEqual(got.unreached, []);
});

test('blame: a message without a tag blames nothing, and the tag is found after a prefix the runner adds', () => {
  assert.deepEqual(blamedIn('Error: expect(received).toBe(expected)'), []);
  assert.deepEqual(blamedIn(undefined), []);
  assert.deepEqual(blamedIn(`Error: ${tagged(['envelope.data'], 'x')}`), ['envelope.data']);
});

test('blame: claim tags an error once, the innermost clause first, and leaves what is not an Error alone', () => {
  const err = new Error('expected 200, got 400');
  assert.equal(claim(err, ['metrics.create.name.length']), err);
  assert.equal(claim(err, ['metrics.create.path']), err);
  assert.deepEqual(blamedIn(err.message), ['metrics.create.name.length']);
  assert.ok(err.stack?.includes('[blame metrics.create.name.length] expected 200'), 'the stack shows the tag too');
  assert.equal(claim('a string', ['x.y']), 'a string');
  const untouched = new Error('no clause');
  claim(untouched, []);
  assert.equal(untouched.message, 'no clause');
});
