// The fuzz's oracle flags what it must: a 5xx, an error outside the error shape, a malformed request
// accepted, the key echoed; and passes a proper refusal and a proper acceptance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FuzzCase } from './cases.ts';
import { judgeAnswer } from './oracle.ts';

const KEY = 'cc_oracle_key_0123456789';
const c = (expect: FuzzCase['expect']): FuzzCase => ({ category: 't', op: 'createMetric', method: 'POST', url: '/console/v1/metrics', headers: {}, expect });
const kinds = (expect: FuzzCase['expect'], status: number, body: string) => judgeAnswer(c(expect), { status, headers: {}, body }, KEY).map((v) => v.kind);
const error = (status: number) => JSON.stringify({ status, error: 'bad_request', message: 'no' });

test('fuzz oracle: a proper refusal and a proper acceptance pass', () => {
  assert.deepEqual(kinds('reject', 400, error(400)), []);
  assert.deepEqual(kinds('either', 200, '{"message":"ok","data":{}}'), []);
});

test('fuzz oracle: flags 5xx, error shapes, accepted malformed requests and an echoed key', () => {
  assert.deepEqual(kinds('reject', 500, error(500)), ['5xx']);
  assert.deepEqual(kinds('reject', 400, '{"error":"Bad Request","statusCode":400,"message":"x"}'), ['error-shape']);
  assert.deepEqual(kinds('reject', 400, error(404)), ['error-shape'], 'status in the body differs from the answer');
  assert.deepEqual(kinds('reject', 400, JSON.stringify({ status: 400, error: 'bad_request', message: 'two\nlines' })), ['error-shape']);
  assert.deepEqual(kinds('reject', 413, 'Payload Too Large'), ['error-shape']);
  assert.deepEqual(kinds('reject', 200, '{"message":"ok","data":{}}'), ['accepted-malformed']);
  assert.deepEqual(kinds('either', 200, '{"data":{}}'), ['success-shape']);
  assert.deepEqual(kinds('reject', 401, JSON.stringify({ status: 401, error: 'unauthorized', message: `bad key ${KEY}` })), ['key-echoed']);
});
