// Thresholds as data: the text summary.json and JUnit show is the one they always showed, it reads
// back into the same limit, and plans written with text limits still load.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { endpointThresholds, type Limit, limitText, meets, parseLimit, readThresholds, verdictThresholds } from './thresholds.ts';

test('endpoint thresholds: p95 and p99 below their limits, the error rate at most the budget; shown as before', () => {
  const t = endpointThresholds({ 'listExperiments.deep': { p95: 300, p99: 600 } }, 0.001);
  assert.deepEqual(t['http_req_duration{endpoint:listExperiments.deep}'], [
    { stat: 'p95', op: '<', value: 300 },
    { stat: 'p99', op: '<', value: 600 },
  ]);
  assert.deepEqual(
    Object.entries(t).map(([k, ls]) => `${k} ${ls.map(limitText).join(' ')}`),
    ['http_req_duration{endpoint:listExperiments.deep} p(95)<300 p(99)<600', 'http_req_failed{endpoint:listExperiments.deep} rate<=0.001'],
  );
});

test('the inferred level is held to the checks limit only under --strict; transport failures to their budget', () => {
  const checks: Limit = { stat: 'rate', op: '>', value: 0.999 };
  assert.deepEqual(Object.keys(verdictThresholds(checks, false, 0)), ['checks{level:stated}', 'load_transport_failures']);
  const strict = verdictThresholds(checks, true, 0.01);
  assert.deepEqual(strict['checks{level:inferred}'], [checks]);
  assert.equal(limitText(strict.load_transport_failures[0]), 'rate<=0.01');
});

test('text and limit: each reads back into the other; what is not a limit is refused', () => {
  for (const text of ['p(95)<300', 'p(99.9)>=1.5', 'rate==1', 'rate<=0.001', 'count>10', 'avg!=0', 'med<2', 'value>=0'])
    assert.equal(limitText(parseLimit(text) as Limit), text);
  assert.deepEqual(parseLimit(' rate === 1 '), { stat: 'rate', op: '==', value: 1 });
  assert.equal(parseLimit('p95 under 300'), undefined);
  assert.equal(parseLimit('p(95)<300 && p(99)<1'), undefined);
  assert.equal(meets({ stat: 'p95', op: '<', value: 300 }, 300), false);
  assert.equal(meets({ stat: 'p95', op: '<=', value: 300 }, 300), true);
  assert.equal(meets({ stat: 'rate', op: '==', value: 1 }, 0.9995), false);
});

test('thresholds from a file: data as it is, text (a plan written before) parsed, anything else refused', () => {
  const limit: Limit = { stat: 'p95', op: '<', value: 300 };
  assert.deepEqual(readThresholds({ a: [limit, 'rate<0.01'] }), { a: [limit, { stat: 'rate', op: '<', value: 0.01 }] });
  assert.throws(() => readThresholds({ b: ['p95 under 300'] }), /"p95 under 300" of b cannot be judged/);
});
