// verify's reading of a k6 run that crossed a threshold: failed checks or error rates are a contract
// matter (1), latency alone a performance one (2), the calibration request alone the machine's (0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadFailureKind } from './load-outcome.ts';

const t = (metric: string, ok = false) => ({ metric, threshold: 'p(95)<100', ok });

test('load outcome: failed checks or an error-rate threshold are 1', () => {
  assert.equal(loadFailureKind({ thresholds: [t('checks')], checks: { fails: 3 } }).code, 1);
  assert.equal(loadFailureKind({ thresholds: [t('http_req_failed{endpoint:createMetric}')], checks: { fails: 0 } }).code, 1);
  assert.equal(loadFailureKind({ thresholds: [t('http_req_duration{endpoint:createMetric}')], checks: { fails: 1 } }).code, 1);
  assert.equal(loadFailureKind(undefined).code, 1, 'no summary: nothing says it was only latency');
});

test('load outcome: latency thresholds of the target alone are 2', () => {
  const r = loadFailureKind({
    thresholds: [t('http_req_duration{endpoint:listExperiments.deep}'), t('http_req_duration{endpoint:calibration}'), t('checks', true)],
    checks: { fails: 0 },
  });
  assert.deepEqual(r, { code: 2, note: 'latency threshold crossed' });
});

test('load outcome: the calibration request alone over its thresholds is a slow machine, not a failure', () => {
  const r = loadFailureKind({
    thresholds: [t('http_req_duration{endpoint:calibration}'), t('http_req_duration{endpoint:listExperiments.deep}', true)],
    checks: { fails: 0 },
  });
  assert.equal(r.code, 0);
  assert.match(r.note, /machine was slow/);
});
