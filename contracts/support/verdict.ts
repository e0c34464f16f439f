// The verdict of a conformance run, as a pure function of what its tests did: each clause's status from
// the tests' results, the user's waivers and the run's selection; the failures and inconclusive tests;
// the summary; and the exit code. No Playwright, no files: the reporter (reporter.ts) gathers the
// results and writes what this returns, and verdict.test.ts checks it on hand-made results.
import type {
  ClauseResult,
  ConformanceReport,
  ConformanceSummary,
  Exchange,
  FailureResult,
  InconclusiveResult,
  IncompleteGroup,
  RunStop,
  StatedCoverage,
  Status,
  UncheckedKind,
} from '../../core/formats.ts';
import { STATUSES } from '../../core/formats.ts';
import type { Waiver } from '../../core/config.ts';
import type { ExitCode } from '../../core/exit.ts';
import { EXIT } from '../../core/exit.ts';
import { waiverOf } from '../../core/waivers.ts';
import type { Clause } from './clauses.ts';
import type { Inconclusive, Level, Observation } from './suite-test.ts';

/** A clause a test could not check, and whose that is (core/formats.ts, UncheckedKind). */
export interface Unchecked {
  clause: string;
  reason: string;
  kind: UncheckedKind;
}

/** One test's result as the reporter gathered it (or one inferred finding, `finding: true`). */
export interface Ran {
  title: string;
  file: string;
  level: Level;
  clauses: string[];
  ok: boolean;
  /** A failure that makes the run fail: stated (or open: a stated check inside it), or inferred under strict. */
  counts: boolean;
  durationMs: number;
  error?: string;
  exchanges: Exchange[];
  observations: Observation[];
  uncovered: Unchecked[];
  /** Set when the test checked nothing: a transport failure, or not run because the run had stopped. */
  inconclusive?: Inconclusive;
  /** An inferred finding a test recorded (contracts/support/findings.ts): its own result, not a test. */
  finding?: true;
  /** Clauses the test checked on the way (findings.ts): they pass when no finding names them. */
  checked?: string[];
  /** Set when the test did not run on purpose: all its clauses waived, or a write in a read-only run (the reason). */
  skippedAs?: string;
  /**
   * A failed test's blame (support/blame.ts): the clauses whose assertions failed (one it does not name
   * among them, such as a field clause that expectSuccess blamed), and the clauses it names that it did
   * not reach before it stopped. The others it names held.
   */
  blamed?: string[];
  unreached?: string[];
}

/** Everything the verdict depends on. */
export interface VerdictInput {
  /** The tests, in the order they ended. */
  ran: Ran[];
  /** Each inferred finding of a test, as its own result. */
  findings: Ran[];
  /** The clause catalogue (contracts/clauses.yaml). */
  catalogue: readonly Clause[];
  /** The clauses the planned tests name: a clause outside it (a --grep or --shard run) is excluded, not uncovered. */
  scope: ReadonlySet<string>;
  waive: Waiver[] | undefined;
  strict: boolean;
  readOnly: boolean;
  target: string | null;
  manifest: string | null;
  /** The seed of the list checks' draws (CONSOLE_LIST_SEED): set it again to replay them. */
  listSeed?: number;
  startedAt: number;
  endedAt: number;
  /** How many tests the run planned (0 when unknown). */
  planned: number;
  /** Why the run stopped early, when it did (the reporter's count of transport failures in a row). */
  stop: RunStop | null;
  /** Playwright's own status of the whole run (a deadline or an interrupt stops it). */
  playwrightStatus: string;
  /** Differences from the observations baseline. */
  drift: number;
}

/** What conformance.json holds but its drift, which the reporter compares apart (against the observations baseline). */
export type RunVerdict = Omit<ConformanceReport, 'drift'>;

export const LEVELS: Level[] = ['stated', 'inferred', 'open'];
/** When tests leave one clause unchecked for several reasons, the one shown: the user's to fix first. */
const KIND_ORDER: UncheckedKind[] = ['resource', 'unverifiable', 'excluded', 'waived'];
const STATUS_OF_KIND: Record<UncheckedKind, Status> = { resource: 'uncovered', unverifiable: 'unverifiable', excluded: 'excluded', waived: 'waived' };

/** The run's verdict: every clause's status, the failures, the inconclusive tests and the summary. */
export function verdict(input: VerdictInput): RunVerdict {
  const { ran, findings } = input;
  const clauses = clauseResults(input);
  const stop = input.stop ?? stopOf(input);
  const inconclusive = ran
    .filter((r) => r.inconclusive && !r.inconclusive.stopped)
    .map(
      (r): InconclusiveResult => ({
        test: r.title,
        file: r.file,
        clauses: r.clauses,
        reason: `inconclusive: transport: ${r.inconclusive!.reason}`,
        ...(r.inconclusive!.exchange ? { exchange: r.inconclusive!.exchange } : {}),
      }),
    );
  const stoppedTests = ran.filter((r) => r.inconclusive?.stopped).length;
  const notRun = input.planned > 0 ? Math.max(0, input.planned - ran.length) + stoppedTests : stoppedTests;
  const failures = [...ran, ...findings]
    .filter((r) => !r.ok)
    .map(
      (r): FailureResult => ({
        test: r.title,
        file: r.file,
        level: r.level,
        clauses: r.clauses,
        counts: r.counts,
        error: r.error,
        exchanges: r.exchanges.slice(-3),
        ...(r.finding ? { finding: true } : {}),
        ...(r.blamed ? { blamed: r.blamed, unreached: r.unreached ?? [] } : {}),
      }),
    );
  const failedTests = failures.filter((f) => !f.finding);
  const count = (s: Status) => clauses.filter((c) => c.status === s).length;
  const stated = clauses.filter((c) => c.level === 'stated');
  const statedCount = (...ss: Status[]) => stated.filter((c) => ss.includes(c.status)).length;
  const coverage: StatedCoverage = {
    total: stated.length,
    checked: statedCount('pass', 'fail', 'warn'),
    uncovered: statedCount('uncovered'),
    unverifiable: statedCount('unverifiable'),
    waived: statedCount('waived'),
    excluded: statedCount('excluded'),
    unreached: statedCount('unreached'),
  };
  // A stated clause no test reached (its test stopped at an inferred clause's failure, in default mode),
  // or one its tests could not decide on this target, was not checked: in a run that fails nothing,
  // that makes it INCOMPLETE, never PASS (the user who accepts it waives it).
  const counting = failures.some((f) => f.counts);
  const incomplete = incompleteGroups(stated.filter((c) => c.status === 'uncovered' || c.status === 'unverifiable' || (!counting && c.status === 'unreached')));
  const summary: ConformanceSummary = {
    verdict: counting ? 'fail' : inconclusive.length > 0 || stop ? 'inconclusive' : incomplete.length > 0 ? 'incomplete' : 'pass',
    strict: input.strict,
    readOnly: input.readOnly,
    target: input.target,
    manifest: input.manifest,
    ...(input.listSeed !== undefined ? { listSeed: input.listSeed } : {}),
    startedAt: new Date(input.startedAt).toISOString(),
    durationMs: input.endedAt - input.startedAt,
    tests: {
      total: ran.length,
      passed: ran.filter((r) => r.ok && !r.inconclusive && !r.skippedAs).length,
      skipped: ran.filter((r) => r.skippedAs).length,
      failed: failedTests.length,
      failedCounting: failedTests.filter((f) => f.counts).length,
      inconclusive: inconclusive.length,
      notRun,
    },
    findings: { total: findings.length, counting: findings.filter((f) => f.counts).length },
    partial: stop !== null,
    stop,
    clauses: { total: clauses.length, ...(Object.fromEntries(STATUSES.map((s) => [s, count(s)])) as Record<Status, number>) },
    byLevel: Object.fromEntries(
      LEVELS.map((l) => [l, Object.fromEntries(STATUSES.map((s) => [s, clauses.filter((c) => c.level === l && c.status === s).length]))]),
    ) as Record<Level, Record<Status, number>>,
    coverage,
    incomplete,
    waived: (input.waive ?? []).map((w) => ({ ...w, count: clauses.filter((c) => c.status === 'waived' && waiverOf(input.waive, c.id) === w).length })),
    drift: input.drift,
    playwrightStatus: input.playwrightStatus,
  };
  return { summary, clauses, failures, inconclusive };
}

/**
 * The exit code of a run from its summary (README, "Exit codes"): 1 for a contract failure (a violation
 * proven before a stop is still a fact: 1 outranks 3); 3 for a run cut short or left inconclusive, one
 * in which no test ran, or one that left stated clauses unchecked for reasons the user can fix; else 0.
 */
export function exitCodeOf(summary: ConformanceSummary): ExitCode {
  if (summary.verdict === 'fail') return EXIT.contract;
  if (summary.verdict === 'inconclusive' || summary.tests.total === 0 || summary.verdict === 'incomplete') return EXIT.notCarriedOut;
  return EXIT.pass;
}

/** A stop the reporter did not see coming: Playwright's deadline or an interrupt. */
function stopOf(input: VerdictInput): RunStop | null {
  if (input.playwrightStatus !== 'timedout' && input.playwrightStatus !== 'interrupted') return null;
  const done = input.ran.filter((r) => !r.inconclusive?.stopped).length;
  return input.playwrightStatus === 'timedout'
    ? { cause: 'deadline', reason: 'the deadline passed', afterTests: done, ofTests: input.planned }
    : { cause: 'interrupted', reason: 'the run was interrupted', afterTests: done, ofTests: input.planned };
}

/** Every clause the catalogue, the tests or their observations name, with its status and why. */
function clauseResults(input: VerdictInput): ClauseResult[] {
  const { ran, findings, waive } = input;
  const byClause = new Map<string, Ran[]>();
  // A failed test answers for the clauses it names and for those it blamed without naming them.
  for (const r of [...ran, ...findings]) for (const c of new Set([...r.clauses, ...(r.blamed ?? [])])) byClause.set(c, [...(byClause.get(c) ?? []), r]);
  const checkedBy = new Map<string, string[]>();
  for (const r of ran) for (const c of r.checked ?? []) if (!r.inconclusive) checkedBy.set(c, [...(checkedBy.get(c) ?? []), r.title]);
  const known = new Map(input.catalogue.map((c) => [c.id, c]));
  const allObservations = ran.flatMap((r) => r.observations.map((o) => ({ ...o, test: r.title })));
  const allUncovered = ran.flatMap((r) => r.uncovered.map((u) => ({ ...u, test: r.title })));
  const ids = new Set([...known.keys(), ...byClause.keys(), ...allObservations.map((o) => o.clause)]);

  return [...ids].sort().map((id): ClauseResult => {
    const entry = known.get(id);
    const tests = byClause.get(id) ?? [];
    const checkedOnTheWay = checkedBy.get(id) ?? [];
    const observations = allObservations.filter((o) => o.clause === id).map(({ test, aspect, value }) => ({ test, aspect, value }));
    const uncovered = allUncovered.filter((u) => u.clause === id);
    const level: Level = entry?.level ?? tests[0]?.level ?? 'stated';
    // A test that could not reach its clause (uncovered) or checked nothing (inconclusive) does not count as checking it.
    const checking = tests.filter((t) => !t.inconclusive && !t.uncovered.some((u) => u.clause === id));
    const waiver = waiverOf(waive, id);
    // Why nothing checked it, the user's to fix first (KIND_ORDER); a clause the suite checks that no
    // planned test names was left out by the run's selection (--grep, --shard).
    const kind = KIND_ORDER.find((k) => uncovered.some((u) => u.kind === k));
    if (!kind && !input.scope.has(id) && (entry?.checkedBy.length ?? 0) > 0)
      uncovered.push({ clause: id, reason: 'not selected in this run (--grep or --shard)', kind: 'excluded', test: '' });
    // An open clause is only ever observed (or not reached); the others follow their tests: a failed
    // test that fails the run fails the clauses it blamed (support/blame.ts), one that does not
    // (inferred, default mode) warns; the clauses it held before it failed pass, and those it did not
    // reach are unreached, unless another test judged them. A waived clause is waived whatever its
    // tests did: the user said it does not count.
    const blamedBy = checking.filter((t) => !t.ok && (t.finding || (t.blamed ?? t.clauses).includes(id)));
    const unreachedBy = checking.filter((t) => !t.ok && t.unreached?.includes(id));
    const heldBy = checking.filter((t) => !blamedBy.includes(t) && !unreachedBy.includes(t));
    let status: Status;
    if (waiver) status = 'waived';
    else if (level === 'open') status = observations.length > 0 ? 'observed' : kind ? STATUS_OF_KIND[kind] : 'uncovered';
    else if (blamedBy.some((t) => t.counts)) status = 'fail';
    else if (blamedBy.length > 0) status = 'warn';
    else if (heldBy.length > 0) status = 'pass';
    else if (unreachedBy.length > 0) status = 'unreached';
    else status = checkedOnTheWay.length > 0 ? 'pass' : STATUS_OF_KIND[kind ?? (uncovered[0]?.kind as UncheckedKind) ?? 'resource'];
    const stopped = unreachedBy.map((t) => `not reached: "${t.title}" stopped at its failure of ${(t.blamed ?? []).join(', ')}`);
    const why = waiver
      ? [`waived (${waiver.clauses}): ${waiver.reason}`]
      : status === 'pass'
        ? []
        : status === 'unreached'
          ? stopped
          : [...new Set(uncovered.map((u) => u.reason))];
    const evidence = blamedBy.map((t) => ({ test: t.title, level: t.level, error: t.error, exchanges: t.exchanges.slice(-3) }));
    return {
      id,
      section: entry?.section ?? null,
      level,
      status,
      text: entry?.text ?? null,
      tests: [...new Set([...tests.filter((t) => !t.finding).map((t) => t.title), ...checkedOnTheWay])],
      evidence,
      observations,
      ...(why.length > 0 ? { uncovered: why } : {}),
    };
  });
}

/** Clauses grouped by their first unchecked reason, in the order first met. */
export function byReason(clauses: ClauseResult[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of clauses) {
    const reason = c.uncovered?.[0] ?? 'no test reached it in this run';
    out.set(reason, [...(out.get(reason) ?? []), c.id]);
  }
  return out;
}

/** The stated clauses left unchecked for a reason the user can fix, one group per reason: why the run is INCOMPLETE. */
function incompleteGroups(uncovered: ClauseResult[]): IncompleteGroup[] {
  const undecided = new Set(uncovered.filter((c) => c.status === 'unverifiable').map((c) => c.id));
  return [...byReason(uncovered)].map(([reason, clauses]) => ({
    reason: clauses.some((id) => undecided.has(id)) ? `${reason} (to accept it undecided, waive it: --waive '<clause>=<reason>')` : reason,
    clauses,
  }));
}
