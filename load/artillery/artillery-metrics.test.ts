// The pieces of Artillery's view of a run that need no process: an arrival's records as Artillery's
// custom metrics, a period's progress line, whether the asked load was delivered, and the latency
// of each period.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEndpoint, type Records } from '../lib/runtime.ts';
import { cpuBetween, DROP_TOLERANCE, judgeDelivery, plannedArrivals, START_TOLERANCE } from './delivery.ts';
import { artilleryMetrics, GENERATOR_BUSY } from './metrics.ts';
import { latencyPeriods } from './periods.ts';
import { periodSeconds, progressLine } from './progress.ts';

const arrival: Records = {
  endpoints: {
    'listExperiments.deep': { ...newEndpoint(), micros: [1234.5, 2000], at: [0, 0], unexpected: 1, looked: 2, network: { 'no-response': 1 } },
    setup: { ...newEndpoint(), micros: [900], at: [0] },
  },
  checks: {
    'a: status is success': { level: 'stated', endpoint: 'a', passes: 2, fails: 1 },
    'a: envelope has message and data': { level: 'stated', endpoint: 'a', passes: 1, fails: 0 },
  },
  counters: {},
};

test('an arrival: each duration a histogram value of console.<endpoint> in ms with microsecond decimals, setup left out', () => {
  const m = artilleryMetrics(arrival);
  assert.deepEqual(
    m.filter(([kind]) => kind === 'histogram'),
    [
      ['histogram', 'console.listExperiments.deep', 1.235],
      ['histogram', 'console.listExperiments.deep', 2],
    ],
  );
  const counters = Object.fromEntries(m.filter(([kind]) => kind === 'counter').map(([, name, n]) => [name, n]));
  assert.deepEqual(counters, {
    'console.listExperiments.deep.requests': 2,
    'console.listExperiments.deep.unexpected': 1,
    'console.listExperiments.deep.network_failures': 1,
    'console.network_failures': 1,
    'console.network_failures.no-response': 1,
    'console.checks.stated.passed': 3,
    'console.checks.stated.failed': 1,
    'console.checks.passed': 3,
    'console.checks.failed': 1,
  });
});

test('a period: arrivals, drops, each endpoint rate, p95 and what went wrong, in one line', () => {
  const line = progressLine('load: paging', {
    period: Date.UTC(2026, 10, 28, 10, 0, 0),
    firstMetricAt: Date.UTC(2026, 10, 28, 10, 0, 0),
    lastMetricAt: Date.UTC(2026, 10, 28, 10, 0, 9, 900),
    counters: { 'vusers.created': 200, 'vusers.skipped': 3, 'console.listExperiments.deep.unexpected': 2, 'console.checks.failed': 4 },
    summaries: {
      'console.listExperiments.deep': { count: 50, p95: 3.21 },
      'console.calibration': { count: 20, p95: 1.5 },
      [GENERATOR_BUSY]: { count: 10, p95: 40, max: 55 },
      'vusers.session_length': { count: 200, p95: 9 },
    },
  });
  assert.equal(
    line,
    'load: paging 10:00:00: 200 arrivals (20.0/s), 3 DROPPED at the VU limit, 4 checks failed, generator busy 55%; calibration 2.0/s p95 1.5 ms; listExperiments.deep 5.0/s p95 3.2 ms 2 unexpected',
  );
  assert.equal(periodSeconds({ period: 0, firstMetricAt: 7000, lastMetricAt: 9500 }), 3, 'a first period counts from its first metric');
});

test('the planned arrivals: rate x duration, a ramp at its mean', () => {
  assert.equal(
    plannedArrivals([
      { duration: 10, arrivalRate: 5 },
      { duration: 30, arrivalRate: 15, rampTo: 25 },
    ]),
    650,
  );
});

const phases = [{ duration: 10, arrivalRate: 100 }];
const report = (created: number, skipped: number, busy?: number) => ({
  aggregate: { counters: { 'vusers.created': created, 'vusers.skipped': skipped } },
  intermediate: busy === undefined ? [] : [{ summaries: { [GENERATOR_BUSY]: { p50: busy } } }],
});

test('delivery: drops beyond 1% or starts below 95% are a load not carried out, saying how much fell short', () => {
  assert.equal(DROP_TOLERANCE, 0.01);
  assert.equal(START_TOLERANCE, 0.05);
  const ok = judgeDelivery([{ runner: 1, report: report(995, 5), phases }], 995);
  assert.equal(ok.ok, true, ok.note);
  const dropped = judgeDelivery([{ runner: 1, report: report(980, 20), phases }], 980);
  assert.equal(dropped.ok, false);
  assert.match(dropped.note, /980 of 1000 arrivals started \(2\.0% short.*20 dropped at the VU limit/);
  const late = judgeDelivery([{ runner: 1, report: report(900, 0, 97), phases, cpuSeconds: 9 }], 900);
  assert.equal(late.ok, false);
  assert.match(late.note, /900 of 1000 arrivals started \(10% short.*100 never fired.*the generator's event loop was busy 97% of a period/);
  assert.deepEqual(late.generators, [{ runner: 1, busyPct: 97, saturated: true, cpuSeconds: 9 }]);
  assert.equal(late.cpuMsPer1000Requests, 10000);
  const two = judgeDelivery(
    [
      { runner: 1, report: report(500, 0, 50), phases: [{ duration: 10, arrivalRate: 50 }] },
      { runner: 2, report: report(500, 0, 95), phases: [{ duration: 10, arrivalRate: 50 }] },
    ],
    1000,
  );
  assert.equal(two.ok, true, 'delivered, though one generator was saturated');
  assert.match(two.note, /runner 2's generator's event loop was busy 95%/);
});

test('latency over time: each endpoint p50/p95/p99 per 10 s period from the load’s first arrival, exact', () => {
  const t0 = Date.UTC(2026, 10, 28, 10, 0, 0);
  const micros = [...Array.from({ length: 100 }, (_, i) => (i + 1) * 1000), 50_000];
  const at = [...Array.from({ length: 100 }, (_, i) => t0 + i * 50), t0 + 25_000];
  const periods = latencyPeriods({
    endpoints: { a: { ...newEndpoint(), micros, at }, setup: { ...newEndpoint(), micros: [1], at: [t0 - 5000] } },
    checks: {},
    counters: {},
  });
  assert.equal(periods.length, 3, 'setup is not the load: the periods start at its first arrival');
  assert.deepEqual(
    periods.map((p) => [p.offsetSeconds, p.seconds]),
    [
      [0, 10],
      [10, 10],
      [20, 6],
    ],
  );
  assert.equal(periods[0].at, new Date(t0).toISOString());
  assert.deepEqual(periods[0].endpoints.a, { count: 100, p50: 50.5, p95: 95.05, p99: 99.01 });
  assert.deepEqual(periods[1].endpoints, {}, 'a period without requests is kept, empty: the gap shows');
  assert.deepEqual(periods[2].endpoints.a, { count: 1, p50: 50, p95: 50, p99: 50 });
});

test('the generator CPU over the load span only, from samples of the process CPU, start-up left out', () => {
  const samples: [number, number][] = [
    [1000, 2.0],
    [2000, 3.0],
    [3000, 3.5],
    [4000, 5.5],
  ];
  assert.equal(cpuBetween(samples, 1500, 3500), 4.5 - 2.5);
  assert.equal(cpuBetween(samples, 500, 5000), 3.5, 'beyond the samples: their first and last');
  assert.equal(cpuBetween([], 0, 1), undefined);
});

test("with an apdex threshold T each request is counted for Artillery's apdex plugin: within T, within 4T, beyond; the ruler apart", () => {
  const records: Records = {
    endpoints: {
      createMetric: { ...newEndpoint(), micros: [1200, 4000, 5000, 16_000, 50_000] },
      calibration: { ...newEndpoint(), micros: [90_000] },
    },
    checks: {},
    counters: {},
  };
  const counted = (apdexMs?: number) => {
    const out: Record<string, number> = {};
    for (const [, name, n] of artilleryMetrics(records, { apdexMs }).filter(([kind, name]) => kind === 'counter' && name.startsWith('apdex.')))
      out[name] = (out[name] ?? 0) + n;
    return out;
  };
  assert.deepEqual(counted(4), { 'apdex.satisfied': 2, 'apdex.tolerated': 2, 'apdex.frustrated': 1 });
  assert.deepEqual(counted(undefined), {}, 'no apdex plugin asked for: nothing counted');
});
