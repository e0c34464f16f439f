// The latency of two deployments side by side (`npm run candidate -- --latency`): the paging profile
// (and, with --writes, the mutation profile) run once each, from one generator, every request of it
// sent to the current and to the candidate in random order (load/lib/http.ts, paired mode), each timed
// by the same processor. Both sides then share the machine's and the network's moments, so the noise
// that drowns a compare with a baseline recorded on another day mostly cancels. Judged pair by pair,
// per operation, each run calibrated by its own ruler request's pairs (sent to both as well):
// load/compare/paired-detect.ts. The mutation run writes to both sides, each with its own ids and
// names (load/lib/sides.ts), within the budget both manifests allow; a side given by URL is
// snapshotted before and restored after, with a ledger of its own. The keys come from
// CONSOLE_CURRENT_API_KEY and CONSOLE_CANDIDATE_API_KEY in the workers' environment only, and
// everything the run wrote is searched for both.
import { keepOwed, owedRestores } from '../../core/ledger.ts';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { allowRemoteLoadFromEnv, ConfigError, isLoopback, loadBudget, loadManifest, ROOT, type Manifest } from '../../core/config.ts';
import type { CandidateLatency, CandidateLatencyEndpoint, LoadDelivery, LoadScript, Side } from '../../core/formats.ts';
import { newRunId } from '../../core/random.ts';
import { runProfile } from '../artillery/run.ts';
import { detectPaired, operationOfTag, pairsByTag } from '../compare/paired-detect.ts';
import { writeRunValidators } from '../lib/build-validators.ts';
import { SHARED_TABLE } from '../lib/profiles.ts';
import type { Records } from '../lib/runtime.ts';
import { emptyWrites } from '../lib/writes.ts';
import { pairedBudget, sidePlan, type RunManifest, type SidePlan } from '../lib/sides.ts';
import type { PairSide, PairTarget } from './plan.ts';
import { assertNoKey, type Before, loadEnv, recordWrites, snapshotFor, type WriteSide, writeBodies } from './run.ts';

export interface PairedSide {
  baseUrl: string;
  apiKey: string;
}

/** What every paired run is given: a pair's load plan (load/command/plan.ts) but for its sides and scripts. */
type CommonOptions = Omit<PairTarget, 'kind' | 'current' | 'candidate'> & {
  /** smoke or baseline. */
  profile: string;
  /** Seed of the request bodies (default 1) and of the bootstrap (default its own). */
  seed?: number;
};

export interface PairedOptions extends CommonOptions {
  current: PairedSide;
  candidate: PairedSide;
  manifestPath: string;
}

/** One side of a paired run that may write (load/command/plan.ts, PairSide). */
export type PairedLoadSide = PairSide;

export type PairedLoadOptions = CommonOptions & {
  /** paging, and mutation when writes are allowed on both sides. */
  scripts: LoadScript[];
  current: PairedLoadSide;
  candidate: PairedLoadSide;
};

/** One profile's paired run, for the verdict. */
export interface PairedRun {
  script: LoadScript;
  records: Records;
  /** Its reports, relative to the reports folder. */
  reports: string;
}

const counter = (records: Records, name: string) => records.counters[name] ?? 0;

const SIDES: Side[] = ['current', 'candidate'];
const fmt = (n: number) => Number(n.toPrecision(3)).toString();

/** The candidate's requests and unexpected answers per operation (setup's probes and the ruler left out). */
function candidateAnswers(records: Records): Map<string, { requests: number; unexpected: number }> {
  const out = new Map<string, { requests: number; unexpected: number }>();
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    const c = e.candidate;
    if (!c || c.answers === 0 || endpoint === 'setup' || endpoint === 'calibration') continue;
    const op = operationOfTag(endpoint);
    const had = out.get(op) ?? { requests: 0, unexpected: 0 };
    out.set(op, { requests: had.requests + c.answers, unexpected: had.unexpected + c.unexpected });
  }
  return out;
}

/**
 * Why the candidate could not be timed: more of its answers were the network's (no answer, a gateway's
 * HTML error page, a redirect, a 429: core/transport-rule.ts) than the profile lets a run have. The
 * current's own answers are held to that budget by the run's thresholds; the candidate's are only
 * counted, and a verdict from the few pairs left would pass a side that was never measured.
 */
export function candidateNetwork(records: Records, profile: string): string | undefined {
  const kinds: Record<string, number> = {};
  let answers = 0;
  let network = 0;
  for (const e of Object.values(records.endpoints)) {
    if (!e.candidate) continue;
    answers += e.candidate.answers;
    for (const [kind, n] of Object.entries(e.candidate.network)) {
      kinds[kind] = (kinds[kind] ?? 0) + (n ?? 0);
      network += n ?? 0;
    }
  }
  const maxRate = SHARED_TABLE[profile as keyof typeof SHARED_TABLE]?.maxEndpointErrorRate ?? 0;
  if (network === 0 || network <= maxRate * answers) return undefined;
  const list = Object.entries(kinds)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  return `the candidate's network answered ${network} of its ${answers} requests, not the candidate (${list.join(', ')}; more than the ${profile} profile's ${fmt(maxRate * 100)}%): its latency cannot be measured`;
}

/**
 * Why a paired run's pairs cannot be judged, or undefined: the asked load was not delivered (its pairs
 * are another run's, as a load run's latency is not judged then: load/command/outcome.ts), or the
 * candidate's network answered for it (candidateNetwork).
 */
export function pairedRunUnjudged(run: { records: Records; delivery?: LoadDelivery }, profile: string): string | undefined {
  if (run.delivery && !run.delivery.ok) return run.delivery.note;
  return candidateNetwork(run.records, profile);
}

/** The operations a run has pairs of (the ruler left out): what its share of the family-wise alpha is counted by. */
function pairedOperations(records: Records): Set<string> {
  const byTag = pairsByTag(records);
  return new Set(
    Object.entries(byTag)
      .filter(([tag, p]) => tag !== 'calibration' && p.current.length > 0)
      .map(([tag]) => operationOfTag(tag)),
  );
}

/**
 * The side-by-side verdict of paired runs: per operation, the candidate judged against the current pair
 * by pair, each run with its own ruler. With K operations over all runs, each is held to alpha / K
 * (Bonferroni over paging and mutation alike: their operations do not overlap). An operation the
 * candidate answered unexpectedly more often than the profile allows is not decidable, never a
 * regression: its pairs are the requests the candidate happened to take, and the contract compare
 * judges what it answered.
 */
export function judgePairedRuns(
  runs: PairedRun[],
  o: { profile: string; minEffect: number; alpha?: number; seed?: number; reports: string },
): CandidateLatency {
  const alpha = o.alpha ?? 0.01;
  const tested = runs.map((r) => pairedOperations(r.records));
  const k = Math.max(
    1,
    tested.reduce((n, s) => n + s.size, 0),
  );
  const maxRate = SHARED_TABLE[o.profile as keyof typeof SHARED_TABLE]?.maxEndpointErrorRate ?? 0;
  const endpoints: CandidateLatencyEndpoint[] = [];
  const rulers: NonNullable<CandidateLatency['runs']> = [];
  let confidence = 0.95;
  let minEffect = o.minEffect;
  runs.forEach((run, i) => {
    const d = detectPaired(pairsByTag(run.records), { minEffect: o.minEffect, alpha: (alpha * Math.max(1, tested[i].size)) / k, seed: o.seed });
    confidence = d.confidence;
    minEffect = d.minEffect;
    rulers.push({ script: run.script, calibration: d.calibration, reports: run.reports });
    const answers = candidateAnswers(run.records);
    for (const e of d.operations) {
      const a = answers.get(e.endpoint);
      const tooMany = a !== undefined && a.unexpected > maxRate * a.requests;
      endpoints.push({
        ...e,
        script: run.script,
        ...(a ? { candidate: a } : {}),
        ...(tooMany
          ? {
              regression: false,
              decidable: false,
              reason: `not decidable: the candidate answered ${a.unexpected} of ${a.requests} unexpectedly (more than the ${o.profile} profile's ${fmt(maxRate * 100)}%): ${e.reason}`,
            }
          : {}),
      });
    }
    // An operation the candidate never answered as its pair expected has no pairs at all: listed, not judged.
    for (const [op, a] of answers)
      if (!d.operations.some((e) => e.endpoint === op) && a.unexpected > 0)
        endpoints.push({
          endpoint: op,
          script: run.script,
          regression: false,
          decidable: false,
          ratio: 1,
          lower: 1,
          upper: 1,
          p: 1,
          alpha: 0,
          n: { current: 0, candidate: 0 },
          median: { current: 0, candidate: 0 },
          candidate: a,
          reason: `not decidable: no pairs, the candidate answered ${a.unexpected} of ${a.requests} unexpectedly`,
        });
  });
  const regression = endpoints.some((e) => e.regression);
  return {
    scripts: runs.map((r) => r.script),
    profile: o.profile,
    verdict: regression ? 'regression' : 'pass',
    minEffect,
    alpha,
    confidence,
    calibration: rulers[0]?.calibration ?? null,
    runs: rulers,
    endpoints,
    requests: {
      paired: runs.reduce((n, r) => n + counter(r.records, 'load_paired_reqs'), 0),
      candidateFirst: runs.reduce((n, r) => n + counter(r.records, 'load_candidate_first'), 0),
    },
    reports: o.reports,
  };
}

/** A manifest of what the plan gives one side, as loadManifest reads it (the bodies are written for it). */
function planManifest(m: RunManifest, budget: ReturnType<typeof pairedBudget>): Record<string, unknown> {
  return {
    gates: m.gates,
    experiments: m.experiments.map((id) => ({ id, overrides: 'suite' })),
    triggers: m.triggers,
    metricPrefix: m.metricPrefix,
    overrideGroupIDs: m.overrideGroupIDs,
    ...(m.metricOwner ? { metricOwner: m.metricOwner } : {}),
    ...(budget ? { budget } : {}),
  };
}

/**
 * The request bodies of a paired mutation run, into `dataDir`: written for what both sides allow (the
 * current's part of the plan), bounded by the smaller budget of each kind (a side started for the run
 * bounds nothing), with the plan in mutation.json for the workers to translate each body for the candidate.
 */
export function writePairedBodies(o: {
  seed: number;
  runId: string;
  dataDir: string;
  plan: SidePlan;
  current: Pick<PairedLoadSide, 'manifest' | 'external'>;
  candidate: Pick<PairedLoadSide, 'manifest' | 'external'>;
}): void {
  const budget = pairedBudget(o.current.external ? loadBudget(o.current.manifest) : null, o.candidate.external ? loadBudget(o.candidate.manifest) : null);
  const manifestPath = join(o.dataDir, 'current-manifest.json');
  const pairFile = join(o.dataDir, 'pair.json');
  mkdirSync(o.dataDir, { recursive: true });
  writeFileSync(manifestPath, JSON.stringify(planManifest(o.plan.current, budget)));
  writeFileSync(pairFile, JSON.stringify(o.plan));
  writeBodies({ seed: o.seed, runId: o.runId, manifestPath, outDir: o.dataDir, budget: budget !== null, pairFile });
}

/** The side's manifest narrowed to what the plan pairs: what the snapshot, the restore and the ledger cover. */
const narrowed = (m: Manifest, p: RunManifest): Manifest => ({
  ...m,
  gates: p.gates,
  experiments: p.experiments,
  overridesOwned: p.experiments,
  triggers: p.triggers,
});

/** One paired paging run and its verdict; `latency.verdict` 'not carried out' with its reason when the run could not be made. */
export async function runPairedPaging(o: PairedOptions): Promise<CandidateLatency> {
  const manifest = loadManifest(o.manifestPath);
  const side = (s: PairedSide): PairedLoadSide => ({ ...s, manifestPath: o.manifestPath, manifest, external: true });
  return runPairedLoad({ ...o, scripts: ['paging'], current: side(o.current), candidate: side(o.candidate) });
}

/** The paired runs of `scripts` and their verdict; `latency.verdict` 'not carried out' with its reason when a run could not be made. */
export async function runPairedLoad(o: PairedLoadOptions): Promise<CandidateLatency> {
  const env0 = o.env ?? process.env;
  for (const side of SIDES)
    if (!isLoopback(o[side].baseUrl) && !allowRemoteLoadFromEnv(env0))
      throw new ConfigError(`refusing to load the ${side} (${new URL(o[side].baseUrl).host}): it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);
  const runId = newRunId();
  const dataDir = join(ROOT, 'load/data', `run-${runId}`);
  const reports = relative(o.reportsRoot, o.reportDir);
  const notCarriedOut = (reason: string, extra: Partial<CandidateLatency> = {}): CandidateLatency => ({
    scripts: o.scripts,
    profile: o.profile,
    verdict: 'not carried out',
    minEffect: o.minEffect,
    alpha: o.alpha ?? 0.01,
    confidence: 0.95,
    calibration: null,
    endpoints: [],
    requests: { paired: 0, candidateFirst: 0 },
    reports,
    reason,
    ...extra,
  });
  await writeRunValidators(runId);
  // What a cut run still owes a side outlives the clearing: the side's next snapshot gives it back first.
  const owed = SIDES.map((s) => [s, owedRestores(join(o.reportDir, s))] as const);
  rmSync(o.reportDir, { recursive: true, force: true });
  mkdirSync(o.reportDir, { recursive: true });
  for (const [s, list] of owed) keepOwed(join(o.reportDir, s), list);
  const writes = o.scripts.includes('mutation');
  const plan: SidePlan | undefined = writes ? sidePlan(o.current.manifest, o.candidate.manifest) : undefined;
  for (const note of plan?.notes ?? []) console.error(`candidate: latency: note: ${note}`);
  const ledgers: Partial<Record<Side, string>> = {};
  const runs: PairedRun[] = [];
  mkdirSync(dataDir, { recursive: true });
  try {
    if (plan) writePairedBodies({ seed: o.seed ?? 1, runId, dataDir, plan, current: o.current, candidate: o.candidate });
    else {
      // The paging profile only reads: the bodies are written for its page sizes, bounded by the budget.
      writeBodies({ seed: o.seed ?? 1, runId, manifestPath: o.current.manifestPath, outDir: dataDir, budget: true });
    }
    const env: NodeJS.ProcessEnv = {
      ...loadEnv(o.profile, { baseUrl: o.current.baseUrl, apiKey: '' }, dataDir, o.reportDir, {
        strict: false,
        requestTimeoutMs: o.requestTimeoutMs,
        external: true,
      }),
      ...(env0 === process.env ? {} : env0),
      CONSOLE_BASE_URL: o.current.baseUrl,
      LOAD_CANDIDATE_BASE_URL: o.candidate.baseUrl,
      CONSOLE_CURRENT_API_KEY: o.current.apiKey,
      CONSOLE_CANDIDATE_API_KEY: o.candidate.apiKey,
      ...(o.seconds ? { LOAD_SECONDS: String(o.seconds) } : {}),
    };
    delete env.CONSOLE_API_KEY;
    const profileRun = (script: LoadScript, reportDir: string, extra: NodeJS.ProcessEnv = {}) =>
      runProfile({
        script,
        profile: o.profile,
        baseUrl: o.current.baseUrl,
        env: { ...env, LOAD_REPORT_DIR: reportDir, ...extra },
        reportDir,
        dataDir,
        requestTimeoutMs: o.requestTimeoutMs,
        label: 'candidate: latency',
      });
    for (const script of o.scripts) {
      const reportDir = script === 'paging' ? o.reportDir : join(o.reportDir, script);
      const run =
        script === 'mutation' && plan
          ? await withSnapshots(o, plan, ledgers, (gateRules) => profileRun(script, reportDir, gateRules ? { LOAD_GATE_RULES: JSON.stringify(gateRules) } : {}))
          : await profileRun(script, reportDir);
      for (const key of [o.current.apiKey, o.candidate.apiKey]) if (key) assertNoKey(o.reportDir, key);
      if (run.exit === 3 || !run.records)
        return notCarriedOut(`${script}: ${run.reason ?? `the paired ${script} run was not carried out`}`, {
          ...(Object.keys(ledgers).length ? { ledgers } : {}),
          ...(plan?.notes.length ? { notes: plan.notes } : {}),
        });
      const unjudged = pairedRunUnjudged({ records: run.records, delivery: run.delivery }, o.profile);
      if (unjudged)
        return notCarriedOut(`${script}: ${unjudged}`, {
          ...(Object.keys(ledgers).length ? { ledgers } : {}),
          ...(plan?.notes.length ? { notes: plan.notes } : {}),
        });
      runs.push({ script, records: run.records, reports: relative(o.reportsRoot, reportDir) });
    }
    return {
      ...judgePairedRuns(runs, { profile: o.profile, minEffect: o.minEffect, alpha: o.alpha, seed: o.seed, reports }),
      ...(Object.keys(ledgers).length ? { ledgers } : {}),
      ...(plan?.notes.length ? { notes: plan.notes } : {}),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The mutation run between each external side's snapshot and its restore: both sides are snapshotted
 * first, and afterwards each side is restored and ledgered on its own (one side's failure does not
 * skip the other's), in `<reportDir>/<side>/ledger.json`.
 */
export async function withSnapshots<T extends { records?: Records }>(
  o: PairedLoadOptions,
  plan: SidePlan,
  ledgers: Partial<Record<Side, string>>,
  run: (currentGateRules: Record<string, number> | undefined) => Promise<T>,
): Promise<T> {
  const sides = SIDES.filter((s) => o[s].external);
  const config = (s: Side): WriteSide => ({
    reportsDir: join(o.reportDir, s),
    manifestPath: o[s].manifestPath,
    manifest: narrowed(o[s].manifest, plan[s]),
    requestTimeoutMs: o.requestTimeoutMs,
  });
  const before: Partial<Record<Side, Before>> = {};
  let result: T | undefined;
  try {
    for (const s of sides) before[s] = await snapshotFor(config(s), o[s], `candidate: latency: ${s}`);
    result = await run(before.current?.gateRules);
    return result;
  } finally {
    for (const s of sides) {
      const b = before[s];
      if (!b) continue;
      try {
        await recordWrites(config(s), o[s], b, result?.records ? (result.records.writes?.[s] ?? emptyWrites()) : undefined, 'candidate:latency');
        ledgers[s] = relative(o.reportsRoot, join(config(s).reportsDir, 'ledger.json'));
      } catch (err) {
        console.error(`candidate: latency: the ${s}'s restore or ledger failed: ${(err as Error).message.split('\n')[0]}`);
      }
    }
  }
}
