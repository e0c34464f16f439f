// junit.xml of a failed test blamed on its clause (support/blame.ts): the failure's message names the
// clause it failed, and the clauses the test did not reach are told apart from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { junitXml } from './junit.ts';
import type { Ran } from './verdict.ts';
import { SPEC_MESSAGES } from '../index.ts';

const failed: Ran = {
  title: 'metrics: a created metric answers the spec message',
  file: 'contracts/conformance/metrics.spec.ts',
  level: 'stated',
  clauses: ['metrics.create.message', 'metric.id.shape', 'metric.field.id'],
  ok: false,
  counts: true,
  durationMs: 12,
  error: `message text (spec 2.1) should be exactly ${JSON.stringify(SPEC_MESSAGES.createMetric)}`,
  exchanges: [],
  observations: [],
  uncovered: [],
  blamed: ['metrics.create.message'],
  unreached: ['metric.id.shape'],
};

test('junit: a failure names the clause it failed, with the unreached clauses apart', () => {
  const xml = junitXml([failed], { strict: false, durationMs: 12 });
  assert.match(xml, /<failure type="stated" message="metrics\.create\.message: message text/);
  assert.match(xml, /<property name="failed-clause" value="metrics\.create\.message"\/>/);
  assert.match(xml, /<property name="unreached-clause" value="metric\.id\.shape"\/>/);
  assert.match(xml, /failed clauses: metrics\.create\.message\nnot reached \(the test stopped at this failure\): metric\.id\.shape/);
  // Every clause the test names stays a property, as before blame.
  assert.equal(xml.match(/<property name="clause"/g)?.length, 3);
});

test('junit: a result from before blame (no blamed clauses) names every clause of the test', () => {
  const { blamed, unreached, ...old } = failed;
  assert.match(junitXml([old], { strict: false, durationMs: 12 }), /message="metrics\.create\.message, metric\.id\.shape, metric\.field\.id: message/);
});
