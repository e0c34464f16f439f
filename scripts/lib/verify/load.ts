// The load stage: the load runner (load/command/run-plan.ts) given verify's load plan, each profile
// against a fresh reference server of its own or the target, compared with the baselines; a regression
// the tolerances found is run again by the runner before it is believed. It runs as a child process
// (load/command/load.ts --plan FILE), so that the deadline can stop it.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worst } from '../../../core/exit.ts';
import { LOAD_SCRIPTS, readCompareFile, readRunSummary, RUN_FILES, type StageResult } from '../../../core/formats.ts';
import { compareRun, printCompare, type CompareResult } from '../../../load/compare/baseline.ts';
import type { LoadPlan } from '../../../load/command/plan.ts';
import { writeTimeSeries } from '../../../report/timeseries.ts';
import { runTsx, stopRunningChild } from './processes.ts';
import { type Run, secs } from './run.ts';

/** The load stage: each load profile against a fresh reference server of its own (like the baselines) or the target, then the compare. */
export async function loadStage(run: Run): Promise<{ stage: StageResult; compare: CompareResult | undefined }> {
  const { opts, reportsDir, config } = run;
  if (run.left() <= 0)
    return {
      stage: { name: 'load', status: 'error', exitCode: 3, seconds: 0, detail: `not run: the deadline of ${config.deadlineSeconds} s passed` },
      compare: undefined,
    };
  const tl = Date.now();
  run.say(`load: Artillery paging and mutation, ${opts.profile} profile, against ${config.baseUrl ?? 'a fresh reference server each'}`);
  const dir = mkdtempSync(join(tmpdir(), 'cc-verify-load-'));
  const plan: LoadPlan = {
    scripts: scriptsOf(run),
    profile: opts.profile,
    seed: 1,
    ...((opts.runners ?? 1) > 1 ? { runners: opts.runners } : {}),
    target: { kind: 'configured' },
    compare: opts.baselines ? { baselinesDir: opts.baselines } : {},
  };
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  // One row per request, written by the load run: the throughput-over-time chart (report/timeseries.ts).
  const runEnv = { ...run.env, LOAD_REQUESTS_CSV: dir };
  // The runner says when each profile starts: the progress line names it.
  let current = plan.scripts[0];
  let ts = Date.now();
  const timer = setInterval(
    () => console.log(`verify: load ${current} (${opts.profile}) ${secs(ts).toFixed(0)} s elapsed`),
    opts.profile === 'smoke' ? 5000 : 15000,
  );
  const onLine = (line: string) => {
    const started = /^load: (\w+) \(\w+\) started$/.exec(line);
    if (started) {
      current = started[1] as typeof current;
      ts = Date.now();
    }
    console.log(line);
  };
  // Past the deadline the running load is stopped; what it wrote stays, the stage is an error (exit 3).
  let deadlinePassed = false;
  const deadlineTimer = setTimeout(
    () => {
      deadlinePassed = true;
      console.error(`verify: stopped: deadline of ${config.deadlineSeconds} s passed during the load stage`);
      stopRunningChild();
    },
    Math.max(0, run.left() * 1000),
  );
  rmSync(join(reportsDir, 'load', 'compare.json'), { force: true });
  let exit: number;
  try {
    exit = await runTsx('load/command/load.ts', ['--plan', planFile], runEnv, onLine);
    for (const script of plan.scripts) {
      const csv = join(dir, `${script}.csv.gz`);
      if (!existsSync(csv)) continue;
      try {
        await writeTimeSeries(script, csv, join(reportsDir, 'load', script, 'timeseries.json'));
      } catch (err) {
        console.error(`verify: no throughput chart for ${script}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
  } finally {
    clearInterval(timer);
    clearTimeout(deadlineTimer);
    rmSync(dir, { recursive: true, force: true });
  }
  // The runner compares when every profile was carried out; otherwise (or past the deadline) the compare is
  // made here for the report alone: the stage is exit 3 whatever it says.
  const compareFile = join(reportsDir, 'load', 'compare.json');
  const compare = existsSync(compareFile) ? readCompareFile(compareFile) : compareForReport(run);
  const mapped: number[] = [exit];
  const parts: string[] = [];
  if (run.config.readOnly) parts.push('mutation not run (read-only: it writes)');
  for (const script of plan.scripts) {
    // The runner has judged each run (load/command/outcome.ts) and kept the verdict in summary.json.
    const verdict = readRunSummary(join(reportsDir, RUN_FILES.summary(script)))?.verdict;
    const code = verdict?.code ?? 3;
    mapped.push(code);
    const warned = verdict?.warnings?.length ? ` (${verdict.warnings.length} inferred ${verdict.warnings.length === 1 ? 'check' : 'checks'} warned)` : '';
    parts.push(`${script} ${verdict?.note ?? (code === 3 ? 'could not run' : `exit ${code}`)}${warned}`);
  }
  const notes = (compare?.confirmation ?? []).map((c) => c.note);
  const code = worst([...mapped, deadlinePassed ? 3 : 0, compare?.verdict === 'regression' ? 2 : 0]);
  if (deadlinePassed) parts.push(`stopped: deadline of ${config.deadlineSeconds} s passed`);
  const stage: StageResult = {
    name: 'load',
    status: code === 0 ? 'pass' : code === 1 ? 'fail' : code === 2 ? 'regression' : 'error',
    exitCode: code,
    seconds: secs(tl),
    detail: `${opts.profile}: ${parts.join(', ')}; compare ${compare?.verdict ?? 'not done'}${notes.length ? `; ${notes.join('; ')}` : ''}`,
  };
  return { stage, compare };
}

/** The compare of what the runs wrote, when the runner made none (a run not carried out, the deadline): for the report. */
function compareForReport(run: Run): CompareResult | undefined {
  if (!existsSync(join(run.reportsDir, 'load'))) return undefined;
  try {
    const c = compareRun({ reportsDir: run.reportsDir, baselinesDir: run.opts.baselines });
    printCompare(c);
    return c;
  } catch (err) {
    console.error(`verify: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** The load scripts this run takes: a read-only run only reads, so the mutation profile is left out. */
const scriptsOf = (run: Run) => (run.config.readOnly ? LOAD_SCRIPTS.filter((s) => s === 'paging') : [...LOAD_SCRIPTS]);
