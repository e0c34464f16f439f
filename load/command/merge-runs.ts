// `baseline:compare --merge`: the runners' summaries (folders copied out of a TestRun's pods, or
// summary.json files) merged per script into reports/load/<script>/summary.json, judged as a run of
// load:* is (on the runner's one verdict path, load/command/outcome.ts), compared with the baseline like a single run, and, with
// --history, added to the run history. The merge itself is load/compare/merge.ts.
import { mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../../core/config.ts';
import { worst } from '../../core/exit.ts';
import { type RunSummary, type Tolerance, writeRunSummary } from '../../core/formats.ts';
import { loadHistoryRun, recordRun } from '../../core/history.ts';
import { compareRun, printCompare } from '../compare/baseline.ts';
import { mergedExit, mergeSummaries } from '../compare/merge.ts';
import { readRunnerSummary } from '../compare/runner-files.ts';
import { judgeSummary } from './outcome.ts';

export interface MergeRunsOptions {
  files: string[];
  reportsDir: string;
  baselinesDir?: string;
  tolerance: Tolerance;
  out?: string;
  /** Add the merged run to this run history file. */
  history?: string;
  /** The target manifest the runners used, for the history's target (as verify names it). */
  manifestPath: string;
  strict: boolean;
}

/** Resolves to the exit code: the worst of the merged runs' verdicts, and 2 on a regression. */
export async function mergeRuns(o: MergeRunsOptions): Promise<number> {
  const byScript = new Map<string, RunSummary[]>();
  for (const f of o.files) {
    const s = await readRunnerSummary(f);
    byScript.set(s.script, [...(byScript.get(s.script) ?? []), s]);
  }
  const codes: number[] = [];
  const merged: RunSummary[] = [];
  for (const [script, runners] of byScript) {
    const m = mergeSummaries(runners);
    const dir = join(o.reportsDir, 'load', script);
    mkdirSync(dir, { recursive: true });
    writeRunSummary(join(dir, 'summary.json'), m);
    const requests = Object.values(m.endpoints).reduce((n, e) => n + e.count, 0);
    const how = (m.merge as { percentiles?: string } | undefined)?.percentiles === 'exact' ? 'percentiles exact' : 'percentiles approximate (no histograms)';
    console.log(
      `baseline: merged ${m.runners} runners of ${script} (${m.profile}): ${requests} requests, ${how} -> ${relative(ROOT, join(dir, 'summary.json'))}`,
    );
    codes.push(judgeSummary(join(dir, 'summary.json'), mergedExit(m), { label: 'baseline', script }));
    merged.push(m);
  }
  const result = compareRun({ scripts: [...byScript.keys()], reportsDir: o.reportsDir, baselinesDir: o.baselinesDir, tolerance: o.tolerance, out: o.out });
  printCompare(result);
  const code = worst([...codes, result.verdict === 'regression' ? 2 : 0]);
  if (o.history) {
    const first = merged[0];
    const t = first.target;
    const manifest = relative(ROOT, o.manifestPath).startsWith('..') ? o.manifestPath : relative(ROOT, o.manifestPath);
    const finished = Date.parse(String(first.finishedAt ?? '')) || Date.now();
    const row = loadHistoryRun({
      startedAt: new Date(finished - first.durationMs).toISOString(),
      target: `${t === undefined ? 'unknown' : t.kind === 'external' ? t.origin : 'reference'} ${manifest}`,
      exitCode: code,
      strict: o.strict,
      profile: first.profile,
      runs: merged.map((m) => ({ script: m.script, summary: m, scale: result.profiles[m.script]?.calibration.scale ?? null })),
    });
    if (recordRun(o.history, row, (line) => console.error(`baseline: ${line}`))) console.log(`baseline: merged run added to the history ${o.history}`);
  }
  return code;
}
