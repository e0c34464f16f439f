// --latency and the slow: fault: the waits drawn (their median and spread, with a seeded generator),
// which requests a slow: fault slows, and how both are refused when malformed. The waits are recorded
// through build()'s `wait` option, never timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from './app.ts';
import { checkSwitches, parseSlowFault, slowFaults } from './faults.ts';
import { delayFor, latencyDraw, parseLatency } from './latency.ts';
import { prng } from './store/seed.ts';
import { quantile } from '../core/quantile.ts';

const KEY = 'test-key-latency-0123';
const H = { 'service-api-key': KEY };

test('parseLatency reads <median>[:<spread>] and refuses anything else in one line', () => {
  assert.deepEqual(parseLatency('40'), { medianMs: 40, spread: 0.25 });
  assert.deepEqual(parseLatency('12.5:0.4'), { medianMs: 12.5, spread: 0.4 });
  assert.deepEqual(parseLatency('0:0'), { medianMs: 0, spread: 0 });
  for (const bad of ['', 'abc', '-1', '40:', '40:x', '40:-0.1', '40:4', '1:2:3', '70000']) {
    const r = parseLatency(bad);
    assert.equal(typeof r, 'string', bad);
    assert.doesNotMatch(r as string, /\n/);
  }
});

test('the latency draws are log-normal around the median asked for, with the spread asked for', () => {
  const draw = latencyDraw({ medianMs: 40, spread: 0.25 }, prng(7).next);
  const xs = Array.from({ length: 20_000 }, draw);
  const middle = quantile(xs, 0.5);
  assert.ok(Math.abs(middle / 40 - 1) < 0.02, `median ${middle}`);
  // sigma of the logarithm: the 84th and 16th percentiles are one sigma either side.
  const sigma = (Math.log(quantile(xs, 0.8413)) - Math.log(quantile(xs, 0.1587))) / 2;
  assert.ok(Math.abs(sigma - 0.25) < 0.01, `sigma ${sigma}`);
  assert.ok(
    xs.every((x) => x > 0),
    'no wait is negative',
  );
  // Spread 0 is a fixed wait.
  const fixed = latencyDraw({ medianMs: 5, spread: 0 }, prng(1).next);
  assert.deepEqual([fixed(), fixed(), fixed()], [5, 5, 5]);
});

test('delayFor scales the whole time (injected wait plus handler time) by the factor', () => {
  assert.equal(delayFor(40, 2, 1), 40);
  // (40 + 2) * 1.5 = 63 in all, of which the handler already took 2.
  assert.equal(delayFor(40, 2, 1.5), 61);
  // No latency: only the handler's time is scaled.
  assert.equal(delayFor(0, 4, 1.25), 1);
  assert.equal(delayFor(0, 4, 1), 0);
});

test('slow:<operationId>:<percent> is parsed apart from the named faults and refused when malformed', () => {
  assert.deepEqual(parseSlowFault('slow:listExperiments:25'), { operationId: 'listExperiments', percent: 25 });
  assert.deepEqual(parseSlowFault('slow:createMetric:2.5'), { operationId: 'createMetric', percent: 2.5 });
  assert.match(parseSlowFault('slow:listExperiment:25') as string, /unknown operationId "listExperiment"/);
  for (const bad of ['slow:listExperiments:0', 'slow:listExperiments:-5', 'slow:listExperiments:x', 'slow:listExperiments:', 'slow:listExperiments:20000'])
    assert.match(parseSlowFault(bad) as string, /percent must be a number above 0/, bad);
  assert.match(parseSlowFault('slow:listExperiments') as string, /must be slow:<operationId>:<percent>/);
  assert.equal(checkSwitches(['slow:listExperiments:25', 'page-overlap'], []), undefined);
  assert.match(checkSwitches(['slow:nope:25'], []) ?? '', /unknown operationId/);
  assert.match(checkSwitches(['slow:listExperiments:25', 'slow:listExperiments:50'], []) ?? '', /given twice/);
  assert.deepEqual(slowFaults(['page-overlap', 'slow:listReleasePipelines:10']), [{ operationId: 'listReleasePipelines', percent: 10 }]);
  assert.throws(() => build({ apiKey: KEY, faults: ['slow:nope:1'] }), /unknown operationId/);
});

/** A server whose every wait is recorded instead of waited, with a fixed latency (spread 0). */
function recording(faults: string[], medianMs = 40) {
  const waits: number[] = [];
  const app = build({ apiKey: KEY, faults, latency: { medianMs, spread: 0 }, wait: (ms, done) => (waits.push(ms), done()) });
  return { app, waits };
}

test('--latency delays every response, refused ones too', async (t) => {
  const { app, waits } = recording([]);
  t.after(() => app.close());
  assert.equal((await app.inject({ url: '/console/v1/experiments', headers: H })).statusCode, 200);
  assert.equal((await app.inject({ url: '/console/v1/release_pipelines', headers: H })).statusCode, 200);
  assert.equal((await app.inject({ url: '/console/v1/experiments' })).statusCode, 401);
  assert.equal((await app.inject({ url: '/console/v1/nowhere', headers: H })).statusCode, 404);
  assert.deepEqual(waits, [40, 40, 40, 40]);
});

test('slow: lengthens only its own operation, and only requests that reach its handler', async (t) => {
  const { app, waits } = recording(['slow:listExperiments:50']);
  t.after(() => app.close());
  const wait = async (opts: { url: string; headers?: Record<string, string> }) => {
    const before = waits.length;
    await app.inject(opts);
    assert.equal(waits.length, before + 1);
    return waits[before];
  };
  // The slowed operation: at least 1.5x the injected 40 ms (plus half the handler's own time).
  assert.ok((await wait({ url: '/console/v1/experiments?limit=5', headers: H })) >= 60);
  // Another operation, and the slowed operation refused by the key check (the load calibration's request): the plain wait.
  assert.equal(await wait({ url: '/console/v1/release_pipelines', headers: H }), 40);
  assert.equal(await wait({ url: '/console/v1/experiments' }), 40);
  // Bodies are unchanged by the fault.
  const clean = build({ apiKey: KEY });
  t.after(() => clean.close());
  const url = '/console/v1/experiments?limit=3';
  assert.equal((await app.inject({ url, headers: H })).body, (await clean.inject({ url, headers: H })).body);
});

test('without --latency or slow:, no wait is added at all', async (t) => {
  const waits: number[] = [];
  const app = build({ apiKey: KEY, wait: (ms, done) => (waits.push(ms), done()) });
  t.after(() => app.close());
  assert.equal((await app.inject({ url: '/console/v1/experiments', headers: H })).statusCode, 200);
  assert.deepEqual(waits, []);
});

test('slow: without --latency scales the handler time alone', async (t) => {
  const { app, waits } = recording(['slow:listReleasePipelines:100'], 0);
  t.after(() => app.close());
  await app.inject({ url: '/console/v1/release_pipelines', headers: H });
  await app.inject({ url: '/console/v1/experiments', headers: H });
  // +100%: as long again as the handler took (some positive time); the other operation waits nothing.
  assert.equal(waits.length, 1);
  assert.ok(waits[0] > 0);
});
