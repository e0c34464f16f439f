// `baseline:compare --merge` on the folders of runs side by side (each a summary.json with its
// request-duration histograms): the merge adds the histograms exactly, writes one run's summary with its verdict, the compare judges it by the statistical rule, and --history adds
// it to the run history like a run of verify.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../../core/config.ts';
import { readRuns } from '../../core/history.ts';
import { DEFAULT_TOLERANCE, updateBaseline } from '../compare/baseline.ts';
import { histogramOf } from '../compare/samples.ts';
import { seededRandom } from '../compare/stats.ts';
import { mergeRuns } from './merge-runs.ts';

const work = mkdtempSync(join(tmpdir(), 'cc-merge-runs-'));
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * A runner's folder: its summary (figures, thresholds, checks, raw metrics and the request-duration
 * histograms, as a run of load:* or load:cloud --report writes them). `slower` multiplies the endpoint's durations.
 */
function pod(dir: string, index: number, _of: number, slower: number, seed: number): string {
  const random = seededRandom(seed);
  const draw = (n: number, ms: number) => Array.from({ length: n }, () => ms * (0.8 + 0.4 * random()));
  const calibration = draw(150, 2);
  const deep = draw(300, 40 * slower);
  const folder = join(dir, `console-paging-${index}-abcde`);
  mkdirSync(folder, { recursive: true });
  const fig = (d: number[]) => ({
    p50: 1,
    p95: 1,
    p99: 1,
    avg: d.reduce((a, b) => a + b, 0) / d.length,
    max: Math.max(...d),
    count: d.length,
    rps: d.length / 60,
    errorRate: 0,
  });
  writeFileSync(
    join(folder, 'summary.json'),
    JSON.stringify({
      format: 'console-conformance.load-summary/1',
      script: 'paging',
      profile: 'baseline',
      target: 'https://staging.example.com',
      finishedAt: '2026-11-25T03:00:00.000Z',
      durationMs: 60_000,
      thresholdsOk: true,
      checks: { passes: 450, fails: 0, stated: { passes: 450, fails: 0 }, inferred: { passes: 0, fails: 0 }, failed: [] },
      transport: { answers: 450, failures: 0, kinds: {} },
      endpoints: { calibration: fig(calibration), 'listExperiments.deep': fig(deep) },
      thresholds: [{ metric: 'checks{level:stated}', threshold: 'rate>0.999', ok: true }],
      metrics: { 'checks{level:stated}': { type: 'rate', values: { passes: 450, fails: 0, rate: 1 } } },
      samples: {
        format: 'console-conformance.duration-histograms/1',
        endpoints: { calibration: histogramOf(calibration), 'listExperiments.deep': histogramOf(deep) },
      },
    }),
  );
  return folder;
}

test('pods of a TestRun merge into one run that is judged, compared statistically and added to the history', async () => {
  const reportsDir = join(work, 'reports');
  const baselines = join(work, 'baselines');
  const history = join(work, 'history.sqlite');
  const opts = {
    reportsDir,
    baselinesDir: baselines,
    tolerance: DEFAULT_TOLERANCE,
    manifestPath: join(ROOT, 'fixtures/targets/reference.json'),
    strict: false,
  };
  // Last night's TestRun of 2 pods, merged and recorded as the baseline.
  const night1 = [pod(join(work, 'n1'), 1, 2, 1, 1), pod(join(work, 'n1'), 2, 2, 1, 2)];
  assert.equal(await mergeRuns({ ...opts, files: night1 }), 0);
  const merged = JSON.parse(readFileSync(join(reportsDir, 'load/paging/summary.json'), 'utf8'));
  assert.equal(merged.runners, 2);
  assert.equal(merged.merge.percentiles, 'exact');
  assert.equal(merged.endpoints['listExperiments.deep'].count, 600);
  assert.ok(
    Math.abs(merged.endpoints['listExperiments.deep'].p50 / 40 - 1) < 0.05,
    `p50 ${merged.endpoints['listExperiments.deep'].p50} read from the runners' histograms`,
  );
  assert.deepEqual(merged.verdict, { code: 0, note: 'ok', warnings: [] });
  updateBaseline('paging', reportsDir, baselines);
  // Tonight's, the deep page 30% slower on every pod: exit 2, by the statistical rule, and the row in the history.
  const night2 = [pod(join(work, 'n2'), 1, 2, 1.3, 3), pod(join(work, 'n2'), 2, 2, 1.3, 4)];
  assert.equal(await mergeRuns({ ...opts, files: night2, history }), 2);
  const compare = JSON.parse(readFileSync(join(reportsDir, 'load/compare.json'), 'utf8'));
  const deep = compare.profiles.paging.endpoints.find((e: { endpoint: string }) => e.endpoint === 'listExperiments.deep');
  assert.equal(deep.rule, 'statistical');
  assert.deepEqual(deep.flaggedBy, ['statistical']);
  const [run] = readRuns(history);
  assert.equal(run.target, 'https://staging.example.com fixtures/targets/reference.json');
  assert.equal(run.exitCode, 2);
  assert.equal(run.verdict, null);
  assert.equal(run.profile, 'baseline');
  const row = run.endpoints.find((e) => e.endpoint === 'listExperiments.deep')!;
  assert.equal(row.count, 600);
  assert.ok(row.median !== null && Math.abs(row.median / 52 - 1) < 0.05, `median ${row.median}`);
  assert.ok(row.scale !== null);
});

test('runs of different profiles do not merge, and a missing folder is named', async () => {
  const one = pod(join(work, 'n3'), 1, 2, 1, 5);
  const other = pod(join(work, 'n3'), 2, 2, 1, 6);
  const file = join(other, 'summary.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), profile: 'smoke' }));
  await assert.rejects(
    mergeRuns({ files: [one, other], reportsDir: join(work, 'r3'), tolerance: DEFAULT_TOLERANCE, manifestPath: 'm.json', strict: false }),
    /cannot merge paging\/(smoke|baseline) with paging\/(smoke|baseline): one script and profile per merge/,
  );
  await assert.rejects(
    mergeRuns({ files: [join(work, 'nowhere')], reportsDir: join(work, 'r3'), tolerance: DEFAULT_TOLERANCE, manifestPath: 'm.json', strict: false }),
    /no such file or folder/,
  );
});
