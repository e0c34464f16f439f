// The load stage: each load profile (Artillery) against a fresh reference server of its own or the
// target, the compare with the baselines, and a second run of a regression the tolerances found.
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { worst } from '../../../core/exit.ts';
import { LOAD_SCRIPTS, readRunSummary, RUN_FILES, type StageResult } from '../../../core/formats.ts';
import { compareRun, needsConfirmation, printCompare, type CompareResult } from '../../../load/compare/baseline.ts';
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
  const loadEnv: NodeJS.ProcessEnv = { ...run.env };
  const tl = Date.now();
  run.say(`load: Artillery paging and mutation, ${opts.profile} profile, against ${config.baseUrl ?? 'a fresh reference server each'}`);
  const csvDir = mkdtempSync(join(tmpdir(), 'cc-verify-load-'));
  const codes: Record<string, number> = {};
  const notes: string[] = [];
  let compare: CompareResult | undefined;
  const runScript = async (script: string) => {
    const csv = join(csvDir, `${script}.csv.gz`);
    rmSync(csv, { force: true });
    // One row per request, written by the load run: the throughput-over-time chart (report/timeseries.ts).
    const runEnv = { ...loadEnv, LOAD_REQUESTS_CSV: csvDir };
    const ts = Date.now();
    const timer = setInterval(
      () => console.log(`verify: load ${script} (${opts.profile}) ${secs(ts).toFixed(0)} s elapsed`),
      opts.profile === 'smoke' ? 5000 : 15000,
    );
    try {
      const runners = (opts.runners ?? 1) > 1 ? ['--runners', String(opts.runners)] : [];
      codes[script] = await runTsx('load/command/load.ts', [script, '--profile', opts.profile, ...runners], runEnv, (line) => console.log(line));
    } finally {
      clearInterval(timer);
    }
    if (existsSync(csv)) {
      try {
        await writeTimeSeries(script, csv, join(reportsDir, 'load', script, 'timeseries.json'));
      } catch (err) {
        console.error(`verify: no throughput chart for ${script}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
  };
  const compareNow = () => {
    if (!existsSync(join(reportsDir, 'load'))) return undefined;
    try {
      const c = compareRun({ reportsDir, baselinesDir: opts.baselines });
      printCompare(c);
      return c;
    } catch (err) {
      console.error(`verify: ${(err as Error).message.split('\n')[0]}`);
      return undefined;
    }
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
  try {
    for (const script of scriptsOf(run)) if (!deadlinePassed) await runScript(script);
    compare = compareNow();
    // A regression found by the tolerances is run again, and the second run's figures stand; one
    // found by the statistical rule alone stands on one run (needsConfirmation says why).
    const regressed = Object.values(compare?.profiles ?? {})
      .filter((p) => p.verdict === 'regression' && codes[p.script] === 0 && needsConfirmation(p))
      .map((p) => p.script);
    for (const p of Object.values(compare?.profiles ?? {}))
      if (p.verdict === 'regression' && codes[p.script] === 0 && !needsConfirmation(p))
        notes.push(`${p.script} regression found by the statistical rule (one run is enough)`);
    if (regressed.length) {
      renameSync(join(reportsDir, 'load', 'compare.json'), join(reportsDir, 'load', 'compare.first-run.json'));
      console.log(`verify: ${regressed.join(' and ')} regressed: running ${regressed.length > 1 ? 'them' : 'it'} again to confirm`);
      for (const script of regressed) await runScript(script);
      compare = compareNow();
      for (const script of regressed)
        notes.push(
          compare?.profiles[script]?.verdict === 'regression'
            ? `${script} regression confirmed by a second run`
            : `${script} regressed on a first run but not on a second (kept the second; the first is in load/compare.first-run.json)`,
        );
    }
  } finally {
    clearTimeout(deadlineTimer);
    rmSync(csvDir, { recursive: true, force: true });
  }
  const mapped: number[] = [];
  const parts: string[] = [];
  if (run.config.readOnly) parts.push('mutation not run (read-only: it writes)');
  for (const script of scriptsOf(run)) {
    // load.ts has judged its run already (load/command/outcome.ts) and kept the verdict in summary.json.
    const code = codes[script];
    const verdict = readRunSummary(join(reportsDir, RUN_FILES.summary(script)))?.verdict;
    mapped.push(code);
    const warned = verdict?.warnings?.length ? ` (${verdict.warnings.length} inferred ${verdict.warnings.length === 1 ? 'check' : 'checks'} warned)` : '';
    parts.push(`${script} ${verdict?.note ?? (code === 0 ? 'ok' : code === 3 ? 'could not run' : `exit ${code}`)}${warned}`);
  }
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

/** The load scripts this run takes: a read-only run only reads, so the mutation profile is left out. */
const scriptsOf = (run: Run) => (run.config.readOnly ? LOAD_SCRIPTS.filter((s) => s === 'paging') : LOAD_SCRIPTS);
