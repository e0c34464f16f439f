import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../../core/config.ts';
import { startReference } from '../../core/reference.ts';
import { histogramCount, histogramOf, histogramQuantile, mergeHistograms, mergeRunSamples, toSamples } from './samples.ts';
import { quantile, seededRandom } from './stats.ts';
import { splitCsvLine } from '../../core/csv.ts';

test('a histogram keeps every request and gives quantiles within 1% of the raw ones', () => {
  const random = seededRandom(3);
  const raw = Array.from({ length: 5000 }, () => 40 * Math.exp(0.4 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())));
  const h = histogramOf(raw);
  assert.equal(histogramCount(h), 5000);
  for (const q of [0.05, 0.5, 0.95, 0.99]) {
    const exact = quantile(raw, q);
    assert.ok(Math.abs(histogramQuantile(h, q) / exact - 1) <= 0.0101, `q ${q}: ${histogramQuantile(h, q)} vs ${exact}`);
  }
  // Log-normal over a factor of about 10: some 120 buckets, a few hundred bytes of JSON for 5000 requests.
  assert.ok(h.counts.length < 160, `${h.counts.length} buckets`);
  assert.ok(JSON.stringify(h).length < 1200);
});

test('toSamples gives the durations back in ascending order, each within 1% of its request', () => {
  const h = histogramOf([10, 10.1, 3, 250]);
  assert.deepEqual(
    h.counts.reduce((a, b) => a + b, 0),
    4,
  );
  const back = Array.from(toSamples(h));
  for (const [i, v] of [3, 10, 10.1, 250].entries()) assert.ok(Math.abs(back[i] / v - 1) <= 0.01, `${back[i]} for ${v}`);
  assert.deepEqual(
    back,
    [...back].sort((a, b) => a - b),
  );
  assert.equal(toSamples(histogramOf([])).length, 0);
  assert.equal(histogramCount(histogramOf([0, -1])), 2, 'a zero duration counts, in the lowest bucket');
});

test('merging histograms adds the counts, whatever the overlap', () => {
  const a = histogramOf([1, 2, 3]);
  const b = histogramOf([2, 200]);
  const m = mergeHistograms(a, b);
  assert.equal(histogramCount(m), 5);
  assert.deepEqual(Array.from(toSamples(m)), Array.from(toSamples(histogramOf([1, 2, 3, 2, 200]))));
  assert.deepEqual(mergeHistograms(histogramOf([]), b), b);
  assert.throws(() => mergeHistograms(a, histogramOf([1], 1.05)), /growth/);
  const runs = mergeRunSamples([
    { format: 'console-conformance.duration-histograms/1', endpoints: { x: a } },
    { format: 'console-conformance.duration-histograms/1', endpoints: { x: b, y: b } },
  ]);
  assert.equal(histogramCount(runs.endpoints.x), 5);
  assert.equal(histogramCount(runs.endpoints.y), 2);
});
