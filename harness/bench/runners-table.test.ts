// bench:runners' table: per endpoint the requests and percentiles of each runner count, and each one's ratio to the first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Figures, RunSummary } from '../../core/formats.ts';
import { runnersTable } from './runners-table.ts';

const fig = (count: number, p50: number, p95: number): Figures => ({ count, p50, p95, p99: p95, rps: count / 60, errorRate: 0 });
const summary = (endpoints: Record<string, Figures>): RunSummary => ({ format: 'f', script: 'paging', profile: 'baseline', durationMs: 60_000, endpoints });

test('one row per endpoint, the ratios to the first run, and the request totals', () => {
  const text = runnersTable([
    { runners: 1, seconds: 70, summary: summary({ calibration: fig(300, 1, 4), 'listExperiments.deep': fig(600, 2, 8) }) },
    { runners: 2, seconds: 72, summary: summary({ calibration: fig(300, 1.5, 6), 'listExperiments.deep': fig(594, 3, 8) }) },
  ]);
  const lines = text.split('\n');
  assert.equal(lines[0], '| endpoint | 1 runner: requests, p50, p95 (ms) | 2 runners: requests, p50, p95 (ms) | 2 vs 1: requests, p50, p95 |');
  assert.equal(lines[2], '| calibration | 300, 1.00, 4.00 | 300, 1.50, 6.00 | 1.00x, 1.50x, 1.50x |');
  assert.equal(lines[3], '| listExperiments.deep | 600, 2.00, 8.00 | 594, 3.00, 8.00 | 0.99x, 1.50x, 1.00x |');
  assert.equal(lines[4], '| all requests | 900 | 894 | 0.99x |');
});
