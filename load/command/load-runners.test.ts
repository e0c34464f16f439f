// `npm run load:paging -- --runners 2` against the reference: two Artillery processes sharing the
// arrival rates end in one merged summary that says how many runners made it, with the request total
// of one runner, and each runner's Artillery report.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnLoad } from './spawn-load.ts';
import { after, test } from 'node:test';

const work = mkdtempSync(join(tmpdir(), 'cc-load-runners-'));
after(() => rmSync(work, { recursive: true, force: true }));

const load = spawnLoad;

interface Summary {
  runners?: number;
  verdict: { code: number };
  endpoints: Record<string, { count: number }>;
  samples?: unknown;
}
const total = (s: Summary) => Object.values(s.endpoints).reduce((n, e) => n + e.count, 0);

test('load:paging --profile smoke --runners 2 exits 0, its merged summary says "runners": 2, its request total within 15% of one runner', {
  timeout: 180_000,
}, async () => {
  const one = await load(['paging', '--profile', 'smoke'], join(work, 'one'));
  assert.equal(one.code, 0, one.out);
  const two = await load(['paging', '--profile', 'smoke', '--runners', '2'], join(work, 'two'));
  assert.equal(two.code, 0, two.out);
  assert.match(two.out, /load: paging: 2 Artillery runners, every worker's records merged/);
  const read = (dir: string) => JSON.parse(readFileSync(join(work, dir, 'load/paging/summary.json'), 'utf8')) as Summary;
  const single = read('one');
  const merged = read('two');
  assert.equal(merged.runners, 2);
  assert.equal(merged.verdict.code, 0);
  assert.ok(merged.samples, 'the merged summary keeps its histograms for the statistical compare');
  const ratio = total(merged) / total(single);
  assert.ok(Math.abs(ratio - 1) <= 0.15, `2 runners ${total(merged)} requests, 1 runner ${total(single)}`);
  for (const i of [1, 2]) assert.ok(existsSync(join(work, 'two', `load/paging/runners/${i}/artillery.json`)), `runner ${i}'s Artillery report`);
});

test('--runners 2 with config.ensure: the limits are judged once, on the runners merged: a count each half keeps is broken by the whole run (exit 2)', {
  timeout: 180_000,
}, async () => {
  // 20 arrivals a second for 4 s, shared 10 and 10; one in four is the calibration job (about 20 in all, 10 a runner).
  const shape = {
    config: {
      phases: [{ duration: 4, arrivalRate: 20 }],
      ensure: {
        thresholds: [{ 'console.calibration.max': 60_000 }],
        conditions: [{ expression: 'console.calibration.requests < 16' }],
      },
    },
  };
  const r = await load(['paging', '--runners', '2', '--overrides', JSON.stringify(shape)], join(work, 'ensure'));
  assert.equal(r.code, 2, r.out);
  assert.match(r.out, /load: paging: limit broken: endpoint calibration: console\.calibration\.requests < 16 \(exit 2\)/);
  assert.doesNotMatch(r.out, /runner \d\)/, 'one verdict per limit, not one per runner');
  const summary = JSON.parse(readFileSync(join(work, 'ensure', 'load/paging/summary.json'), 'utf8')) as Summary & {
    shape: { limits: { check: string; ok: boolean; runner?: number }[] };
  };
  assert.deepEqual(
    summary.shape.limits.map((l) => [l.check, l.ok, l.runner]),
    [
      ['console.calibration.max < 60000', true, undefined],
      ['console.calibration.requests < 16', false, undefined],
    ],
  );
  assert.ok(summary.endpoints.calibration.count >= 16, `${summary.endpoints.calibration.count} calibration requests in all`);
  // Each runner's own share would have held the count limit: Artillery judging each alone would have passed it.
  for (const i of [1, 2]) {
    const own = JSON.parse(readFileSync(join(work, 'ensure', `load/paging/runners/${i}/artillery.json`), 'utf8')) as {
      aggregate: { counters: Record<string, number> };
    };
    assert.ok(own.aggregate.counters['console.calibration.requests'] < 16, `runner ${i}: ${own.aggregate.counters['console.calibration.requests']}`);
  }
});

test('--runners is 1 to 16, else one line and exit 3 before anything runs', async () => {
  const r = await load(['paging', '--runners', '0'], join(work, 'bad'));
  assert.equal(r.code, 3);
  assert.equal(r.out, 'load: --runners must be an integer from 1 to 16, got "0"\n');
});
