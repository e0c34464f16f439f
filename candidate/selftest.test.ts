// A few cases of the candidate self-test (the whole of it: npm run candidate:selftest): the reference on
// both sides, read-only. The same build reports nothing; a legal variant (a larger default page) changed
// behaviour with exit 0; a fault (the experiments list's message) a regression of its clause with exit 1.
// The tests the candidate did not run are no pairs and judge no clause: only those it ran are compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeCase, runCases, sampleFaults, variantCases } from './selftest.ts';

test('the same build twice: 0 changes, 0 regressions; a legal variant: changed, exit 0; a fault: a regression naming its clause, exit 1', async () => {
  const results = await runCases(
    [
      { kind: 'same build', name: 'reference' },
      { kind: 'variant', name: 'default-limit-50' },
      { kind: 'fault', name: 'wrong-message-experiments', clause: 'experiments.list.message' },
    ],
    // The variant's and the fault's candidate runs only the experiments tests, where both show: the same build runs all.
    { writes: false, reads: 1, lanes: 1, grep: 'experiments', say: () => {} },
  );
  const [same, variant, fault] = results;
  assert.deepEqual([same.changes, same.regressions, same.code], [0, [], 0], same.line);
  assert.ok(variant.changes > 0, variant.line);
  assert.deepEqual([variant.regressions, variant.code], [[], 0], variant.line);
  assert.equal(fault.code, 1, fault.line);
  assert.ok(fault.regressions.includes('experiments.list.message'), fault.line);
});

test('judgeCase: what each kind of case must show', () => {
  assert.equal(judgeCase({ kind: 'same build', name: 'r' }, 0, [], 1).ok, false);
  assert.equal(judgeCase({ kind: 'variant', name: 'v' }, 0, [], 0).ok, false);
  assert.equal(judgeCase({ kind: 'variant', name: 'v' }, 1, ['x'], 2).ok, false);
  assert.equal(judgeCase({ kind: 'fault', name: 'f', clause: 'x' }, 1, ['y'], 0).ok, false);
  assert.equal(judgeCase({ kind: 'fault', name: 'f', clause: 'x' }, 1, ['y', 'x'], 0).ok, true);
});

test('sample: every k-th by name, the same on every run', () => {
  const xs = Array.from({ length: 10 }, (_, i) => ({ name: `f${i}` }));
  assert.deepEqual(
    sampleFaults(xs, 3).map((x) => x.name),
    ['f0', 'f3', 'f6'],
  );
  assert.equal(sampleFaults(xs, 20).length, 10);
});

test('variantCases: every variant, or those named, a variant with a parameter as the server takes it', () => {
  const variants = [{ name: 'rules-cap', parameter: 'rules-cap:<N>' }, { name: 'rules-replace' }];
  assert.deepEqual(
    variantCases(variants).map((c) => c.name),
    ['rules-cap', 'rules-replace'],
  );
  assert.deepEqual(
    variantCases(variants, new Set(['rules-cap:3', 'rules-replace', 'rules-replace:2', 'nothing'])).map((c) => c.name),
    ['rules-cap:3', 'rules-replace'],
  );
});
