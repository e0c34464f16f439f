// The one runner of load: every entry (`load:*`, verify's load stage, `candidate --latency`, the
// benchmarks) builds a load plan (load/command/plan.ts) and hands it to runPlan. A configured target's
// profiles run in load/command/run.ts, a current/candidate pair's in load/command/paired.ts; the
// compare with the baselines and the policy of confirming a regression by a second run live here, once.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../core/config.ts';
import { worst } from '../../core/exit.ts';
import type { CandidateLatency, CompareConfirmation, CompareResult, LoadScript } from '../../core/formats.ts';
import { compareRun, needsConfirmation, printCompare } from '../compare/baseline.ts';
import { runPairedLoad } from './paired.ts';
import type { ConfiguredTarget, LoadPlan, PairTarget } from './plan.ts';
import { runConfigured } from './run.ts';

export type { LoadPlan } from './plan.ts';

export interface PlanResult {
  /** The exit code: the worst of the profiles' verdicts, 2 on a regression (confirmed where it needs to be). */
  code: number;
  /** Each profile's exit code (a configured target's). */
  codes: Partial<Record<LoadScript, number>>;
  /** The compare with the baselines, after any confirmation (reports/load/compare.json). */
  compare?: CompareResult;
  /** A pair's side-by-side verdict. */
  latency?: CandidateLatency;
}

/** Runs a load plan; resolves to what every entry reads its exit code and its report from. */
export async function runPlan(plan: LoadPlan): Promise<PlanResult> {
  if (plan.target.kind === 'pair') return runPair(plan as LoadPlan & { target: PairTarget });
  return runOnTarget(plan as LoadPlan & { target: ConfiguredTarget });
}

async function runPair(plan: LoadPlan & { target: PairTarget }): Promise<PlanResult> {
  const t = plan.target;
  const latency = await runPairedLoad({
    scripts: plan.scripts,
    current: t.current,
    candidate: t.candidate,
    profile: plan.profile,
    minEffect: t.minEffect,
    alpha: t.alpha,
    seconds: t.seconds,
    seed: plan.seed,
    reportDir: t.reportDir,
    reportsRoot: t.reportsRoot,
    requestTimeoutMs: t.requestTimeoutMs,
    env: t.env,
  });
  const code = latency.verdict === 'not carried out' ? 3 : latency.verdict === 'regression' ? 2 : 0;
  return { code, codes: {}, latency };
}

async function runOnTarget(plan: LoadPlan & { target: ConfiguredTarget }): Promise<PlanResult> {
  const t0 = Date.now();
  const reportsDir = loadConfig().reportsDir;
  rmSync(join(reportsDir, 'load', FIRST_RUN), { force: true });
  const codes = await runConfigured(plan, plan.scripts);
  const scripts = Object.keys(codes) as LoadScript[];
  console.log(`load: ${scripts.join(' + ')} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (!plan.compare || Object.values(codes).includes(3)) return { code: worst(Object.values(codes)), codes };
  const compareNow = () => compareRun({ scripts, reportsDir, baselinesDir: plan.compare?.baselinesDir });
  let compare = compareNow();
  printCompare(compare);
  const { rerun, confirmation } = toConfirm(compare, codes);
  if (rerun.length) {
    renameSync(join(reportsDir, 'load', 'compare.json'), join(reportsDir, 'load', FIRST_RUN));
    console.log(`load: ${rerun.join(' and ')} regressed: running ${rerun.length > 1 ? 'them' : 'it'} again to confirm`);
    Object.assign(codes, await runConfigured(plan, rerun));
    compare = compareNow();
    printCompare(compare);
    for (const script of rerun) confirmation.push(confirmed(script, compare));
  }
  if (confirmation.length) {
    compare = { ...compare, confirmation };
    writeFileSync(join(reportsDir, 'load', 'compare.json'), `${JSON.stringify(compare, null, 2)}\n`);
  }
  for (const c of confirmation) console.log(`load: ${c.note}`);
  return { code: worst([...Object.values(codes), compare.verdict === 'regression' ? 2 : 0]), codes, compare };
}

/** Where the first compare is kept when a regression is run again. */
const FIRST_RUN = 'compare.first-run.json';

/**
 * Which regressed profiles are run again before they are believed: those a rule other than the
 * statistical one flagged (needsConfirmation says why), and only when their run passed otherwise.
 * One the statistical rule alone found stands on one run, with a note saying so.
 */
function toConfirm(compare: CompareResult, codes: Partial<Record<LoadScript, number>>): { rerun: LoadScript[]; confirmation: CompareConfirmation[] } {
  const rerun: LoadScript[] = [];
  const confirmation: CompareConfirmation[] = [];
  for (const p of Object.values(compare.profiles)) {
    const script = p.script as LoadScript;
    if (p.verdict !== 'regression' || codes[script] !== 0) continue;
    if (needsConfirmation(p)) rerun.push(script);
    else confirmation.push({ script, rerun: false, confirmed: true, note: `${script} regression found by the statistical rule (one run is enough)` });
  }
  return { rerun, confirmation };
}

function confirmed(script: LoadScript, compare: CompareResult): CompareConfirmation {
  const again = compare.profiles[script]?.verdict === 'regression';
  return {
    script,
    rerun: true,
    confirmed: again,
    note: again
      ? `${script} regression confirmed by a second run`
      : `${script} regressed on a first run but not on a second (kept the second; the first is in load/${FIRST_RUN})`,
  };
}
