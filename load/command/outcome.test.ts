// The verdict of a load run, for load:* and verify: a failed check is a contract matter (1), the network
// answering instead of the target is a run not carried out (3, never 1), latency alone a performance one
// (2), the calibration request alone the machine's (0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadOutcome } from './outcome.ts';

const t = (metric: string, ok = false) => ({ metric, threshold: 'p(95)<100', ok });
const clean = { answers: 400, failures: 0, kinds: {} };

test('a stated check threshold crossed is 1, naming how many failed', () => {
  const r = loadOutcome(1, { thresholds: [t('checks{level:stated}'), t('http_req_failed')], checks: { fails: 3, stated: { fails: 3 } }, transport: clean });
  assert.deepEqual([r.code, r.note], [1, '3 stated checks failed']);
});

test('an inferred check is a warning unless its threshold crossed (--strict)', () => {
  const failed = [{ name: 'listExperiments.filter: every item matches filter tags [inferred]', level: 'inferred', fails: 2 }];
  const warned = loadOutcome(0, { thresholds: [t('checks{level:inferred}', true)], checks: { fails: 2, inferred: { fails: 2 }, failed }, transport: clean });
  assert.equal(warned.code, 0);
  assert.deepEqual(warned.warnings, ['listExperiments.filter: every item matches filter tags [inferred] (2 failures)']);
  const strict = loadOutcome(1, { thresholds: [t('checks{level:inferred}')], checks: { fails: 2, inferred: { fails: 2 }, failed }, transport: clean });
  assert.deepEqual([strict.code, strict.note], [1, '2 inferred checks failed (--strict)']);
});

test('answers that were the network, over their budget or beside any crossed threshold, are 3, never 1', () => {
  const transport = { answers: 300, failures: 12, kinds: { 'no-response': 10, 'rate-limited': 2 } };
  const over = loadOutcome(1, {
    thresholds: [t('load_transport_failures'), t('http_req_failed'), t('http_req_failed{endpoint:createMetric}')],
    checks: { fails: 0 },
    transport,
  });
  assert.deepEqual([over.code, over.note], [3, "12 of 300 answers were the network's, not the target's (no-response 10, rate-limited 2)"]);
  // Timeouts lengthen the latency too: not a regression of the target.
  assert.equal(loadOutcome(1, { thresholds: [t('http_req_duration{endpoint:createMetric}')], checks: { fails: 0 }, transport }).code, 3);
  const within = loadOutcome(0, { thresholds: [], checks: { fails: 0 }, transport: { answers: 3000, failures: 1, kinds: { 'no-response': 1 } } });
  assert.equal(within.code, 0);
  assert.match(within.note, /^ok; 1 of 3000 answers were the network's, not the target's \(no-response 1\), within the profile's budget$/);
});

test('a stated check that failed beside transport failures is still 1', () => {
  const r = loadOutcome(1, {
    thresholds: [t('checks{level:stated}'), t('load_transport_failures')],
    checks: { fails: 1, stated: { fails: 1 } },
    transport: { answers: 50, failures: 5, kinds: { redirect: 5 } },
  });
  assert.equal(r.code, 1);
});

test('latency thresholds of the target alone are 2', () => {
  const r = loadOutcome(1, {
    thresholds: [t('http_req_duration{endpoint:listExperiments.deep}'), t('http_req_duration{endpoint:calibration}'), t('checks{level:stated}', true)],
    checks: { fails: 0 },
    transport: clean,
  });
  assert.deepEqual([r.code, r.note], [2, 'latency threshold crossed: http_req_duration{endpoint:listExperiments.deep} p(95)<100']);
});

test('the calibration request alone over its thresholds is a slow machine, not a failure', () => {
  const r = loadOutcome(1, {
    thresholds: [t('http_req_duration{endpoint:calibration}'), t('http_req_duration{endpoint:listExperiments.deep}', true)],
    checks: { fails: 0 },
    transport: clean,
  });
  assert.equal(r.code, 0);
  assert.match(r.note, /machine was slow/);
});

test('the engine aborted (setup refused the target) or without a summary: the run could not be carried out', () => {
  assert.equal(loadOutcome(3, undefined).code, 3);
  assert.equal(loadOutcome(3, { thresholds: [], checks: { fails: 0 } }).code, 3);
  assert.equal(loadOutcome(107, { thresholds: [], checks: { fails: 0 } }).code, 3);
  assert.equal(loadOutcome(1, undefined).code, 3);
  assert.equal(loadOutcome(0, undefined).code, 0);
});

test('a manifest gate that refused rules while full is a resource the target refused: 3, never 1, and a failed check still outranks it', () => {
  const refusing = { counters: { mutation_gates_refusing_rules: 1 } };
  const r = loadOutcome(0, { thresholds: [], checks: { fails: 0 }, transport: clean, ...refusing });
  assert.equal(r.code, 3);
  assert.match(r.note, /^1 manifest gate refused new rules and may be full .*: reset it or name others in the manifest$/);
  assert.equal(loadOutcome(1, { thresholds: [t('checks{level:stated}')], checks: { fails: 2, stated: { fails: 2 } }, transport: clean, ...refusing }).code, 1);
});

const short = { ok: false, note: 'the load fell short: 500 of 1000 arrivals started (50% short, tolerance 5.0%): 500 dropped at the VU limit' };

test('a load that fell short is 3 saying how much, its latency not judged; a failed stated check is still 1', () => {
  const r = loadOutcome(0, { checks: { fails: 0 }, transport: clean, delivery: short });
  assert.deepEqual([r.code, r.note], [3, short.note]);
  const latency = loadOutcome(1, {
    thresholds: [t('http_req_duration{endpoint:listExperiments.deep}')],
    checks: { fails: 0 },
    transport: clean,
    delivery: short,
  });
  assert.equal(latency.code, 3, 'a slow endpoint under a load that was not delivered is not a regression');
  const contract = loadOutcome(1, { thresholds: [t('checks{level:stated}')], checks: { fails: 1, stated: { fails: 1 } }, transport: clean, delivery: short });
  assert.equal(contract.code, 1);
});

test('a saturated generator that delivered its load passes, named in the note', () => {
  const r = loadOutcome(0, {
    checks: { fails: 0 },
    transport: clean,
    delivery: { ok: true, note: "1000 of 1000 arrivals started; the generator's event loop was busy 96% of a period", generators: [{ saturated: true }] },
  });
  assert.equal(r.code, 0);
  assert.match(r.note, /^ok; load generator saturated: .*busy 96%/);
});

test('a limit of config.ensure that broke is 2 naming its endpoint and limit; an optional one is not judged', () => {
  const limits = [
    { check: 'console.listExperiments.deep.p95 < 300', strict: true, ok: false },
    { check: 'console.calibration.p99 < 50', strict: false, ok: false },
    { check: 'console.calibration.p95 < 50', strict: true, ok: true },
  ];
  const r = loadOutcome(0, { checks: { fails: 0 }, transport: clean, shape: { limits } });
  assert.deepEqual([r.code, r.note], [2, 'limit broken: endpoint listExperiments.deep: console.listExperiments.deep.p95 < 300']);
  assert.equal(loadOutcome(0, { checks: { fails: 0 }, transport: clean, shape: { limits }, delivery: short }).code, 3, 'not carried out first');
  assert.equal(loadOutcome(0, { checks: { fails: 0 }, transport: clean, shape: { limits: limits.slice(1) } }).code, 0);
});
