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

test('--runners is 1 to 16, else one line and exit 3 before anything runs', async () => {
  const r = await load(['paging', '--runners', '0'], join(work, 'bad'));
  assert.equal(r.code, 3);
  assert.equal(r.out, 'load: --runners must be an integer from 1 to 16, got "0"\n');
});
