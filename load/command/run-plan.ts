// The one runner of load: every entry (`load:*`, verify's load stage, `candidate --latency`, the
// benchmarks, `load:* --export`, load:cloud) builds a load plan (load/command/plan.ts) and hands it to
// runPlan. One preparation (load/command/prepare.ts; the writes' snapshot and restore: side-writes.ts), then one loop over the profiles on one side (the
// configured target, or a reference server started for each) or two (a current/candidate pair, every
// request sent to both), or, for a prepared run, the folder Artillery runs elsewhere; one verdict path
// (load/command/outcome.ts); the compare with the baselines and the policy of confirming a regression
// by a second run. The paired statistics are load/compare/paired-judge.ts's.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError, requestRowsDirFromEnv } from '../../core/config.ts';
import { worst } from '../../core/exit.ts';
import type { CandidateLatency, CompareConfirmation, LoadScript, Side } from '../../core/formats.ts';
import { restoredLine } from '../../core/ledger.ts';
import { type ReferenceServer, startReference } from '../../core/reference.ts';
import { runProfile } from '../artillery/run.ts';
import { compareRun, needsConfirmation, printCompare } from '../compare/baseline.ts';
import { measuredAgainst } from '../compare/measured-against.ts';
import { judgePairedRuns, type PairedRun, pairedRunUnjudged } from '../compare/paired-judge.ts';
import { judgeSummary, latencyCode } from './outcome.ts';
import { checkPlan, type LoadPlan, type PairedSides, type SystemUnderTest } from './plan.ts';
import { assertNoKey, clearPairReports, type KeyedSide, prepareFolder, prepareRun, type PreparedRun, startedSide, workerEnv } from './prepare.ts';
import { pairWrites, withSnapshots, type Writes } from './side-writes.ts';

export interface PlanResult {
  /** The exit code: the worst of the profiles' verdicts, 2 on a regression (confirmed where it needs to be). */
  code: number;
  /** A pair's side-by-side verdict. */
  latency?: CandidateLatency;
  /** A prepared run: the files of each profile in the plan's folder, its Artillery script first. */
  prepared?: { script: LoadScript; files: string[] }[];
}

/** Runs a load plan; resolves to what every entry reads its exit code and its report from. */
export async function runPlan(plan: LoadPlan): Promise<PlanResult> {
  checkPlan(plan);
  if (plan.prepare) return prepared(plan);
  const t0 = Date.now();
  const first = await runPass(plan, plan.scripts);
  if (first.latency) return { code: latencyCode(first.latency), latency: first.latency };
  const { codes, reportsDir } = first;
  const scripts = Object.keys(codes) as LoadScript[];
  console.log(`load: ${scripts.join(' + ')} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (!plan.compare || Object.values(codes).includes(3)) return { code: worst(Object.values(codes)) };
  const compareNow = () => compareRun({ scripts, reportsDir, baselinesDir: plan.compare?.baselinesDir });
  let compare = compareNow();
  printCompare(compare);
  // A regression a rule other than the statistical one flagged (needsConfirmation says why) is run again before
  // it is believed, and only when its run passed otherwise; one the statistical rule alone found stands on one run.
  const rerun: LoadScript[] = [];
  const confirmation: CompareConfirmation[] = [];
  for (const p of Object.values(compare.profiles)) {
    const script = p.script as LoadScript;
    if (p.verdict !== 'regression' || codes[script] !== 0) continue;
    if (needsConfirmation(p)) rerun.push(script);
    else confirmation.push({ script, rerun: false, confirmed: true, note: `${script} regression found by the statistical rule (one run is enough)` });
  }
  if (rerun.length) {
    renameSync(join(reportsDir, 'load', 'compare.json'), join(reportsDir, 'load', FIRST_RUN));
    console.log(`load: ${rerun.join(' and ')} regressed: running ${rerun.length > 1 ? 'them' : 'it'} again to confirm`);
    Object.assign(codes, (await runPass(plan, rerun)).codes);
    compare = compareNow();
    printCompare(compare);
    for (const script of rerun) {
      const again = compare.profiles[script]?.verdict === 'regression';
      const note = again
        ? `${script} regression confirmed by a second run`
        : `${script} regressed on a first run but not on a second (kept the second; the first is in load/${FIRST_RUN})`;
      confirmation.push({ script, rerun: true, confirmed: again, note });
    }
  }
  if (confirmation.length) {
    compare = { ...compare, confirmation };
    writeFileSync(join(reportsDir, 'load', 'compare.json'), `${JSON.stringify(compare, null, 2)}\n`);
  }
  for (const c of confirmation) console.log(`load: ${c.note}`);
  return { code: worst([...Object.values(codes), compare.verdict === 'regression' ? 2 : 0]) };
}

/** A prepared run: each profile's folder written and scanned for the key, nothing sent but the setup's probes. */
async function prepared(plan: LoadPlan): Promise<PlanResult> {
  const run = await prepareRun(plan);
  const out: NonNullable<PlanResult['prepared']> = [];
  try {
    for (const script of run.scripts) {
      console.log(`${label(plan)}: ${script} (${plan.profile}) started`);
      out.push({ script, files: await prepareFolder(run, script) });
    }
    assertNoKey(run.dataDir, run.sides?.[0]?.apiKey ?? '');
  } catch (err) {
    // A folder that may hold the key, or half of a run, is not kept.
    rmSync(run.dataDir, { recursive: true, force: true });
    throw err;
  }
  return { code: 0, prepared: out };
}

const label = (plan: LoadPlan) => (plan.target.kind === 'pair' ? 'candidate: latency' : plan.prepare?.for === 'cloud' ? 'load:cloud' : 'load');

type Pass = Pick<PlanResult, 'latency'> & { codes: Partial<Record<LoadScript, number>>; reportsDir: string };

/**
 * One pass of the plan's profiles, each on its side or sides; a one-sided run with no target configured
 * gets a reference server started for each profile's run, fresh as the baselines' were. A pair stops at
 * its first run that cannot be judged, its verdict 'not carried out' with the reason.
 */
async function runPass(plan: LoadPlan, scripts: LoadScript[]): Promise<Pass> {
  const run = await prepareRun(plan, scripts);
  const pair = plan.target.kind === 'pair' ? plan.target : undefined;
  if (pair) clearPairReports(pair.reportDir);
  let server: ReferenceServer | undefined;
  // A signal (verify's deadline, CI cancelling a job) stops the reference server and starts no further profile.
  let stopped: string | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stopped = signal;
    void server?.stop();
  };
  // Not once: a second signal must not cut the restore of what the mutation profile wrote.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const codes: Partial<Record<LoadScript, number>> = {};
  const runs: PairedRun[] = [];
  const ledgers: Partial<Record<Side, string>> = {};
  const notes = run.sidePlan?.notes.length ? { notes: run.sidePlan.notes } : {};
  const verdict = (l: CandidateLatency): CandidateLatency => ({ ...l, ...(Object.keys(ledgers).length ? { ledgers } : {}), ...notes });
  const judge = (runs: PairedRun[], p: PairedSides) =>
    judgePairedRuns(runs, { profile: plan.profile, minEffect: p.minEffect, seed: plan.seed, reports: relative(p.reportsRoot, p.reportDir) });
  try {
    for (const script of run.scripts) {
      if (stopped) throw new ConfigError(`stopped by ${stopped} before the ${script} profile`);
      let sides = run.sides;
      if (!sides) {
        // No sides: a one-sided run (a pair's are given), whose target shapes the server.
        const sut = plan.target as SystemUnderTest;
        server = await startReference({ apiKey: run.env.CONSOLE_API_KEY || undefined, scale: sut.scale, ...sut.reference, stderr: 'pipe' }).catch(
          (err: Error) => {
            throw new ConfigError(`cannot start the reference server: ${err.message}`);
          },
        );
        sides = [startedSide(run, server)];
      }
      try {
        // A signal while the server started found none to stop.
        if (stopped) throw new ConfigError(`stopped by ${stopped} before the ${script} profile`);
        const r = await runScript(run, script, sides, ledgers, () => stopped !== undefined);
        if (!pair) {
          const against = measuredAgainst(sides[0].external ? sides[0].baseUrl : undefined);
          codes[script] = judgeSummary(r.summaryFile, r.exit, { label: 'load', script, against });
          console.log(`load: ${script} (${plan.profile}) -> ${r.reportDir}`);
          continue;
        }
        const unjudged =
          r.exit === 3 || !r.records
            ? (r.reason ?? `the paired ${script} run was not carried out`)
            : pairedRunUnjudged({ records: r.records, delivery: r.delivery }, plan.profile);
        if (unjudged) {
          // The verdict of no runs, said to be not carried out, with the reason.
          const { runs: _none, ...none } = judge([], pair);
          return {
            codes,
            reportsDir: run.reportsDir,
            latency: verdict({ ...none, scripts: plan.scripts, verdict: 'not carried out', reason: `${script}: ${unjudged}` }),
          };
        }
        runs.push({ script, records: r.records!, reports: relative(pair.reportsRoot, r.reportDir) });
      } finally {
        await server?.stop();
        server = undefined;
      }
    }
    // Stopped while the last profile ran: its figures are not to be compared, nor run again.
    const target = run.sides?.[0];
    if (stopped) throw new ConfigError(`stopped by ${stopped}${target?.external ? `: ${restoredLine(run.reportsDir, target.baseUrl)}` : ''}`);
    if (!pair) return { codes, reportsDir: run.reportsDir };
    return { codes, reportsDir: run.reportsDir, latency: verdict(judge(runs, pair)) };
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    run.cleanup();
  }
}

/** One profile's run on Artillery on its side or sides: between the snapshots and restores of its writes, its reports scanned for every key. */
async function runScript(run: PreparedRun, script: LoadScript, sides: KeyedSide[], ledgers: Partial<Record<Side, string>>, cut: () => boolean) {
  const plan = run.plan;
  const pair = plan.target.kind === 'pair' ? plan.target : undefined;
  // A pair's paging run in its folder, its mutation run in mutation/; a one-sided run's in reports/load/<script>/, cleared first.
  const reportDir = pair ? (script === 'paging' ? pair.reportDir : join(pair.reportDir, script)) : join(run.reportsDir, 'load', script);
  if (!pair) rmSync(reportDir, { recursive: true, force: true });
  console.log(`${label(plan)}: ${script} (${plan.profile}) started`);
  const writes: Writes =
    pair && run.sidePlan
      ? pairWrites({ ...pair, current: sides[0], candidate: sides[1], requestTimeoutMs: run.requestTimeoutMs }, run.sidePlan)
      : {
          sides: sides.filter((s) => s.external).map((s) => ({ side: 'current', ...s, reportsDir: run.reportsDir, requestTimeoutMs: run.requestTimeoutMs })),
          by: 'load:mutation',
          label: () => 'load',
          reportsRoot: run.reportsDir,
        };
  const rows = requestRowsDirFromEnv(run.env);
  const result = await withSnapshots(script === 'mutation' ? { ...writes, cut } : { ...writes, sides: [] }, ledgers, (gateRules) =>
    runProfile({
      script,
      profile: plan.profile,
      baseUrl: sides[0].baseUrl,
      env: workerEnv(run, sides, reportDir, gateRules),
      reportDir,
      dataDir: run.dataDir,
      runners: plan.runners,
      shape: plan.shape,
      requestTimeoutMs: run.requestTimeoutMs,
      requestRows: rows && !pair ? join(rows, `${script}.csv.gz`) : undefined,
      ...(pair ? { label: 'candidate: latency' } : {}),
    }),
  );
  if (result.reason) console.error(`${label(plan)}: ${script}: ${result.reason}`);
  for (const s of sides) assertNoKey(pair ? pair.reportDir : reportDir, s.apiKey);
  return { ...result, reportDir };
}

/** Where the first compare is kept when a regression is run again. */
const FIRST_RUN = 'compare.first-run.json';
