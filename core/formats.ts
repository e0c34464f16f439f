// The files a run writes, which other parts read: one type each, and one reader and writer each (at the
// end of this file), so that a writer and a reader cannot drift apart and neither imports the other:
// conformance.json and observations.json (the suite's reporter), verify.json (verify), load/<script>/
// summary.json (the load run writes it; the load command adds its verdict), load/compare.json
// (the compare), ledger.json (core/ledger.ts builds it), clause-proof.json (the proof map) and
// target-check.json (manifest:check). The run history's rows are core/history.ts's.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A clause's level (contracts/clauses.yaml). */
export type Level = 'stated' | 'inferred' | 'open';

/** One recorded request and its answer, the key redacted (contracts/support/evidence.ts). */
export interface Exchange {
  method: string;
  path: string;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  status: number;
  responseBody: unknown;
  curl: string;
  /** How many times the request was sent, when more than once (a read retried on a transport failure, a 429 waited out). */
  attempts?: number;
}

/**
 * Why a clause went unchecked, as a test says it (t.uncovered) or the run decides it:
 * - resource: the user can fix it (the manifest ran out of trigger phases, names an id the target does not
 *   know, or the target refused the suite a resource such as a gate that is full); a stated clause
 *   unchecked for this reason makes the run INCOMPLETE (exit 3), never PASS;
 * - unverifiable: the target's legal answers give nothing to judge (a listed field it leaves out, a filter
 *   over a field no item carries); shown apart, never a pass, and no reason for INCOMPLETE;
 * - waived: the user left it out on purpose (the manifest's `waive`, or --waive), with a reason;
 * - excluded: left out by the run's design (--read-only: the check needs a write; --grep: not selected).
 */
export type UncheckedKind = 'resource' | 'unverifiable' | 'waived' | 'excluded';

/** What an observation or an uncovered note carries, written by the reporter (annotations are strings). */
export interface Observation {
  clause: string;
  aspect: string;
  value: unknown;
  evidence?: Pick<Exchange, 'method' | 'path' | 'status' | 'curl'>;
}

// reports/observations.json and drift against a previous one.
export type Observations = Record<
  string,
  { value: Record<string, unknown>; evidence: (NonNullable<Observation['evidence']> & { aspect: string; test: string })[] }
>;
export interface Drift {
  clause: string;
  aspect: string;
  before: unknown;
  now: unknown;
}

// reports/conformance.json.
/**
 * A clause's status in a run: judged (pass, fail, warn), observed (open clauses), or unchecked, with whose
 * it is (UncheckedKind): uncovered (the user can fix it, or nothing reached it), unverifiable, waived, excluded;
 * or unreached: the tests that check it stopped at another clause's failure before they got to it
 * (contracts/support/blame.ts), and no other test judged it.
 */
export type Status = 'pass' | 'fail' | 'warn' | 'observed' | 'uncovered' | 'unverifiable' | 'waived' | 'excluded' | 'unreached';
export const STATUSES: Status[] = ['pass', 'fail', 'warn', 'observed', 'uncovered', 'unverifiable', 'waived', 'excluded', 'unreached'];
/** Clause counts by status, as written before waived, unverifiable and excluded existed: a missing status is 0. */
export const statusCount = (row: Partial<Record<Status, number>> | undefined, s: Status): number => row?.[s] ?? 0;

// (docs/reports.md; the reporter checks what it writes against it with `satisfies`.)
export interface ClauseResult {
  id: string;
  section: string | null;
  level: Level;
  status: Status;
  text: string | null;
  tests: string[];
  evidence: { test: string; level: Level; error?: string; exchanges: Exchange[] }[];
  observations: { test: string; aspect: string; value: unknown }[];
  /** Why the clause went unchecked (status uncovered, unverifiable, waived, excluded or unreached): one line each, the fix named where there is one. */
  uncovered?: string[];
}
/**
 * Stated clauses a run left unchecked for a reason the user can fix, one entry per reason: the run is
 * INCOMPLETE (exit 3), never PASS. `clauses` are the ids; `reason` says what was missing and what to do.
 */
export interface IncompleteGroup {
  reason: string;
  clauses: string[];
}
/** The stated clauses of the catalogue and what became of them: `checked` were judged (pass, fail or warn). */
export interface StatedCoverage {
  total: number;
  checked: number;
  uncovered: number;
  unverifiable: number;
  waived: number;
  excluded: number;
  /** Not reached: their tests stopped at another clause's failure (absent in reports written before blame). */
  unreached?: number;
}
/** The share of stated clauses in scope (all but the waived and the excluded) that a run judged; null when none are in scope. */
export function coverageOf(c: StatedCoverage): number | null {
  const inScope = c.total - c.waived - c.excluded;
  return inScope > 0 ? c.checked / inScope : null;
}
/** A test that checked nothing because of the network (docs/transport.md): listed apart, in no clause's status. */
export interface InconclusiveResult {
  test: string;
  file: string;
  clauses: string[];
  reason: string;
  exchange?: Exchange;
}
/** Why a run stopped before its end: the deadline, too many transport failures in a row, or an interruption. */
export interface RunStop {
  cause: 'deadline' | 'transport' | 'interrupted';
  reason: string;
  afterTests: number;
  ofTests: number;
}
/** `finding`: an inferred finding a test recorded without failing (contracts/support/findings.ts), not a failed test. */
export interface FailureResult {
  test: string;
  file: string;
  level: Level;
  clauses: string[];
  counts: boolean;
  error?: string;
  exchanges: Exchange[];
  finding?: true;
  /**
   * A failed test's blame (absent in reports written before it, and on findings): the clauses whose
   * assertions failed, which the run fails (or warns), and the clauses it names that it did not reach
   * because it stopped. `clauses` stays every clause the test names.
   */
  blamed?: string[];
  unreached?: string[];
}
// reports/verify.json.
export type StageStatus = 'pass' | 'fail' | 'regression' | 'incomplete' | 'error' | 'skipped';

export interface StageResult {
  name: string;
  status: StageStatus;
  /** The stage command's own exit code (null when it did not run). */
  exitCode: number | null;
  seconds: number;
  detail: string;
}

/** reports/verify.json: what `npm run verify` ran, against what, and how each stage ended. */
export interface VerifyRun {
  format: 'console-conformance.verify/1';
  exitCode: number;
  startedAt: string;
  durationMs: number;
  /** The conformance target; with `reference`, a reference server verify started (load ran against fresh ones of its own). */
  target: { url: string; reference: boolean };
  manifest: string;
  options: { strict: boolean; readOnly?: boolean; profile: string; skipLoad: boolean; observationsBaseline: string | null; grep: string | null };
  versions: Record<string, string>;
  stages: StageResult[];
}

/**
 * fail: a counting violation (whatever else happened); inconclusive: none, but tests got no usable answer
 * or the run stopped (exit 3); incomplete: none of those, but a stated clause went unchecked for a reason
 * the user can fix (exit 3); pass: every stated clause in scope checked and held.
 */
export type ConformanceVerdict = 'pass' | 'fail' | 'inconclusive' | 'incomplete';
export interface ConformanceSummary {
  verdict: ConformanceVerdict;
  strict: boolean;
  /** A --read-only run: the clauses that need a write are excluded by design, not a reason for INCOMPLETE. */
  readOnly?: boolean;
  target: string | null;
  manifest: string | null;
  /** The seed the list checks drew pages and experiments from (CONSOLE_LIST_SEED: set it again to replay them); absent in reports written before. */
  listSeed?: number;
  startedAt: string;
  durationMs: number;
  /** `skipped`: not run on purpose (every clause waived, or a write in a read-only run); absent in reports written before. */
  tests: { total: number; passed: number; failed: number; failedCounting: number; inconclusive: number; notRun: number; skipped?: number };
  /** Inferred findings recorded by tests (contracts/support/findings.ts), and how many fail the run (--strict). */
  findings: { total: number; counting: number };
  /** The run stopped before every test had run (its reports cover what ran); `stop` says why. */
  partial: boolean;
  stop: RunStop | null;
  clauses: Record<'total' | Status, number>;
  byLevel: Record<Level, Record<Status, number>>;
  /** Stated clauses: how many were judged, and why the rest were not (absent in reports written before). */
  coverage?: StatedCoverage;
  /** Why the run is INCOMPLETE, one entry per reason (empty unless verdict is incomplete or a fail has them too). */
  incomplete?: IncompleteGroup[];
  /** The manifest's waivers as applied: each pattern, its reason and how many clauses it waived. */
  waived?: { clauses: string; reason: string; count: number }[];
  drift: number;
  playwrightStatus: string;
}
export interface ConformanceReport {
  summary: ConformanceSummary;
  clauses: ClauseResult[];
  failures: FailureResult[];
  inconclusive: InconclusiveResult[];
  drift: Drift[];
}

/** The load profiles (load/paging.ts, load/mutation.ts): each writes reports/load/<script>/summary.json. */
export const LOAD_SCRIPTS = ['paging', 'mutation'] as const;
export type LoadScript = (typeof LOAD_SCRIPTS)[number];
/** A load run's size (LOAD_PROFILE, `verify --profile`): its shape (load/shapes/<script>.<profile>.yml) and its baselines; summary.json and verify.json record it. */
export const LOAD_PROFILES = ['smoke', 'baseline', 'stress'] as const;
export type LoadProfile = (typeof LOAD_PROFILES)[number];
/** The calibration request's endpoint in a run's records, summary.json and baselines: the ruler the compare divides by. */
export const CALIBRATION_ENDPOINT = 'calibration';

// reports/load/compare.json and the run summaries it is made from.
export interface Figures {
  p50: number;
  p95: number;
  p99: number;
  count: number;
  rps: number;
  errorRate: number;
  avg?: number;
  max?: number;
}
/** What compare needs of a run: load/lib/summary.ts writes it as summary.json; a baseline keeps the same fields. */
/**
 * What a load run was measured against: the reference server the run started, or a target (its
 * origin: scheme, host and port, no path, credentials or query). Timings of one say nothing of the other.
 */
export type MeasuredAgainst = { kind: 'reference' } | { kind: 'external'; origin: string };

/** What a load run means (load/command/outcome.ts): its exit code and the one line that decided it. */
export interface LoadOutcome {
  code: 0 | 1 | 2 | 3;
  /** One line: what decided the code, e.g. "2 stated checks failed" or "ok". */
  note: string;
  /** Inferred checks that failed without failing the run, one line each. */
  warnings: string[];
}

/**
 * A load threshold as data: a statistic of a metric held to a bound, e.g. `{stat: 'p95', op: '<', value: 300}`
 * (milliseconds for durations, a fraction for rates). summary.json shows it also as text, `p(95)<300`.
 */
export interface ThresholdLimit {
  stat: 'avg' | 'min' | 'med' | 'max' | 'count' | 'rate' | 'value' | `p${number}`;
  op: '<' | '<=' | '>' | '>=' | '==' | '!=';
  value: number;
}

/** What a mutation run wrote to one target: counts per gate, experiment or trigger id, and metrics created and updated. */
export interface LoadWrites {
  /** Add-rules requests that a gate took, and the rules they sent. */
  ruleWrites: Record<string, number>;
  rulesAdded: Record<string, number>;
  /** Rules each gate held at the last answer seen (merged: the largest). */
  gateRules: Record<string, number>;
  gateToggles: Record<string, number>;
  overridePatches: Record<string, number>;
  phasesSkipped: Record<string, number>;
  unpaused: Record<string, number>;
  metricsCreated: number;
  metricsUpdated: number;
}

/**
 * reports/load/<script>/summary.json (load/lib/summary.ts writes it, the load command adds its
 * verdict and target) and a baseline in load/baselines/ (the same fields). Only what every reader uses is
 * typed here.
 */
/** Whether the load asked for was delivered (load/artillery/delivery.ts): Artillery's arrivals against the phases' plan. */
export interface LoadDelivery {
  /** Arrivals the phases asked for, every runner's. */
  asked: number;
  /** Arrivals Artillery started (vusers.created). */
  started: number;
  /** Arrivals dropped at the VU limit (vusers.skipped). */
  dropped: number;
  /** (asked - started) / asked. */
  shortfall: number;
  /** False: the load fell short beyond its tolerance, and the run was not carried out. */
  ok: boolean;
  note: string;
  /** Each runner's generator: its event loop's busiest period (median second, percent) and its CPU seconds. */
  generators: { runner: number; busyPct?: number; saturated?: boolean; cpuSeconds?: number }[];
  /** The generators' CPU time per 1000 requests sent. */
  cpuMsPer1000Requests?: number;
  /**
   * Each runner's arrivals against its phases' schedule (load/artillery/delivery.ts judgeSchedule): per
   * 10 s of the phases (seconds from its first arrival) the arrivals asked and started, and the seconds
   * its arrivals took against the phases'. Absent in summaries written before it was judged.
   */
  schedule?: {
    runner: number;
    tookSeconds: number;
    phasesSeconds: number;
    periods: { from: number; to: number; asked: number; started: number }[];
  }[];
}

/** One period of a load run (load/artillery/periods.ts): each endpoint's percentiles of the requests that started in it. */
export interface LoadPeriod {
  /** When it began (ISO), and seconds after the load's first arrival. */
  at: string;
  offsetSeconds: number;
  /** Its length in whole seconds (the last one may be shorter). */
  seconds: number;
  /** Durations in ms. */
  endpoints: Record<string, { count: number; p50: number; p95: number; p99: number }>;
}

/** A run shaped as data (load/artillery/shape.ts): where from, its phases, and Artillery's ensure plugin's verdict on its limits. */
export interface LoadShape {
  source: string;
  phases: { name: string; duration: number; arrivalRate: number; rampTo?: number; maxVusers: number }[];
  /** Each limit as Artillery's ensure wrote it (`console.listExperiments.deep.p95 < 300`); `runner` with several. */
  limits: { check: string; strict: boolean; ok: boolean; runner?: number }[];
}

export interface RunSummary {
  format: string;
  script: string;
  profile: string;
  durationMs: number;
  endpoints: Record<string, Figures>;
  runners?: number;
  /** Added after the engine's run (load/compare/measured-against.ts); absent in summaries and baselines written before. */
  target?: MeasuredAgainst;
  finishedAt?: string;
  thresholdsOk?: boolean;
  /** Each threshold and whether it held (`judged`: how a merged run's was reached). */
  /** `threshold` is the limit as text (`p(95)<300`); `limit` the same as data, absent in summaries written before it was kept. */
  thresholds?: { metric: string; threshold: string; limit?: ThresholdLimit; ok: boolean; judged?: 'merged figures' | 'every runner' }[];
  checks?: {
    passes: number;
    fails: number;
    stated?: { passes: number; fails: number };
    inferred?: { passes: number; fails: number };
    failed?: { name: string; level: string; passes: number; fails: number }[];
  };
  /** Answers that were the network's, not the target's. */
  transport?: { answers: number; failures: number; kinds: Record<string, number> };
  /** The scripts' own counters (mutation_triggers_completed, ...). */
  counters?: Record<string, number>;
  /** What the run wrote to the target, per resource (the mutation profile), for ledger.json. */
  writes?: LoadWrites;
  /** Summaries written before `writes`: the same as figures named `ledger_<what>{<kind>:<id>}` (read by load/lib/writes.ts). */
  ledger?: Record<string, number>;
  /** What the run means, added by the load command. */
  verdict?: LoadOutcome;
  /** Whether the asked load was delivered; absent in summaries written before it was judged. */
  delivery?: LoadDelivery;
  /** The shape and limits given as data; absent when the profile's own shape ran. */
  shape?: LoadShape;
  /** Latency over time, period by period; absent in summaries written before it was kept, and in merged ones. */
  periods?: LoadPeriod[];
  [k: string]: unknown;
}

export interface Tolerance {
  /** A latency regresses when (run / calibration) exceeds (baseline / its calibration) by more than this factor. */
  p50: number;
  p95: number;
  p99: number;
  /** Differences smaller than this many milliseconds are noise, whatever the ratio. */
  minDeltaMs: number;
  /** Throughput regresses below this share of the baseline's. */
  rps: number;
  /** Error rate regresses above the baseline's plus this. */
  errorRate: number;
  /** Samples needed before p95 (minP95Count) and p99 (minP99Count) are judged. */
  minP95Count: number;
  minP99Count: number;
  /** The statistical rule (when run and baseline keep samples): smallest slowdown that counts (0.1 = 10%), and the family-wise alpha. */
  minEffect?: number;
  alpha?: number;
}

export interface EndpointRow {
  endpoint: string;
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  errorRate: number;
  count: number;
  baseline: { p50: number; p95: number; p99: number; rps: number; errorRate: number; count: number } | null;
  ratio: { p50: number; p95: number; p99: number; rps: number } | null;
  regression: boolean;
  reason: string;
  /** What found the regression (empty when none): the statistical latency rule, the latency ratio tolerances, throughput, error rate. */
  flaggedBy?: ('statistical' | 'ratio' | 'throughput' | 'errors')[];
  /** Which rule judged the latency: the Mann-Whitney test and median-ratio interval on the samples, or the ratio tolerances. */
  rule?: 'statistical' | 'ratio';
  /** The statistical rule's figures: calibrated median ratio, its interval, the one-sided p and the level it was held to. */
  statistical?: {
    effect: number;
    lower: number;
    upper: number;
    p: number;
    alpha: number;
    n: { run: number; base: number };
    regression: boolean;
    reason: string;
  };
}
export interface ProfileResult {
  script: string;
  profile: string;
  baselineFile: string;
  baselineProfile: string | null;
  verdict: 'pass' | 'regression' | 'no-baseline';
  reason: string;
  calibration: { p50: number; p95: number; p99: number; rps: number; errorRate: number; baseline: Figures | null; scale: number | null };
  /** Which rule judged the latencies, and why the statistical one did not when it did not. */
  latencyRule?: string;
  endpoints: EndpointRow[];
}
export interface CompareResult {
  verdict: 'pass' | 'regression' | 'no-baseline';
  tolerance: Tolerance;
  profiles: Record<string, ProfileResult>;
  /** What the load runner did with each regression before believing it (load/command/run-plan.ts); absent when nothing regressed. */
  confirmation?: CompareConfirmation[];
}

/** A regressed profile's confirmation: run again when a rule other than the statistical one found it, and what the second run said. */
export interface CompareConfirmation {
  script: string;
  /** Whether the profile was run again (no: the statistical rule alone found it, and one run is enough). */
  rerun: boolean;
  /** Whether the regression stands. */
  confirmed: boolean;
  /** One line for the console and verify's stage detail. */
  note: string;
}

// reports/ledger.json: what a run wrote to the target, and what it gave back (core/ledger.ts reads and
// writes it). The spec has no delete: rules, metrics and skipped phases stay; a gate's enabled state
// and an experiment's overrides are restored at the end of each command that changed them.

/** Whether the API lets the write be undone, and whether the run did. */
export type Undo = 'restored' | 'not restored' | 'cannot be undone' | 'nothing to undo';

/** One write the run made (the suite lists each; the load counts writes alike), or several alike (`count`). */
export interface LedgerWrite {
  operation: string;
  /** The resource, as its path under /console/v1/: `gates/<id>`, `metrics/<id>`, `experiments/<id>`, `release_pipeline_triggers/<id>`. */
  resource: string;
  /** What it added or changed, one line. */
  change: string;
  count: number;
  /** Gate rules this entry added, all its writes together (add rules only). */
  added?: number;
  undo: Undo;
  /** No answer came: whether the write took is not known. */
  uncertain?: true;
}

/** The writes of one command of the run (conformance, a load script, the snapshot and the restore). */
export interface LedgerPart {
  by: string;
  startedAt: string;
  writes: LedgerWrite[];
  /** What the command put back at its end, one entry per resource and field. */
  restores: { resource: string; field: string; to: unknown; ok: boolean; detail?: string }[];
}

/** What a run adds to a target, summed over its writes: the history keeps it per run. */
export interface FootprintTotals {
  writes: number;
  /** Rules added, per gate id. */
  rulesAdded: Record<string, number>;
  metricsCreated: number;
  metricsUpdated: number;
  /** Phases skipped, per trigger id. */
  phasesSkipped: Record<string, number>;
  unpaused: number;
  gateToggles: number;
  overridePatches: number;
  /** Writes the run could have undone but did not (a restore that failed). */
  notRestored: number;
}

/** The manifest's resources as the run's last answers showed them (the spec has no gate or trigger read). */
export interface ManifestState {
  gates: Record<string, { rules: number | null; isEnabled: boolean | null }>;
  triggers: Record<string, { currentPhaseID: string | null; status: string | null }>;
}

export interface Ledger {
  format: 'console-conformance.ledger/1';
  target: string;
  manifest: string;
  readOnly: boolean;
  parts: LedgerPart[];
  totals: FootprintTotals;
  state: ManifestState;
  /** Restores not finished yet, one per target: kept across runs in this folder until one finishes them. */
  owed?: OwedRestore[];
}

/**
 * What a run owes a target's owners: written to the ledger before its first write to a thing of theirs
 * that the API lets it give back, emptied as the restore is answered. A run cut before that (SIGKILL, a
 * lost machine) leaves it for the next run in the same reports folder, which finishes it first.
 */
export interface OwedRestore {
  /** The target's base URL (the key is never written; the run that finishes it uses its own). */
  target: string;
  /** The command that first owed it, and when. */
  by: string;
  since: string;
  /** Each gate's isEnabled as the first run that touched it found it: the owner's, never a cut run's. */
  gates: Record<string, boolean>;
}

/**
 * A switch of the reference as `serve --list-faults` prints it, everything but its change: reference/faults.ts
 * lists them, contracts/selftest-runs.ts reads the list for the self-tests and the proof map.
 */
export interface ListedSwitch {
  name: string;
  description: string;
  clause: string;
  level: Level;
  /** The reference's layer it changes (reference/layers/types.ts). */
  layer: 'request' | 'storage' | 'response' | 'errors';
  /** With a parameter: how it is given (`rules-cap:<N>`); the name alone takes the default. */
  parameter?: string;
  /** A fault generated from the contract (reference/layers/generated.ts): the edit it is made of. */
  generated?: string;
  /** Experiments a reference needs for the switch to show (a defect deep in a list). */
  scale?: number;
  /** The suite files the self-test runs for it, where not those naming its clause. */
  files?: readonly string[];
  /** Variants a generated fault shows only beside (it changes a shape the reference answers only under them). */
  alongside?: string[];
}
/** A variant as listed, with what the self-test expects of the suite against it: pass under --strict, or pass in default mode with warnings. */
export interface ListedVariant extends ListedSwitch {
  strict: 'pass' | 'warns';
}

/**
 * reports/clause-proof.json (written by contracts/proof.ts, `npm run clauses:proof`; a copy is committed
 * as docs/clause-proof.json): which fault proves each stated and inferred clause's check can fail. A
 * fault proves a clause when a strict run of the suite against the reference with that fault alone
 * (and the variants it needs) marks the clause `fail` in its conformance.json.
 */
export interface ClauseProof {
  format: 'console-conformance.clause-proof/1';
  /** When the map was last written (ISO), at which commit, and whether tracked files had changes then (each run names its own commit). */
  madeAt: string;
  commit: string | null;
  dirty: boolean;
  /** The rule a pair is claimed by, and how the suite blamed failures when the map was made. */
  rule: string;
  /** Not every listed fault was run (an --only run that started the map, or a run stopped early). */
  partial: boolean;
  /** By level: clauses, those some fault fails, those none does, and those failed by a fault aimed at them (its entry names the clause). */
  summary: Record<'stated' | 'inferred', { total: number; proved: number; unproved: number; aimed: number }> & {
    faults: { run: number; handWritten: number; generated: number; variants: number; failingNothing: number; problems: number };
    seconds: number;
    lanes: number;
  };
  clauses: ClauseProofEntry[];
  faults: FaultProofRun[];
}

export interface ClauseProofEntry {
  id: string;
  level: 'stated' | 'inferred';
  section: string;
  /** The faults whose run failed the clause. */
  provedBy: string[];
  /** The faults written or generated for this clause (their registry entry names it). */
  targetedBy: string[];
  /** Why no fault proves it (only when provedBy is empty). */
  why?: string;
}

export interface FaultProofRun {
  name: string;
  /** A legal variant that meets an inferred clause (strict: 'warns'), run like a fault: strict fails it on that clause. */
  variant?: true;
  /** The clause the fault's entry names, and its level. */
  clause: string;
  level: Level;
  /** A generated fault: the edit it is made of. */
  generated?: string;
  /** Variants it ran beside. */
  alongside?: string[];
  /** What of the suite ran: files, or the tests naming its clause. */
  selection: string;
  verdict: string;
  /** Tests run. */
  tests: number;
  /** The stated and inferred clauses the run failed: the pairs the map claims. */
  fails: string[];
  seconds: number;
  /** The commit the run was made at (`+changes`: with changes to tracked files); an --only run keeps the others' runs as they were. */
  commit?: string | null;
}

// reports/.../exchanges.json: every exchange of every test of one suite run, in the order the test made
// them (candidate/exchanges-reporter.ts writes it; `npm run candidate` pairs two runs' files).
export interface TestExchanges {
  /** The test's file (relative to the suite folder) and title: the same test in two runs has the same key. */
  key: string;
  /** The clauses the test names (its `checks(...)`), and the open clauses it observed, as `clause:aspect`. */
  clauses: string[];
  observations: string[];
  status: string;
  exchanges: Exchange[];
}
export interface ExchangeLog {
  format: 'console-conformance.exchanges/1';
  tests: TestExchanges[];
}

// reports/candidate.json: `npm run candidate`, current against candidate (candidate/, docs/reports.md).
export type Side = 'current' | 'candidate';
/** One difference of a kind the spec leaves open, or a stated clause's result, with both sides' evidence. */
export interface SidePair {
  current: Exchange | null;
  candidate: Exchange | null;
}
/** A stated (or, under --strict, inferred) clause the candidate breaks: `current` says what the current did with it. */
export interface CandidateRegression {
  clause: string;
  level: Level;
  section: string | null;
  text: string | null;
  /** The current's status of the clause (pass, or unchecked: the candidate breaks it all the same). */
  current: Status;
  test: string;
  error: string | null;
  exchanges: SidePair;
}
/** A clause both sides break: no change, reported apart. */
export interface BothBroken {
  clause: string;
  level: Level;
  current: string | null;
  candidate: string | null;
}
export type ChangeKind = 'status' | 'type' | 'field presence' | 'order' | 'page size' | 'message' | 'body' | 'requests' | 'observation' | 'inferred';
/** What the spec leaves open and differs: one per operation, kind and place, with its first pair of exchanges. */
export interface CandidateChange {
  /** The operation (contract operationId, or METHOD path for a request outside the contract). */
  operation: string;
  kind: ChangeKind;
  /** Where in the answer: a JSON path with [] for any item (`data[].id`), or the observation's aspect. */
  where: string;
  /** The clause ids of the tests that met it, or the observation id (`clause:aspect`). */
  clauses: string[];
  current: unknown;
  candidate: unknown;
  /** How many paired exchanges showed it. */
  count: number;
  test: string;
  exchanges: SidePair;
}
export interface CandidateSideRun {
  side: Side;
  target: string;
  manifest: string;
  /** The suite's verdict in each read, and where each read's reports are. */
  reads: { verdict: string; exitCode: number; reports: string }[];
}
export interface CandidateReport {
  format: 'console-conformance.candidate/1';
  verdict: 'pass' | 'regression' | 'changed' | 'not carried out';
  exitCode: number;
  startedAt: string;
  durationMs: number;
  options: { readOnly: boolean; strict: boolean; freezeOpen: boolean; reads: number };
  sides: CandidateSideRun[];
  regressions: CandidateRegression[];
  changes: CandidateChange[];
  bothBroken: BothBroken[];
  /** Clauses the current breaks and the candidate keeps. */
  fixed: string[];
  /** What was learnt as noise (values that differ between two reads of one side): counted, never listed as a change. */
  noise: { places: number; differencesIgnored: number; unstableTests: number };
  /** Paired exchanges compared, and those of one side alone (a test that took another path). */
  paired: { exchanges: number; tests: number };
  /** Why it could not be carried out (exit 3), naming the side. */
  reason?: string;
  /** --latency: the paging profile (and with --writes the mutation profile) sent to both sides in one run, interleaved (load/command/paired.ts). */
  latency?: CandidateLatency;
}

/** One operation of the side-by-side latency: the candidate's durations against the current's, pair by pair, in one run. */
export interface CandidateLatencyEndpoint {
  /** The operation (the API's endpoint: every profile request of it pooled, e.g. listExperiments). */
  endpoint: string;
  /** The candidate is slower: the one-sided test rejects and the interval lies above 1 + minEffect. */
  regression: boolean;
  /** False when too few requests could reach the test's level. */
  decidable: boolean;
  /**
   * Calibrated ratio candidate / current (1.25: 25% slower): the centre of the pairs' ratios (their
   * 20%-trimmed mean in logs) beyond the ruler's, with its bootstrap interval.
   */
  ratio: number;
  lower: number;
  upper: number;
  /** One-sided Wilcoxon signed-rank p-value over the pairs ("the candidate is slower") and the level it was held to. */
  p: number;
  alpha: number;
  /** Requests answered as expected by both sides (pairs): the same on both. */
  n: { current: number; candidate: number };
  /** Medians of the pairs' durations in ms. */
  median: { current: number; candidate: number };
  reason: string;
  /** The profile whose run measured it (each run has its own ruler). */
  script?: LoadScript;
  /**
   * The candidate's requests of this operation and how many it answered unexpectedly (not the answer
   * its current counterpart expects): past the profile's error rate the operation is not decidable.
   */
  candidate?: { requests: number; unexpected: number };
}

export interface CandidateLatency {
  /** The profiles run side by side: paging, and with --writes mutation too (each run its own ruler, Bonferroni over every operation). */
  scripts: LoadScript[];
  profile: string;
  verdict: 'pass' | 'regression' | 'not carried out';
  minEffect: number;
  alpha: number;
  confidence: number;
  /** The calibration request's pairs' centre ratio, candidate over current (the ruler each ratio is divided by), of the first run. */
  calibration: number | null;
  /** Each profile's run: its ruler, and where its reports are (relative to the reports folder). */
  runs?: { script: LoadScript; calibration: number | null; reports: string }[];
  /** With --writes: each external side's ledger of the mutation run (relative to the reports folder). */
  ledgers?: Partial<Record<Side, string>>;
  /** What the pairing of the two manifests left out (one line per id). */
  notes?: string[];
  endpoints: CandidateLatencyEndpoint[];
  /** Requests sent to both sides, and how many went to the candidate first. */
  requests: { paired: number; candidateFirst: number };
  /** Where the run's own reports are (summary.json of the current's side, junit.xml, artillery.json), relative to the reports folder. */
  reports: string;
  reason?: string;
}

// Reading and writing the run files: the only place that parses them.

/** Where each run file lives in a reports folder. */
export const RUN_FILES = {
  conformance: 'conformance.json',
  observations: 'observations.json',
  verify: 'verify.json',
  ledger: 'ledger.json',
  compare: join('load', 'compare.json'),
  summary: (script: string) => join('load', script, 'summary.json'),
  clauseProof: 'clause-proof.json',
  targetCheck: 'target-check.json',
  exchanges: 'exchanges.json',
  candidate: 'candidate.json',
} as const;

/** A run file's content; undefined when it is absent. A file that is there but not JSON throws, naming it. */
function readRunFile<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Writes `value` as indented JSON, through `guard` (redaction, or a refusal to write the key), by a rename: no reader sees half a file. */
function writeRunFile(file: string, value: unknown, guard: (text: string) => string = (t) => t): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, guard(`${JSON.stringify(value, null, 2)}\n`));
  renameSync(`${file}.tmp`, file);
}

export const readConformance = (dir: string) => readRunFile<ConformanceReport>(join(dir, RUN_FILES.conformance));
export const writeConformance = (dir: string, r: ConformanceReport, guard?: (text: string) => string) =>
  writeRunFile(join(dir, RUN_FILES.conformance), r, guard);
/** observations.json of a run, or a previous run's (the drift baseline, given as a file). */
export const readObservationsFile = (file: string) => readRunFile<Observations>(file);
export const writeObservations = (dir: string, o: Observations, guard?: (text: string) => string) => writeRunFile(join(dir, RUN_FILES.observations), o, guard);
export const readVerify = (dir: string) => readRunFile<VerifyRun>(join(dir, RUN_FILES.verify));
export const writeVerify = (dir: string, v: VerifyRun, guard?: (text: string) => string) => writeRunFile(join(dir, RUN_FILES.verify), v, guard);
/**
 * JSON indented by two spaces, as the other run files, except that an array of numbers stays on one
 * line: a histogram of 200 buckets is one line of a baseline's diff, not 200.
 */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(/\[\n[\d\s,.eE+-]*\]/g, (a) => `[${a.slice(1, -1).trim().split(/,\s*/).join(', ')}]`)}\n`;
}

/** A load run's summary.json, or a baseline (same fields), given as a file; undefined when absent. */
export const readRunSummary = (file: string) => readRunFile<RunSummary>(file);
/** Writes a summary.json or a baseline (histograms on one line each). */
export function writeRunSummary(file: string, s: RunSummary): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, formatJson(s));
  renameSync(`${file}.tmp`, file);
}
/** compare.json, in a reports folder (`load/compare.json`) or where `--out` put it. */
export const readCompareFile = (file: string) => readRunFile<CompareResult>(file);
export const writeCompareFile = (file: string, c: CompareResult) => writeRunFile(file, c);
/** ledger.json of the run in `dir`; undefined when there is none or it is not a ledger. */
export function readLedgerFile(dir: string): Ledger | undefined {
  const l = readRunFile<Ledger>(join(dir, RUN_FILES.ledger));
  return l?.format === 'console-conformance.ledger/1' && Array.isArray(l.parts) ? l : undefined;
}
export const writeLedgerFile = (dir: string, l: Ledger) => writeRunFile(join(dir, RUN_FILES.ledger), l);
/** A proof map; undefined when absent or of another format. */
export function readClauseProofFile(file: string): ClauseProof | undefined {
  const m = readRunFile<ClauseProof>(file);
  return m?.format === 'console-conformance.clause-proof/1' ? m : undefined;
}
/** A proof map as text: its head indented, one line per clause and per run (the committed map stays diffable). */
export function formatClauseProof(map: ClauseProof): string {
  const { clauses, faults, ...head } = map;
  const lines = (xs: unknown[]) => (xs.length ? `[\n${xs.map((x) => `    ${JSON.stringify(x)}`).join(',\n')}\n  ]` : '[]');
  const top = JSON.stringify(head, null, 2).replace(/\n}$/, '');
  return `${top},\n  "clauses": ${lines(clauses)},\n  "faults": ${lines(faults)}\n}\n`;
}
/** Writes the map whole, or not at all (a run stopped while writing leaves the previous one). */
export function writeClauseProofFile(file: string, m: ClauseProof): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, formatClauseProof(m));
  renameSync(`${file}.tmp`, file);
}
/** exchanges.json of a suite run (candidate/exchanges-reporter.ts); undefined when absent or of another format. */
export function readExchangeLog(dir: string): ExchangeLog | undefined {
  const l = readRunFile<ExchangeLog>(join(dir, RUN_FILES.exchanges));
  return l?.format === 'console-conformance.exchanges/1' && Array.isArray(l.tests) ? l : undefined;
}
export const writeExchangeLog = (dir: string, l: ExchangeLog, guard?: (text: string) => string) => writeRunFile(join(dir, RUN_FILES.exchanges), l, guard);
/** candidate.json (`npm run candidate`); undefined when absent or of another format. */
export function readCandidate(dir: string): CandidateReport | undefined {
  const c = readRunFile<CandidateReport>(join(dir, RUN_FILES.candidate));
  return c?.format === 'console-conformance.candidate/1' ? c : undefined;
}
export const writeCandidate = (dir: string, c: CandidateReport, guard?: (text: string) => string) => writeRunFile(join(dir, RUN_FILES.candidate), c, guard);
