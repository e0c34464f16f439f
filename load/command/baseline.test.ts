// The baseline compare: a slower endpoint is a regression, a machine that is slower across the board
// (calibration included) is not; and the merge of several runners, on two real load runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  compareRun,
  compareSummary,
  DEFAULT_TOLERANCE,
  mergeSummaries,
  needsConfirmation,
  updateBaseline,
  type Figures,
  type RunSummary,
} from '../compare/baseline.ts';
import { ROOT } from '../../core/config.ts';
import { readRunSummary } from '../../core/formats.ts';
import { startReference } from '../../core/reference.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';

const fig = (p50: number, count = 200, rps = 10, errorRate = 0): Figures => ({ p50, p95: p50 * 2, p99: p50 * 3, count, rps, errorRate });
const summary = (endpoints: Record<string, Figures>, profile = 'baseline'): RunSummary => ({
  format: 'console-conformance.load-summary/1',
  script: 'paging',
  profile,
  durationMs: 60_000,
  endpoints,
});

const base = summary({ calibration: fig(2), 'listExperiments.page1': fig(10), 'listExperiments.deep': fig(12) });

test('compare flags an endpoint four times slower on the same machine, and names it', () => {
  const run = summary({ calibration: fig(2), 'listExperiments.page1': fig(10), 'listExperiments.deep': fig(48) });
  const r = compareSummary(run, base, 'paging.json');
  assert.equal(r.verdict, 'regression');
  const deep = r.endpoints.find((e) => e.endpoint === 'listExperiments.deep')!;
  assert.equal(deep.regression, true);
  assert.match(deep.reason, /^p50 48 ms is 4x the calibrated baseline 12 ms/);
  assert.equal(r.endpoints.find((e) => e.endpoint === 'listExperiments.page1')!.regression, false);
});

test('compare does not flag a machine that is three times slower across the board, calibration included', () => {
  const run = summary({ calibration: fig(6), 'listExperiments.page1': fig(30), 'listExperiments.deep': fig(36) });
  const r = compareSummary(run, base, 'paging.json');
  assert.equal(r.calibration.scale, 3);
  assert.equal(r.verdict, 'pass', JSON.stringify(r.endpoints));
  for (const e of r.endpoints) assert.equal(e.ratio!.p95, 1);
});

test('compare flags a dropped throughput and a higher error rate', () => {
  const run = summary({ calibration: fig(2), 'listExperiments.page1': fig(10, 200, 5), 'listExperiments.deep': fig(12, 200, 10, 0.05) });
  const r = compareSummary(run, base, 'paging.json');
  const [deep, page1] = r.endpoints;
  assert.match(page1.reason, /throughput 5\/s is below 0.8 of the baseline 10\/s/);
  assert.match(deep.reason, /error rate 5% is above the baseline 0%/);
  assert.deepEqual([page1.flaggedBy, deep.flaggedBy], [['throughput'], ['errors']]);
  assert.equal(needsConfirmation(r), true);
});

test('differences under the noise floor are not regressions, whatever their ratio', () => {
  const tiny = summary({ calibration: fig(1), 'listExperiments.page1': fig(0.5) });
  const run = summary({ calibration: fig(1), 'listExperiments.page1': fig(2) });
  assert.equal(compareSummary(run, tiny, 'x').verdict, 'pass');
  assert.equal(compareSummary(run, tiny, 'x', { ...DEFAULT_TOLERANCE, minDeltaMs: 0.1 }).verdict, 'regression');
});

test('no baseline, or a baseline of another profile, is "no-baseline" with the reason', () => {
  assert.equal(compareSummary(base, null, 'load/baselines/paging.json').verdict, 'no-baseline');
  const other = compareSummary(summary(base.endpoints, 'smoke'), base, 'paging.json');
  assert.equal(other.verdict, 'no-baseline');
  assert.match(other.reason, /profile baseline, the run of smoke/);
});

test('merge adds counts and throughput, weights error rates and percentiles by count', () => {
  const a = summary({ calibration: fig(2, 100, 5), e: { ...fig(10, 100, 5, 0.02), max: 40 } });
  const b = summary({ calibration: fig(4, 300, 5), e: { ...fig(20, 300, 15, 0), max: 90 } });
  const m = mergeSummaries([a, b]);
  assert.deepEqual(m.endpoints.e, { p50: 17.5, p95: 35, p99: 52.5, avg: 0, max: 90, count: 400, rps: 20, errorRate: 0.005 });
  assert.equal(m.runners, 2);
  assert.throws(() => mergeSummaries([a, { ...b, script: 'mutation' }]), /one script and profile per merge/);
});

const work = mkdtempSync(join(tmpdir(), 'baseline-merge-'));
after(() => rmSync(work, { recursive: true, force: true }));

function loadRun(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'load/command/load.ts'), 'paging'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((done) => child.on('exit', (code) => done({ code, out })));
}

test('two real load runs side by side against one target merge into one summary that compare reads', { timeout: 120_000 }, async () => {
  const server = await startReference({ stderr: 'ignore' });
  try {
    const env = (dir: string) => ({ ...process.env, CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: join(work, dir) });
    // At the same time, as two load generators on two machines would be.
    const [a, b] = await Promise.all([loadRun(env('a')), loadRun(env('b'))]);
    assert.equal(a.code, 0, a.out);
    assert.equal(b.code, 0, b.out);
  } finally {
    await server.stop();
  }
  const files = ['a', 'b'].map((d) => join(work, d, 'load/paging/summary.json'));
  const [sa, sb] = files.map((f) => readRunSummary(f)!);
  const merged = mergeSummaries([sa, sb]);
  for (const name of Object.keys(merged.endpoints)) {
    const [ea, eb, m] = [sa.endpoints[name], sb.endpoints[name], merged.endpoints[name]];
    assert.equal(m.count, ea.count + eb.count, name);
    assert.ok(Math.abs(m.rps - (ea.rps + eb.rps)) < 1e-9, name);
    // The whole run's p95 lies between the runners' (read from the merged histogram: each duration within 1%, a few requests
    // interpolated between buckets). With a handful of requests a run's own p95 interpolates between far-apart durations, so
    // there only the bound every p95 keeps holds: at most the slowest request seen.
    if (ea.count >= 20 && eb.count >= 20)
      assert.ok(m.p95 >= Math.min(ea.p95, eb.p95) * 0.97 && m.p95 <= Math.max(ea.p95, eb.p95) * 1.03, `${name}: ${m.p95} vs ${ea.p95}, ${eb.p95}`);
    else
      assert.ok(
        m.p95 <= Math.max(ea.max ?? Number.POSITIVE_INFINITY, eb.max ?? Number.POSITIVE_INFINITY) * 1.03,
        `${name}: ${m.p95} vs max ${ea.max}, ${eb.max}`,
      );
  }
  assert.ok(merged.endpoints.calibration.count > 0);
  // The --merge path of compare, first with no baseline, then with runner a's run as the baseline.
  const out = join(work, 'compare.json');
  assert.equal(compareRun({ merge: files, baselinesDir: join(work, 'baselines'), out }).verdict, 'no-baseline');
  // A baseline of one runner does not serve two (load/compare/baseline.ts); one of the merged pair does.
  updateBaseline('paging', join(work, 'a'), join(work, 'baselines'));
  assert.match(
    compareRun({ merge: files, baselinesDir: join(work, 'baselines'), out }).profiles.paging.reason,
    /recorded with 1 runner, this run with 2 runners/,
  );
  // Runner a's figures as a two-runner baseline: the compare reads them against the merged run.
  writeFileSync(join(work, 'baselines', 'paging.json'), JSON.stringify({ ...sa, runners: 2 }));
  const result = compareRun({ merge: files, baselinesDir: join(work, 'baselines'), out });
  assert.notEqual(result.verdict, 'no-baseline');
  const written = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(written.verdict, result.verdict);
  const deep = written.profiles.paging.endpoints.find((e: any) => e.endpoint === 'listExperiments.deep');
  assert.equal(deep.count, merged.endpoints['listExperiments.deep'].count);
  assert.equal(deep.baseline.count, sa.endpoints['listExperiments.deep'].count);
  assert.equal(typeof deep.ratio.p95, 'number');
  assert.equal(compareSummary(merged, merged, 'self').verdict, 'pass');
});

/** One of the commands (load/command/load.ts, load/command/baseline.ts) as a user runs it, with only the environment given. */
function command(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((done) => child.on('exit', (code) => done({ code, out })));
}

test('with CONSOLE_REPORTS_DIR set, baseline:update records the run load:paging wrote there, and compare reads it', { timeout: 120_000 }, async () => {
  const reports = join(work, 'reports-dir');
  const baselines = join(work, 'reports-dir-baselines');
  mkdirSync(baselines, { recursive: true });
  const env = { CONSOLE_REPORTS_DIR: reports };
  const load = await command('load/command/load.ts', ['paging'], env);
  assert.equal(load.code, 0, load.out);
  const run = JSON.parse(readFileSync(join(reports, 'load/paging/summary.json'), 'utf8')) as RunSummary;

  const update = await command('load/command/baseline.ts', ['update', '--script', 'paging', '--baselines', baselines], env);
  assert.equal(update.code, 0, update.out);
  assert.equal(update.out.trim(), `baseline: wrote ${join(baselines, 'paging.json')}`);
  // That run and no other: its figures, and the time it finished (another run has other counts and another time).
  const recorded = JSON.parse(readFileSync(join(baselines, 'paging.json'), 'utf8'));
  assert.equal(recorded.profile, 'smoke');
  assert.equal(typeof run.finishedAt, 'string');
  assert.equal(recorded.recordedAt, run.finishedAt);
  assert.deepEqual(recorded.endpoints, run.endpoints);

  const compare = await command('load/command/baseline.ts', ['compare', '--script', 'paging', '--baselines', baselines], env);
  assert.equal(compare.code, 0, compare.out);
  assert.match(compare.out, /^compare paging \(smoke\): pass/m);
  // Written beside the run it read: the run set against itself passes, endpoint by endpoint.
  const written = JSON.parse(readFileSync(join(reports, 'load/compare.json'), 'utf8'));
  assert.equal(written.profiles.paging.baselineFile, join(baselines, 'paging.json'));
  assert.equal(written.profiles.paging.verdict, 'pass');
  const deep = written.profiles.paging.endpoints.find((e: any) => e.endpoint === 'listExperiments.deep');
  assert.equal(deep.count, run.endpoints['listExperiments.deep'].count);
  assert.equal(deep.baseline.count, run.endpoints['listExperiments.deep'].count);
});

test('baseline: --baselines must name a folder', async () => {
  const r = await command('load/command/baseline.ts', ['update', '--baselines', join(work, 'no-such-folder')], {});
  assert.equal(r.code, 3);
  assert.equal(r.out.trim(), `baseline: --baselines: no folder ${join(work, 'no-such-folder')}`);
});
