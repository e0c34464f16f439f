import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootstrapMedian, erfc, mannWhitneyGreater, median, medianRatioInterval, normalSf, quantile, seededRandom } from './stats.ts';

// Known answers from scipy 1.17.1. The datasets are built by the same integer generator in Python and
// here (MINSTD: s = s * 48271 mod 2^31 - 1, exact in doubles), so the test carries the generator, not
// thousands of numbers. The Python side, verbatim:
//
//   def minstd(seed, n):
//       out = []; s = seed
//       for _ in range(n):
//           s = (s * 48271) % 2147483647
//           out.append(s)
//       return out
//   def quant(seed, n, lo, step, levels, shift=0.0):
//       return [lo + shift + step * (s % levels) for s in minstd(seed, n)]
//   def cont(seed, n, lo, span, factor=1.0):
//       return [(lo + span * (s / 2147483647)) * factor for s in minstd(seed, n)]
//   r = scipy.stats.mannwhitneyu(x, y, alternative='greater', method='asymptotic', use_continuity=True)
//   e = scipy.stats.mannwhitneyu(x, y, alternative='greater', method='exact')   # where noted
function minstd(seed: number, n: number): number[] {
  const out: number[] = [];
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 48271) % 2147483647;
    out.push(s);
  }
  return out;
}
const quant = (seed: number, n: number, lo: number, step: number, levels: number, shift = 0) => minstd(seed, n).map((s) => lo + shift + step * (s % levels));
const cont = (seed: number, n: number, lo: number, span: number, factor = 1) => minstd(seed, n).map((s) => (lo + span * (s / 2147483647)) * factor);

test('the generator is the one scipy was fed (first values printed by Python)', () => {
  assert.deepEqual(minstd(11, 3), [530981, 2008663734, 1320441864]);
  assert.deepEqual(quant(11, 3, 20, 0.5, 80, 3), [33.5, 50.0, 35.0]);
  assert.deepEqual(cont(21, 3, 20, 40, 1.05), [21.01982553956091, 53.99862014455657, 47.392997889962516]);
});

const ASYMPTOTIC: { name: string; x: number[]; y: number[]; u: number; p: number }[] = [
  // Both samples given by hand, 5 and 6 values, no ties.
  { name: 'tiny', x: [12.1, 15.3, 9.8, 20.4, 17.7], y: [8.2, 11.0, 10.5, 7.9, 13.3, 9.1], u: 26, p: 0.027617126859031914 },
  // 7 and 9 values with ties within and across the samples.
  { name: 'small with ties', x: [5, 6, 6, 7, 9, 9, 9], y: [4, 5, 5, 6, 7, 7, 8, 9, 3], u: 43.5, p: 0.1079560274316208 },
  // 50 and 80 values on a 0.5 ms grid (many ties), x shifted by 3 ms.
  { name: 'quantized', x: quant(1234, 50, 20, 0.5, 80, 3), y: quant(98765, 80, 20, 0.5, 80), u: 2218.5, p: 0.14837689537689924 },
  // 200 values 1.5x slower than 300: a p-value far in the tail.
  { name: 'far tail', x: cont(5, 200, 20, 40, 1.5), y: cont(777, 300, 20, 40), u: 49637, p: 1.2000969326748999e-35 },
  // 2000 values 5% slower than 1500.
  { name: 'large, 5% slower', x: cont(21, 2000, 20, 40, 1.05), y: cont(22, 1500, 20, 40), u: 1611274, p: 8.455223761748893e-5 },
  // 300 and 300 from one distribution, 25 levels (heavy ties).
  { name: 'same distribution', x: quant(31, 300, 30, 1, 25), y: quant(32, 300, 30, 1, 25), u: 44684.5, p: 0.5592155994723212 },
  // x faster than y: p near 1.
  { name: 'faster', x: cont(41, 40, 10, 20), y: cont(42, 25, 15, 20), u: 238, p: 0.9997995945336642 },
];

for (const k of ASYMPTOTIC) {
  test(`Mann-Whitney asymptotic matches scipy: ${k.name} (n ${k.x.length} and ${k.y.length})`, () => {
    const r = mannWhitneyGreater(k.x, k.y, 'asymptotic');
    assert.equal(r.u, k.u);
    assert.equal(r.method, 'asymptotic');
    assert.ok(Math.abs(r.p - k.p) <= 1e-9 * k.p, `p ${r.p} vs scipy ${k.p}`);
  });
}

const EXACT: { name: string; x: number[]; y: number[]; u: number; p: number; asymptoticP: number }[] = [
  { name: 'tiny', x: [12.1, 15.3, 9.8, 20.4, 17.7], y: [8.2, 11.0, 10.5, 7.9, 13.3, 9.1], u: 26, p: 0.025974025974025976, asymptoticP: 0.027617126859031914 },
  { name: '4 against 40', x: cont(61, 4, 30, 20), y: cont(62, 40, 20, 20), u: 119, p: 0.05935131232919094, asymptoticP: 0.0580035841722589 },
  { name: '30 against 6', x: cont(71, 30, 25, 20), y: cont(72, 6, 20, 20), u: 146, p: 0.007755961622185531, asymptoticP: 0.00924034348050341 },
];

for (const k of EXACT) {
  test(`Mann-Whitney exact matches scipy method='exact': ${k.name}`, () => {
    const auto = mannWhitneyGreater(k.x, k.y);
    assert.equal(auto.method, 'exact', 'no ties and a sample of 8 or fewer: exact, as scipy chooses');
    assert.equal(auto.u, k.u);
    assert.ok(Math.abs(auto.p - k.p) <= 1e-12, `p ${auto.p} vs scipy ${k.p}`);
    const asym = mannWhitneyGreater(k.x, k.y, 'asymptotic');
    assert.ok(Math.abs(asym.p - k.asymptoticP) <= 1e-9 * k.asymptoticP, `asymptotic p ${asym.p} vs scipy ${k.asymptoticP}`);
  });
}

test('Mann-Whitney: ties force the normal approximation, exact on ties is refused, equal samples give p 1', () => {
  assert.equal(mannWhitneyGreater([5, 6, 6], [4, 5]).method, 'asymptotic');
  assert.throws(() => mannWhitneyGreater([5, 6, 6], [4, 5], 'exact'), /without ties/);
  assert.equal(mannWhitneyGreater([3, 3, 3], [3, 3]).p, 1);
  assert.throws(() => mannWhitneyGreater([], [1]), /non-empty/);
});

test('erfc and the normal tail agree with known values', () => {
  // scipy.special.erfc(x) for x in 0.5, 1, 3, 6, -1, and scipy.stats.norm.sf(1.959963984540054).
  assert.ok(Math.abs(erfc(0.5) - 0.4795001221869535) < 1e-14);
  assert.ok(Math.abs(erfc(1) - 0.15729920705028516) < 1e-14);
  assert.ok(Math.abs(erfc(3) / 2.2090496998585445e-5 - 1) < 1e-12);
  assert.ok(Math.abs(erfc(6) / 2.1519736712498913e-17 - 1) < 1e-12);
  assert.ok(Math.abs(erfc(-1) - 1.8427007929497148) < 1e-14);
  assert.ok(Math.abs(normalSf(1.959963984540054) - 0.025) < 1e-14);
  assert.equal(normalSf(0), 0.5);
});

test('quantiles interpolate linearly between order statistics (numpy default)', () => {
  // numpy.quantile([1, 2, 3, 4, 10], [0, 0.25, 0.5, 0.9, 1]) -> [1, 2, 3, 7.6, 10]
  const v = [10, 3, 1, 4, 2];
  assert.deepEqual(
    [0, 0.25, 0.5, 1].map((q) => quantile(v, q)),
    [1, 2, 3, 10],
  );
  assert.ok(Math.abs(quantile(v, 0.9) - 7.6) < 1e-12);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('the seeded generator repeats for a seed and differs between seeds', () => {
  const a = seededRandom(7);
  const b = seededRandom(7);
  const c = seededRandom(8);
  const xs = Array.from({ length: 5 }, () => a());
  assert.deepEqual(
    Array.from({ length: 5 }, () => b()),
    xs,
  );
  assert.notDeepEqual(
    Array.from({ length: 5 }, () => c()),
    xs,
  );
  assert.ok(xs.every((x) => x >= 0 && x < 1));
});

test('the constant-time bootstrap median has the distribution of the median of a real resample', () => {
  // Odd and even n: the frequency of each resample median from Beta order statistics and from
  // drawing n values with replacement agree within 0.015 over 40 000 seeded resamples.
  for (const n of [9, 10]) {
    const asc = Array.from({ length: n }, (_, i) => i + 1);
    const fast = new Map<number, number>();
    const slow = new Map<number, number>();
    const r1 = seededRandom(1);
    const r2 = seededRandom(2);
    const N = 40_000;
    for (let i = 0; i < N; i++) {
      const f = bootstrapMedian(asc, r1);
      fast.set(f, (fast.get(f) ?? 0) + 1);
      const s = median(Array.from({ length: n }, () => asc[Math.floor(r2() * n)]));
      slow.set(s, (slow.get(s) ?? 0) + 1);
    }
    for (const key of new Set([...fast.keys(), ...slow.keys()])) {
      const d = Math.abs((fast.get(key) ?? 0) - (slow.get(key) ?? 0)) / N;
      assert.ok(d < 0.015, `n ${n}: median ${key} drawn ${fast.get(key) ?? 0} vs ${slow.get(key) ?? 0} times`);
    }
  }
});

/** Log-normal durations around `medianMs` (sigma 0.35), seeded. */
function latencies(seed: number, n: number, medianMs: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return medianMs * Math.exp(0.35 * z);
  });
}

test("bootstrap interval: a 1.25x shift lies inside the 95% interval, an unchanged sample's contains 1", () => {
  const base = latencies(1, 400, 40);
  const shifted = latencies(2, 300, 40).map((v) => v * 1.25);
  const same = latencies(3, 300, 40);
  const a = medianRatioInterval({ run: shifted, base });
  assert.ok(a.lower < 1.25 && 1.25 < a.upper, `[${a.lower}, ${a.upper}]`);
  assert.ok(a.lower > 1.1, 'and the interval is narrow enough to tell 1.25 from 1');
  const b = medianRatioInterval({ run: same, base });
  assert.ok(b.lower < 1 && 1 < b.upper, `[${b.lower}, ${b.upper}]`);
});

test('bootstrap interval: the calibration ratio divides the effect and widens the interval', () => {
  const base = latencies(4, 400, 40);
  const baseCal = latencies(5, 100, 2);
  // A machine twice as slow: the endpoint and the calibration both take twice as long.
  const run = latencies(6, 400, 80);
  const runCal = latencies(7, 100, 4);
  const calibrated = medianRatioInterval({ run, base, runCalibration: runCal, baseCalibration: baseCal });
  assert.ok(calibrated.lower < 1 && 1 < calibrated.upper, `[${calibrated.lower}, ${calibrated.upper}]`);
  const raw = medianRatioInterval({ run, base });
  assert.ok(raw.lower > 1.8, 'without calibration the slower machine reads as a 2x regression');
  assert.ok(calibrated.upper / calibrated.lower > raw.upper / raw.lower, 'the calibration noise is in the interval');
});

test('bootstrap interval: one seed, one interval; another seed, another interval; the estimate does not move', () => {
  const base = latencies(8, 200, 40);
  const run = latencies(9, 200, 44);
  const a = medianRatioInterval({ run, base }, { seed: 42 });
  const b = medianRatioInterval({ run, base }, { seed: 42 });
  const c = medianRatioInterval({ run, base }, { seed: 43 });
  assert.deepEqual(a, b);
  assert.notEqual(a.lower, c.lower);
  assert.equal(a.estimate, c.estimate);
  assert.equal(a.estimate, median(run) / median(base));
});
