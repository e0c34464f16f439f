// The pieces of Artillery's view of a run that need no process: an arrival's records as Artillery's
// custom metrics, a period's progress line, whether the asked load was delivered, and the latency
// of each period.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEndpoint, type Records } from '../lib/runtime.ts';
import { type ArrivalTimes, cpuBetween, DROP_TOLERANCE, judgeDelivery, judgeSchedule, plannedArrivals, scheduleAt, START_TOLERANCE } from './delivery.ts';
import { judgeReport } from './ensure.ts';
import { artilleryMetrics, failureOf, GENERATOR_BUSY } from './metrics.ts';
import { latencyPeriods } from './periods.ts';
import { periodSeconds, progressLine } from './progress.ts';

const arrival: Records = {
  endpoints: {
    'listExperiments.deep': {
      ...newEndpoint(),
      micros: [1234.5, 2000],
      at: [0, 0],
      statuses: [200, 0],
      errors: { ECONNRESET: 1 },
      unexpected: 1,
      looked: 2,
      network: { 'no-response': 1 },
    },
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
    m.filter(([kind, name]) => kind === 'histogram' && name.startsWith('console.')),
    [
      ['histogram', 'console.listExperiments.deep', 1.235],
      ['histogram', 'console.listExperiments.deep', 2],
    ],
  );
  const counters = Object.fromEntries(m.filter(([kind, name]) => kind === 'counter' && name.startsWith('console.')).map(([, name, n]) => [name, n]));
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

test("an arrival's requests as Artillery's HTTP engine counts its own: http.requests, http.codes, http.responses, http.response_time; a failure fails the user", () => {
  const m = artilleryMetrics(arrival, { byEndpoint: { prefix: 'plugins.metrics-by-endpoint' } });
  const sum = (name: string) => m.filter(([, n]) => n === name).reduce((s, [, , v]) => s + v, 0);
  assert.equal(sum('http.requests'), 2);
  assert.equal(m.filter(([kind, n]) => kind === 'rate' && n === 'http.request_rate').length, 2);
  assert.equal(sum('http.codes.200'), 1);
  assert.equal(sum('http.responses'), 1, 'the request without an answer is no response');
  assert.deepEqual(
    m.filter(([kind, n]) => kind === 'histogram' && !n.startsWith('console.')),
    [
      ['histogram', 'http.response_time', 1.235],
      ['histogram', 'http.response_time.2xx', 1.235],
      ['histogram', 'plugins.metrics-by-endpoint.response_time.listExperiments.deep', 1.235],
    ],
  );
  assert.equal(sum('plugins.metrics-by-endpoint.listExperiments.deep.codes.200'), 1);
  assert.equal(sum('plugins.metrics-by-endpoint.listExperiments.deep.errors.ECONNRESET'), 1);
  assert.equal(failureOf(arrival), 'ECONNRESET', 'the virtual user fails with it');
  assert.equal(sum('errors.ECONNRESET'), 0, 'counted by Artillery as it fails the user, not twice');
  const two = { ...arrival, endpoints: { a: { ...newEndpoint(), micros: [1, 2], at: [0, 0], statuses: [500, 502], errors: { 'console.unexpected': 2 } } } };
  assert.equal(
    artilleryMetrics(two)
      .filter(([, n]) => n === 'errors.console.unexpected')
      .reduce((s, [, , v]) => s + v, 0),
    1,
    'the second failed request of one user is an error of its own',
  );
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

/** Arrivals at `rate` a second from `t0` for `seconds`, evenly spaced, as the processor bins them. */
function steady(t0: number, rate: number, seconds: number): ArrivalTimes {
  const times: ArrivalTimes = { first: t0, last: t0, n: 0, binMs: 250, bins: {} };
  for (let i = 0; i < rate * seconds; i++) {
    const at = t0 + Math.round((i * 1000) / rate);
    const k = String(Math.floor(at / 250));
    times.bins[k] = (times.bins[k] ?? 0) + 1;
    times.last = at;
    times.n++;
  }
  return times;
}

test('the schedule: the rate and the arrivals asked by any moment of the phases, a ramp on its straight line', () => {
  const phases = [
    { duration: 10, arrivalRate: 10, rampTo: 30 },
    { duration: 10, arrivalRate: 30 },
  ];
  assert.deepEqual(scheduleAt(phases, 5), { rate: 20, asked: 75 });
  assert.deepEqual(scheduleAt(phases, 15), { rate: 30, asked: 200 + 150 });
  assert.deepEqual(scheduleAt(phases, 25), { rate: 0, asked: 500 });
});

test('delivery: a generator behind the asked schedule is not carried out, though every arrival started in the end (a stretched phase)', () => {
  const t0 = Date.UTC(2026, 11, 6, 12, 0, 0);
  const phases = [{ name: '20 s', duration: 20, arrivalRate: 600, rampTo: 600, maxVusers: 1000 }];
  // Asked 600/s for 20 s; delivered 433/s: the 12 000 arrivals took 27.7 s.
  const stretched = steady(t0, 433, 12000 / 433);
  const late = judgeSchedule(phases, stretched);
  assert.equal(late.ok, false);
  assert.match(
    late.why,
    /^by 10 s of the phases 4330 of 6000 arrivals had started \(28% behind, tolerance 10%\): in 0-10 s asked 600\/s, started 433\/s; the phases' 20 s took 27\.7 s/,
  );
  assert.deepEqual(late.periods[0], { from: 0, to: 10, asked: 6000, started: 4330 });
  const report = { aggregate: { counters: { 'vusers.created': 12000 } }, intermediate: [{ summaries: { [GENERATOR_BUSY]: { p50: 100 } } }] };
  const d = judgeDelivery([{ runner: 1, report, phases, times: stretched }], 30000);
  assert.equal(d.ok, false, 'every arrival started, late: not the load asked');
  assert.match(d.note, /^the generator fell behind the asked schedule: by 10 s .*; its generator's event loop busy 100%/);
  assert.equal(d.schedule?.[0].tookSeconds, 27.7);
  // On time, with a little jitter of the start: kept.
  const onTime = judgeSchedule(phases, steady(t0 + 40, 600, 20));
  assert.equal(onTime.ok, true, onTime.why);
  for (const p of onTime.periods)
    assert.ok(p.asked === 6000 && Math.abs(p.started - 6000) <= 30, `${p.from}-${p.to} s: ${p.started} of ${p.asked} (bins of 250 ms)`);
  // Behind only at the start and caught up within a second's arrivals: kept (cumulative, one second of slack).
  assert.equal(judgeSchedule([{ duration: 4, arrivalRate: 5 }], steady(t0, 4, 5)).ok, true);
  // Several runners: each judged on its own phases, and the one behind named.
  const two = judgeDelivery(
    [
      { runner: 1, report: { aggregate: { counters: { 'vusers.created': 6000 } } }, phases: [{ duration: 10, arrivalRate: 600 }], times: steady(t0, 600, 10) },
      { runner: 2, report: { aggregate: { counters: { 'vusers.created': 6000 } } }, phases: [{ duration: 10, arrivalRate: 600 }], times: steady(t0, 300, 20) },
    ],
    12000,
  );
  assert.equal(two.ok, false);
  assert.match(two.note, /^the generator fell behind the asked schedule: runner 2: by 10 s of the phases 3000 of 6000/);
});

test('delivery of a cloud run: the schedule read from Artillery’s periods (vusers.created per 10 s) when the workers’ records stayed in their containers', () => {
  const t0 = Date.UTC(2026, 11, 6, 12, 0, 3);
  const period = (start: number, created: number, first?: number, last?: number) => ({
    period: String(start),
    firstCounterAt: first ?? start,
    lastCounterAt: last ?? start + 9990,
    counters: { 'vusers.created': created },
  });
  const p0 = t0 - 3000;
  const onTime = {
    aggregate: { counters: { 'vusers.created': 2000 } },
    intermediate: [period(p0, 700, t0), period(p0 + 10_000, 1000), period(p0 + 20_000, 300, undefined, p0 + 23_000)],
  };
  assert.equal(judgeDelivery([{ runner: 1, report: onTime, phases: [{ duration: 20, arrivalRate: 100 }] }], 2000).ok, true);
  const late = {
    aggregate: { counters: { 'vusers.created': 2000 } },
    intermediate: [period(p0, 350, t0), period(p0 + 10_000, 500), period(p0 + 20_000, 500), period(p0 + 30_000, 500), period(p0 + 40_000, 150)],
  };
  const d = judgeDelivery([{ runner: 1, report: late, phases: [{ duration: 20, arrivalRate: 100 }] }], 2000);
  assert.equal(d.ok, false);
  assert.match(d.note, /fell behind the asked schedule: by 10 s of the phases/);
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

test("a cloud run's limits judged as a local run's: Artillery's ensure plugin on the report its platform merged (maxErrorRate: the users that did not complete)", async () => {
  const report = {
    counters: { 'vusers.created': 200, 'vusers.completed': 199, 'vusers.failed': 1 },
    histograms: {},
    summaries: { 'console.calibration': { p95: 3.2 } },
  };
  assert.deepEqual(await judgeReport({ maxErrorRate: 0, thresholds: [{ 'console.calibration.p95': 5 }] }, report), [
    { check: 'console.calibration.p95 < 5', strict: true, ok: true },
    { check: 'maxErrorRate < 0', strict: true, ok: false },
  ]);
  assert.deepEqual(await judgeReport({ maxErrorRate: 1 }, report), [{ check: 'maxErrorRate < 1', strict: true, ok: true }]);
});
