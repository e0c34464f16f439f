import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TOLERANCE } from '../baseline.ts';
import type { EndpointDetection } from '../detect.ts';
import type { RuleInput } from './rule.ts';
import { statisticalFigures, statisticalRule } from './statistical.ts';

const detection = (decidable: boolean, regression: boolean): EndpointDetection => ({
  endpoint: 'listGates',
  regression,
  decidable,
  effect: 1.23456,
  lower: 1.1,
  upper: 1.4,
  p: 0.0001,
  alpha: 0.005,
  method: 'asymptotic',
  n: { run: 400, base: 400 },
  median: { run: 12, calibratedBase: 10 },
  reason: 'median 23% slower',
});
const f = { p50: 10, p95: 20, p99: 30, count: 400, rps: 50, errorRate: 0 };
const input = (d: EndpointDetection | undefined): RuleInput => ({ run: f, baseline: f, scale: 1, tolerance: DEFAULT_TOLERANCE, detection: d });

test('statistical: judges only an endpoint its test could decide', () => {
  assert.equal(statisticalRule.applies(input(undefined)), false);
  assert.equal(statisticalRule.applies(input(detection(false, false))), false);
  assert.equal(statisticalRule.applies(input(detection(true, false))), true);
});

test("statistical: a regression is reported with the test's own reason", () => {
  assert.deepEqual(statisticalRule.judge(input(detection(true, true))), ['latency median 23% slower']);
  assert.deepEqual(statisticalRule.judge(input(detection(true, false))), []);
});

test("statistical: the figures kept in compare.json are the test's, rounded", () => {
  const s = statisticalFigures(detection(true, true));
  assert.equal(s.effect, 1.235);
  assert.deepEqual(s.n, { run: 400, base: 400 });
  assert.equal(s.reason, 'median 23% slower');
});
