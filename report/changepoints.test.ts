// Change-point detection on series whose answer is known: a step is found at its run, a flat noisy
// series gives nothing, a slow ramp is reported from where it starts to show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestSplit, changePoints } from './changepoints.ts';

/** Seeded normal noise (Box-Muller over mulberry32), so every run of the test sees the same series. */
function noise(n: number, sd: number, seed: number): number[] {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  return Array.from({ length: n }, () => sd * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u()));
}

test('a step at a known run is found at that run, with its size', () => {
  const xs = noise(40, 1, 1).map((e, i) => 10 + e + (i >= 24 ? 4 : 0));
  const found = changePoints(xs);
  assert.equal(found.length, 1, JSON.stringify(found));
  assert.equal(found[0].index, 24);
  assert.ok(Math.abs(found[0].size - 4) < 1, `size ${found[0].size}`);
  assert.ok(found[0].p < 0.01);
});

test('two steps, up then back down, are both found', () => {
  const xs = noise(60, 0.3, 2).map((e, i) => 5 + e + (i >= 20 && i < 40 ? 3 : 0));
  assert.deepEqual(
    changePoints(xs).map((c) => [c.index, Math.sign(c.size)]),
    [
      [20, 1],
      [40, -1],
    ],
  );
});

test('one night ten times slower neither hides a 40% step nor moves it', () => {
  // 20 nights of log latency, 40% slower from night 12, night 5 ten times slower (a loaded runner).
  // On the values instead of their ranks, the outlier's spread hides the step (p above alpha), and
  // a cut placed by least squares lands on the outlier.
  const xs = noise(20, 0.05, 10).map((e, i) => Math.log(10) + e + (i >= 12 ? Math.log(1.4) : 0));
  xs[5] = Math.log(100);
  const found = changePoints(xs);
  assert.deepEqual(
    found.map((c) => c.index),
    [12],
  );
  assert.ok(Math.abs(Math.exp(found[0].size) - 1.4) < 0.1, `size ${Math.exp(found[0].size)}x`);
});

test('flat noisy series give no change-point', () => {
  for (const seed of [3, 4, 5, 6, 7]) {
    const xs = noise(50, 1, seed).map((e) => 20 + e);
    assert.deepEqual(changePoints(xs), [], `seed ${seed}`);
  }
});

test('a constant series (a pass rate of 1 every night) gives none', () => {
  assert.deepEqual(changePoints(Array(30).fill(1)), []);
});

test('a slow ramp is reported, its first change-point where the drift starts to show', () => {
  // Flat for 25 runs, then 2% of the level more each run (noise sd 1% of the level).
  const xs = noise(50, 0.1, 8).map((e, i) => 10 + e + (i >= 25 ? 0.2 * (i - 24) : 0));
  const found = changePoints(xs);
  assert.ok(found.length >= 1, 'the ramp is reported');
  assert.ok(found[0].index >= 25 && found[0].index <= 32, `first change-point at ${found[0].index}`);
  assert.ok(
    found.every((c) => c.size > 0),
    'every cut of a rising ramp is a rise',
  );
});

test('a pass rate that drops by one clause in 300 is found at that run', () => {
  const xs = Array.from({ length: 12 }, (_, i) => (i < 7 ? 300 / 300 : 299 / 300));
  const found = changePoints(xs);
  assert.deepEqual(
    found.map((c) => c.index),
    [7],
  );
  assert.ok(Math.abs(found[0].size + 1 / 300) < 1e-9);
});

test('no change-point closer to an end than minSegment, and too short a series gives none', () => {
  const outlierFirst = [50, ...Array(20).fill(10)];
  assert.deepEqual(changePoints(outlierFirst, { minSegment: 3 }), []);
  assert.deepEqual(changePoints([1, 1, 9, 9, 9], { minSegment: 3 }), []);
  assert.equal(bestSplit([1, 1, 1, 9, 9, 9], 3).index, 3);
});

test('minEffect hides a shift too small to act on; the same seed gives the same answer', () => {
  const xs = noise(40, 0.05, 9).map((e, i) => 10 + e + (i >= 20 ? 0.3 : 0));
  assert.equal(changePoints(xs).length, 1);
  assert.deepEqual(changePoints(xs, { minEffect: 0.5 }), []);
  assert.deepEqual(changePoints(xs, { seed: 42 }), changePoints(xs, { seed: 42 }));
});

test('a value that is not a number is refused', () => {
  assert.throws(() => changePoints([1, 2, Number.NaN, 4, 5, 6]), /finite/);
});
