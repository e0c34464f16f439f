// The pieces of the Artillery engine that need no process: the phases of a profile shared among
// runners, the pick of a job by rate, the records merged exactly, and their round trip through
// Artillery counters (a cloud run's report).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { histogramQuantile } from '../compare/samples.ts';
import type { ProfileScenario } from '../lib/profiles.ts';
import { mergeRecords, newEndpoint, newRecords, type Records } from '../lib/runtime.ts';
import { summaryData, thresholdHolds } from '../lib/summary-data.ts';
import { fromCounters, toCounters } from './counters.ts';
import { picker, rateAt } from './processor.ts';
import { histogramsOf } from './run.ts';
import { phasesOf, share } from './script.ts';

const PAGING: Record<string, ProfileScenario> = {
  dashboard: { kind: 'constant', exec: 'dashboard', rate: 10, seconds: 4, maxVUs: 4 },
  deep: { kind: 'constant', exec: 'deepPage', rate: 5, seconds: 4, maxVUs: 3 },
  export: { kind: 'sequence', exec: 'exportWalk', iterations: 1 },
  calibration: { kind: 'constant', exec: 'calibration', rate: 5, seconds: 4, maxVUs: 4 },
};

test('phases: the sum of the rates, shared among runners in integer shares that add up to it', () => {
  // A constant rate is a ramp to itself (script.ts phasesOf: Artillery's constant-rate timer spins).
  assert.deepEqual(phasesOf(PAGING), [{ name: '0-4 s', duration: 4, arrivalRate: 20, rampTo: 20, maxVusers: 12 }]);
  const oneSecond = phasesOf({ a: { kind: 'constant', exec: 'a', rate: 3, seconds: 1, maxVUs: 2 } });
  assert.equal(oneSecond[0].rampTo, undefined, "a 1-second phase stays constant: Artillery's 1-second ramp has no tick");
  const three = [0, 1, 2].map((i) => phasesOf(PAGING, 3, i)[0]);
  assert.deepEqual(
    three.map((p) => p.arrivalRate),
    [7, 7, 6],
  );
  for (let n = 1; n <= 7; n++)
    assert.equal(
      Array.from({ length: n }, (_, i) => share(23, n, i)).reduce((a, b) => a + b, 0),
      23,
    );
});

test('stress: four steps, x1 then ramps to x2, x4, x8, the calibration constant beside them', () => {
  const stress: Record<string, ProfileScenario> = {
    a: { kind: 'ramp', exec: 'a', rate: 10, stepSeconds: 30, maxVUs: 20 },
    calibration: { kind: 'constant', exec: 'calibration', rate: 5, seconds: 120, maxVUs: 4 },
  };
  const phases = phasesOf(stress);
  assert.deepEqual(
    phases.map((p) => [p.duration, p.arrivalRate, p.rampTo]),
    [
      [30, 15, 15],
      [30, 15, 25],
      [30, 25, 45],
      [30, 45, 85],
    ],
  );
  assert.equal(rateAt(stress.a, 45), 15);
  assert.equal(rateAt(stress.calibration, 119), 5);
  assert.equal(rateAt(stress.calibration, 120), 0);
});

test('the pick follows the rates exactly and in a fixed order', () => {
  const pick = picker(PAGING);
  const counts: Record<string, number> = {};
  const order: string[] = [];
  for (let i = 0; i < 80; i++) {
    const name = pick(1) as string;
    counts[name] = (counts[name] ?? 0) + 1;
    order.push(name);
  }
  assert.deepEqual(counts, { dashboard: 40, deep: 20, calibration: 20 });
  const again = picker(PAGING);
  assert.deepEqual(
    order,
    Array.from({ length: 80 }, () => again(1)),
  );
  assert.equal(picker(PAGING)(10), undefined, 'nothing past the end');
});

function recorded(micros: number[], checks: [number, number]): Records {
  return {
    endpoints: { a: { ...newEndpoint(), micros, at: micros.map(() => 0), expectedMicros: micros } },
    checks: { 'a: status is success': { level: 'stated', endpoint: 'a', passes: checks[0], fails: checks[1] } },
    counters: {},
  };
}

test('records of several workers merge exactly: every duration kept, counts added', () => {
  const all = mergeRecords(mergeRecords(newRecords(), recorded([1000, 2000], [2, 0])), recorded([3000], [0, 1]));
  assert.deepEqual(all.endpoints.a.micros, [1000, 2000, 3000]);
  assert.deepEqual(all.checks['a: status is success'], { level: 'stated', endpoint: 'a', passes: 2, fails: 1 });
  const data = summaryData(
    all,
    {
      'checks{level:stated}': [{ stat: 'rate', op: '==', value: 1 }],
      'http_req_duration{endpoint:a}': [
        { stat: 'p95', op: '<', value: 2.5 },
        { stat: 'p50', op: '<=', value: 2 },
      ],
      'http_req_failed{endpoint:b}': [{ stat: 'rate', op: '<=', value: 0 }],
    },
    1000,
  );
  assert.equal(data.metrics['http_req_duration{endpoint:a}'].values['p(50)'], 2);
  assert.equal(data.metrics['checks{level:stated}'].thresholds?.['rate==1'].ok, false);
  assert.deepEqual(data.metrics['http_req_duration{endpoint:a}'].thresholds, {
    'p(95)<2.5': { ok: false, limit: { stat: 'p95', op: '<', value: 2.5 } },
    'p(50)<=2': { ok: true, limit: { stat: 'p50', op: '<=', value: 2 } },
  });
  // A metric no sample reached shows its figures at zero, of the type its limit reads, and holds.
  assert.deepEqual(data.metrics['http_req_failed{endpoint:b}'].values, { rate: 0, passes: 0, fails: 0 });
  assert.equal(data.metrics['http_req_failed{endpoint:b}'].thresholds?.['rate<=0'].ok, true);
  assert.equal(thresholdHolds({ stat: 'p95', op: '<', value: 300 }, undefined), true, 'no samples: nothing crossed it');
  assert.throws(() => thresholdHolds({ stat: 'value', op: '<', value: 300 }, { count: 1 }), /value<300 cannot be judged/);
});

test('records through Artillery counters and back: counts exact, each duration within 1%', () => {
  const micros = Array.from({ length: 500 }, (_, i) => 800 + i * 37);
  const back = fromCounters(Object.fromEntries(toCounters(recorded(micros, [499, 1]))));
  assert.deepEqual(back.checks['a: status is success'], { level: 'stated', endpoint: 'a', passes: 499, fails: 1 });
  assert.equal(back.endpoints.a.micros.length, 500);
  const h = histogramsOf(back).endpoints.a;
  const exact = histogramsOf(recorded(micros, [1, 0])).endpoints.a;
  assert.deepEqual(h, exact, 'the same histogram as the local run keeps');
  const p50 = histogramQuantile(h, 0.5);
  assert.ok(Math.abs(p50 / ((800 + 249.5 * 37) / 1000) - 1) < 0.02, `p50 ${p50}`);
});
