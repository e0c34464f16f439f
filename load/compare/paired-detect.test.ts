import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../core/random.ts';
import { newCandidate, newEndpoint, type Records } from '../lib/runtime.ts';
import { detectPaired, pairsByTag, type PairedDurations } from './paired-detect.ts';
import { normalDraw, shiftInterval, signedRankGreater, smallestSignedRankP, trimmedMean } from './stats.ts';

test('signed-rank test: scipy.stats.wilcoxon example (alternative greater, exact), and the exact tail counted by hand', () => {
  const d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75];
  const r = signedRankGreater(d);
  assert.equal(r.w, 96);
  assert.equal(r.method, 'exact');
  assert.equal(r.p, 0.0206298828125);
  // n = 3, all positive: only the subset {1,2,3} reaches W+ = 6.
  assert.equal(signedRankGreater([1, 2, 3]).p, 1 / 8);
  assert.equal(smallestSignedRankP(3), 1 / 8);
  assert.equal(signedRankGreater([0, 0]).p, 1);
});

test('signed-rank test: the normal approximation (ties, or more than 25 values) is close to the exact count', () => {
  const random = seededRandom(7);
  const values = Array.from({ length: 25 }, (_, i) => (i + 1) * (random() < 0.7 ? 1 : -1));
  const exact = signedRankGreater(values);
  // The same ranks with one tie (two values of 25.5 where 25 and 26 would be) use the approximation.
  const tied = signedRankGreater([...values.slice(0, 24), 25.5, 25.5]);
  assert.equal(exact.method, 'exact');
  assert.equal(tied.method, 'asymptotic');
  const plus26 = signedRankGreater([...values, 26]);
  assert.equal(plus26.method, 'asymptotic');
  assert.ok(Math.abs(tied.p - plus26.p) < 0.01, `${tied.p} ~ ${plus26.p}`);
  assert.ok(plus26.p < exact.p, 'one more value above 0: more evidence');
});

test('trimmed mean: the outer fifth cut off at each end', () => {
  assert.equal(trimmedMean([1, 2, 3, 4, 100]), 3);
  assert.equal(trimmedMean([5, 1, 4, 2, 3, 1000, -1000, 3, 3, 3]), 3);
  assert.equal(trimmedMean([7]), 7);
});

test('shift interval: covers the shift between a sample and its ruler, and narrows with more values', () => {
  const random = seededRandom(3);
  const draw = (n: number, at: number) => Array.from({ length: n }, () => at + 0.3 * normalDraw(random));
  const small = shiftInterval(draw(100, 0.2), draw(100, 0.05), { seed: 1 });
  const large = shiftInterval(draw(2000, 0.2), draw(2000, 0.05), { seed: 1 });
  for (const ci of [small, large]) assert.ok(ci.lower < 0.15 && ci.upper > 0.15, JSON.stringify(ci));
  assert.ok(large.upper - large.lower < (small.upper - small.lower) / 3, 'twenty times the values: a much narrower interval');
  assert.equal(shiftInterval([1, 2, 3], []).estimate, 2);
});

/** Pairs of one tag: each side log-normal around `ms`, the candidate's times `factor`; `shared` a per-pair factor both see. */
function pairs(n: number, ms: number, factor: number, random: () => number, shared = 0): PairedDurations {
  const current: number[] = [];
  const candidate: number[] = [];
  for (let i = 0; i < n; i++) {
    const moment = Math.exp(shared * normalDraw(random));
    current.push(ms * moment * Math.exp(0.25 * normalDraw(random)));
    candidate.push(ms * factor * moment * Math.exp(0.25 * normalDraw(random)));
  }
  return { current, candidate };
}

test('paired verdict: a 20% slower operation is found, per operation with its tags pooled; the others pass', () => {
  const random = seededRandom(11);
  const d = detectPaired(
    {
      'listExperiments.filter': pairs(300, 40, 1.2, random),
      'listExperiments.deep': pairs(150, 40, 1.2, random),
      listReleasePipelines: pairs(300, 40, 1, random),
      calibration: pairs(400, 40, 1, random),
    },
    { minEffect: 0.05 },
  );
  const by = Object.fromEntries(d.operations.map((o) => [o.endpoint, o]));
  assert.deepEqual(Object.keys(by), ['listExperiments', 'listReleasePipelines']);
  assert.deepEqual(by.listExperiments.n, { current: 450, candidate: 450 });
  assert.equal(by.listExperiments.regression, true, by.listExperiments.reason);
  assert.ok(by.listExperiments.lower > 1.05 && by.listExperiments.upper > 1.15, by.listExperiments.reason);
  assert.equal(by.listReleasePipelines.regression, false, by.listReleasePipelines.reason);
  assert.equal(d.regression, true);
  assert.ok(d.calibration !== null && Math.abs(d.calibration - 1) < 0.1);
});

test('paired verdict: a candidate farther away (ruler and operations alike 30% slower) is not a regression', () => {
  const random = seededRandom(5);
  const d = detectPaired({ listExperiments: pairs(400, 40, 1.3, random), calibration: pairs(400, 40, 1.3, random) }, { minEffect: 0.05 });
  assert.equal(d.regression, false, d.operations[0].reason);
  assert.ok((d.calibration ?? 0) > 1.2);
});

test('paired verdict: moments both sides share (a busy machine) cancel in the pairs', () => {
  const random = seededRandom(9);
  // Each pair's moment varies the time by a log spread of 1 (a factor of e either way), far above the 10% change.
  const d = detectPaired({ listExperiments: pairs(600, 40, 1.1, random, 1), calibration: pairs(600, 40, 1, random, 1) }, { minEffect: 0 });
  assert.equal(d.operations[0].regression, true, d.operations[0].reason);
});

test('paired verdict: too few pairs is undecidable, not a pass of the test', () => {
  const random = seededRandom(2);
  const d = detectPaired({ listExperiments: pairs(5, 40, 3, random) });
  assert.equal(d.operations[0].decidable, false);
  assert.equal(d.operations[0].regression, false);
  assert.match(d.operations[0].reason, /too few pairs/);
});

test('pairs are read aligned from the records, setup left out; misaligned pairs are an error', () => {
  const paired = (current: number[], candidate: number[]) => ({
    ...newEndpoint(),
    candidate: { ...newCandidate(), pairCurrent: current, pairCandidate: candidate },
  });
  const records: Records = {
    endpoints: { 'listExperiments.page1': paired([1000, 2000], [1500, 2500]), setup: paired([1], [1]) },
    checks: {},
    counters: {},
  };
  assert.deepEqual(pairsByTag(records), { 'listExperiments.page1': { current: [1, 2], candidate: [1.5, 2.5] } });
  records.endpoints['listExperiments.page1'] = paired([1000, 2000], [1500]);
  assert.throws(() => pairsByTag(records), /not aligned/);
});
