// Writes reports/conformance.json (shape in core/formats.ts and docs/reports.md),
// reports/junit.xml and reports/observations.json, and prints the clause matrix. Levels decide what a
// failed test means: stated fails the run, inferred warns (fails under strict), open only records.
// Everything written goes through redactText: the API key never reaches a report.
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, loadConfig } from '../../core/config.ts';
import { CLAUSES } from './clauses.ts';
import { compareObservations, readObservations, summarize, type Drift, type Observations } from './observations.ts';
import { junitXml } from './junit.ts';
import { redactText } from '../../core/keys.ts';
import {
  STATUSES,
  writeConformance,
  writeObservations,
  type ClauseResult,
  type ConformanceReport,
  type ConformanceSummary,
  type Exchange,
  type FailureResult,
  type InconclusiveResult,
  type IncompleteGroup,
  type RunStop,
  type Status,
  type StatedCoverage,
  type UncheckedKind,
} from '../../core/formats.ts';
import { waiverOf } from '../../core/waivers.ts';
import { addLedgerPart, emptyState, noteState, tally, writeOf } from '../../core/ledger.ts';
import type { LedgerWrite } from '../../core/formats.ts';
import { CHECKED, FINDING, type Finding } from './findings.ts';
import { FAILED_EXCHANGE, HELD, blameOf, exchangeDigest, untagged } from './blame.ts';
import type { Inconclusive, Level, Observation } from './target.ts';
import { STOP_AFTER_CONSECUTIVE, clearStop, noAnswerInTime, requestStop, silenceReason } from './transport.ts';

export type { ClauseResult, ConformanceReport, ConformanceSummary, FailureResult, InconclusiveResult, RunStop, Status } from '../../core/formats.ts';

/** A clause a test could not check, and whose that is (core/formats.ts, UncheckedKind). */
export interface Unchecked {
  clause: string;
  reason: string;
  kind: UncheckedKind;
}

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

const LEVELS: Level[] = ['stated', 'inferred', 'open'];
/** When tests leave one clause unchecked for several reasons, the one shown: the user's to fix first. */
const KIND_ORDER: UncheckedKind[] = ['resource', 'unverifiable', 'excluded', 'waived'];
const STATUS_OF_KIND: Record<UncheckedKind, Status> = { resource: 'uncovered', unverifiable: 'unverifiable', excluded: 'excluded', waived: 'waived' };

export default class ConformanceReporter implements Reporter {
  private ran: Ran[] = [];
  /** Each inferred finding of a test, as its own result (a warning, or under --strict a failure that counts). */
  private findings: Ran[] = [];
  private findingsShown = new Set<string>();
  private started = Date.now();
  private planned = 0;
  /** The clauses the planned tests name: a clause outside it (a --grep or --shard run) is excluded, not uncovered. */
  private scope = new Set<string>();
  /** Tests in a row that ended inconclusive, and the last reason: STOP_AFTER_CONSECUTIVE of them stop the run. */
  private inARow = 0;
  private stop: RunStop | null = null;
  private config = (() => {
    try {
      return loadConfig();
    } catch {
      return undefined; // the wrapper (contracts/conformance.ts) reports a bad configuration with exit 3
    }
  })();

  onBegin(_config: FullConfig, suite: Suite): void {
    const planned = suite.allTests();
    this.planned = planned.length;
    for (const test of planned) for (const a of test.annotations) if (a.type === 'clause' && a.description) this.scope.add(a.description);
    if (this.config) clearStop(this.config.reportsDir);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const level = (test.tags.find((t) => ['@stated', '@inferred', '@open'].includes(t))?.slice(1) ?? 'stated') as Level;
    // Notes added while the test ran are in result.annotations; Playwright copies them onto
    // test.annotations too, so reading both would count every one twice.
    const notes = (type: string) => result.annotations.filter((a) => a.type === type).map((a) => JSON.parse(a.description ?? '{}'));
    const inconclusive = this.inconclusiveOf(result, notes('inconclusive')[0] as Inconclusive | undefined);
    const ok = result.status === 'passed' || result.status === 'skipped' || inconclusive !== undefined;
    const clauses = test.annotations.filter((a) => a.type === 'clause').map((a) => a.description ?? '');
    // A skipped test checked nothing: its clauses are not covered by it (an inconclusive one is listed apart),
    // for the reason it was skipped: waived by the user, a write in a read-only run, or otherwise unknown.
    const skippedAs = (): Unchecked[] => {
      const waived = result.annotations.find((a) => a.type === 'waived');
      const excluded = result.annotations.find((a) => a.type === 'excluded');
      const refused = result.annotations.find((a) => a.type === 'refused');
      if (refused) return clauses.map((clause) => ({ clause, reason: refused.description ?? 'the target refused a resource', kind: 'resource' }));
      if (waived) return clauses.map((clause) => ({ clause, reason: `waived: ${waived.description}`, kind: 'waived' }));
      if (excluded) return clauses.map((clause) => ({ clause, reason: excluded.description ?? 'excluded', kind: 'excluded' }));
      return clauses.map((clause) => ({ clause, reason: 'test skipped', kind: 'resource' }));
    };
    const uncovered: Unchecked[] = inconclusive ? [] : result.status === 'skipped' ? skippedAs() : notes('uncovered');
    const onPurpose = result.status === 'skipped' && !inconclusive ? uncovered.find((u) => u.kind === 'waived' || u.kind === 'excluded')?.reason : undefined;
    const errors = result.errors.length > 0 ? result.errors : result.error ? [result.error] : [];
    // An open clause the test observed before it stopped was reached: what it records is all it checks.
    const observed = (notes('observation') as Observation[]).map((o) => o.clause);
    const blame = ok
      ? undefined
      : blameOf(
          clauses,
          [...(notes(HELD) as string[][]).flat(), ...observed],
          errors.map((e) => e.message ?? e.value),
        );
    this.ran.push({
      title: test.title,
      file: relative(ROOT, test.location.file),
      level,
      clauses,
      ok,
      counts: !ok && (level !== 'inferred' || (this.config?.strict ?? false)),
      durationMs: result.duration,
      error: ok
        ? undefined
        : untagged(result.error?.message ?? result.status)
            .split('\n')
            .slice(0, 8)
            .join('\n'),
      exchanges: withFailedLast(
        result.attachments.filter((a) => a.name === 'exchange' && a.body).map((a) => JSON.parse(a.body!.toString())),
        ok ? undefined : result.annotations.filter((a) => a.type === FAILED_EXCHANGE).at(-1)?.description,
      ),
      observations: notes('observation'),
      uncovered,
      ...(inconclusive ? { inconclusive } : {}),
      ...(onPurpose ? { skippedAs: onPurpose } : {}),
      checked: result.annotations.filter((a) => a.type === CHECKED).map((a) => a.description ?? ''),
      ...(blame ? { blamed: blame.blamed, unreached: blame.unreached } : {}),
    });
    for (const f of notes(FINDING) as Finding[]) {
      // The same absence is usually met by many tests: its evidence is kept once (a list response is
      // large, and hundreds of copies of it would make the reports megabytes for no more proof).
      const shown = f.exchange && !this.findingsShown.has(f.message);
      if (shown) this.findingsShown.add(f.message);
      this.findings.push({
        title: `${test.title} :: ${f.message}`,
        file: relative(ROOT, test.location.file),
        level: 'inferred',
        clauses: [f.clause],
        ok: false,
        counts: this.config?.strict ?? false,
        durationMs: 0,
        error: shown || !f.exchange ? f.message : `${f.message} (evidence under its first occurrence)`,
        exchanges: shown ? [f.exchange!] : [],
        observations: [],
        uncovered: [],
        finding: true,
      });
    }
    this.countInARow(inconclusive);
  }

  /** The test's inconclusive note; a test that ran out of time or was interrupted also checked nothing. */
  private inconclusiveOf(result: TestResult, note: Inconclusive | undefined): Inconclusive | undefined {
    if (note) return note;
    if (result.status === 'timedOut') return { reason: `test timed out after ${Math.round(result.duration / 1000)} s: the target answered too slowly` };
    if (result.status === 'interrupted') return { reason: this.stop?.reason ?? 'the run was interrupted', stopped: true };
    return undefined;
  }

  private countInARow(inconclusive: Inconclusive | undefined): void {
    if (inconclusive?.stopped) return;
    this.inARow = inconclusive ? this.inARow + 1 : 0;
    // One request without an answer in time stops the run at once (transport.ts, noAnswerInTime).
    const silent = inconclusive !== undefined && noAnswerInTime(inconclusive.reason);
    if ((this.inARow < STOP_AFTER_CONSECUTIVE && !silent) || this.stop || !this.config || !inconclusive) return;
    const cause = inconclusive.reason.replace(/^no response: /, '').replace(/ \(none within .*\)$/, '');
    const reason = silent ? silenceReason(inconclusive.reason) : `${STOP_AFTER_CONSECUTIVE} consecutive transport failures (${cause})`;
    this.stop = { cause: 'transport', reason, afterTests: this.ran.length, ofTests: this.planned };
    requestStop(this.config.reportsDir, reason);
  }

  onEnd(result: FullResult): void {
    // `playwright test --list` (clauses:coverage) runs no test: leave the last run's reports alone.
    if (this.ran.length === 0) return;
    const config = this.config;
    const strict = config?.strict ?? false;
    const ran = this.ran;

    // Findings are results of their own (in their clause, the failures and junit.xml), but not tests.
    const findings = this.findings;
    const byClause = new Map<string, Ran[]>();
    // A failed test answers for the clauses it names and for those it blamed without naming them.
    for (const r of [...ran, ...findings]) for (const c of new Set([...r.clauses, ...(r.blamed ?? [])])) byClause.set(c, [...(byClause.get(c) ?? []), r]);
    const checkedBy = new Map<string, string[]>();
    for (const r of ran) for (const c of r.checked ?? []) if (!r.inconclusive) checkedBy.set(c, [...(checkedBy.get(c) ?? []), r.title]);
    const known = new Map(CLAUSES.map((c) => [c.id, c]));
    const waive = config?.manifest.waive;
    const allObservations = ran.flatMap((r) => r.observations.map((o) => ({ ...o, test: r.title })));
    const allUncovered = ran.flatMap((r) => r.uncovered.map((u) => ({ ...u, test: r.title })));
    const ids = new Set([...known.keys(), ...byClause.keys(), ...allObservations.map((o) => o.clause)]);

    const clauses = [...ids].sort().map((id): ClauseResult => {
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
      if (!kind && !this.scope.has(id) && (entry?.checkedBy.length ?? 0) > 0)
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

    if (config) clearStop(config.reportsDir);
    if (!this.stop && (result.status === 'timedout' || result.status === 'interrupted')) {
      const done = ran.filter((r) => !r.inconclusive?.stopped).length;
      this.stop =
        result.status === 'timedout'
          ? { cause: 'deadline', reason: 'the deadline passed', afterTests: done, ofTests: this.planned }
          : { cause: 'interrupted', reason: 'the run was interrupted', afterTests: done, ofTests: this.planned };
    }
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
    const notRun =
      this.planned > 0
        ? Math.max(0, this.planned - ran.length) + ran.filter((r) => r.inconclusive?.stopped).length
        : ran.filter((r) => r.inconclusive?.stopped).length;
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
    const observations = summarize(allObservations);
    const drift = config?.observationsBaseline ? compareObservations(readObservations(config.observationsBaseline), observations) : [];
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
    // A stated clause no test reached (its test stopped at an inferred clause's failure, in default mode)
    // was not checked: in a run that fails nothing, that makes it INCOMPLETE, never PASS.
    const counting = failures.some((f) => f.counts);
    const incomplete = incompleteGroups(stated.filter((c) => c.status === 'uncovered' || (!counting && c.status === 'unreached')));
    const summary: ConformanceSummary = {
      verdict: counting ? 'fail' : inconclusive.length > 0 || this.stop ? 'inconclusive' : incomplete.length > 0 ? 'incomplete' : 'pass',
      strict,
      readOnly: config?.readOnly ?? false,
      target: config?.baseUrl ?? null,
      manifest: config?.manifestPath ? relative(ROOT, config.manifestPath) : null,
      startedAt: new Date(this.started).toISOString(),
      durationMs: Date.now() - this.started,
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
      partial: this.stop !== null,
      stop: this.stop,
      clauses: { total: clauses.length, ...(Object.fromEntries(STATUSES.map((s) => [s, count(s)])) as Record<Status, number>) },
      byLevel: Object.fromEntries(
        LEVELS.map((l) => [l, Object.fromEntries(STATUSES.map((s) => [s, clauses.filter((c) => c.level === l && c.status === s).length]))]),
      ) as Record<Level, Record<Status, number>>,
      coverage,
      incomplete,
      waived: (waive ?? []).map((w) => ({ ...w, count: clauses.filter((c) => c.status === 'waived' && waiverOf(waive, c.id) === w).length })),
      drift: drift.length,
      playwrightStatus: result.status,
    };

    const key = config?.apiKey;
    const dir = config?.reportsDir ?? join(ROOT, 'reports');
    mkdirSync(dir, { recursive: true });
    const write = (name: string, text: string) => writeFileSync(join(dir, name), redactText(text, key));
    const redact = (text: string) => redactText(text, key);
    writeConformance(dir, { summary, clauses, failures, inconclusive, drift }, redact);
    writeObservations(dir, observations, redact);
    write('junit.xml', junitXml([...ran, ...findings], { strict, durationMs: summary.durationMs, incomplete, waived: summary.waived ?? [] }));
    // What the run wrote to the target, from the exchanges themselves: no test can forget to record a write.
    const state = emptyState();
    const writes: LedgerWrite[] = [];
    // An exchange a test shows as evidence of another's request (the envelope test, of the create that
    // made its worker's metric) is one request: it is counted once.
    const counted = new Set<string>();
    for (const r of ran)
      for (const e of r.exchanges) {
        const same = JSON.stringify(e);
        if (counted.has(same)) continue;
        counted.add(same);
        const w = writeOf(e);
        if (w) writes.push(w);
        noteState(state, e);
      }
    addLedgerPart(
      dir,
      { by: 'conformance', startedAt: summary.startedAt, writes: tally(writes), restores: [] },
      { target: summary.target ?? '', manifest: summary.manifest ?? '', readOnly: summary.readOnly ?? false, state },
    );
    console.log(
      redactText(
        matrix(summary, failures, drift, clauses, shownPath(join(dir, 'conformance.json'))) + inconclusiveLines(summary, inconclusive) + coverageLines(summary),
        key,
      ),
    );
  }
}

/** The console summary: counts by level and status (from the summary), failures with their evidence, warnings, drift. */
function matrix(summary: ConformanceSummary, failures: FailureResult[], drift: Drift[], clauses: ClauseResult[], written: string): string {
  const out = [
    `\nClause matrix (${summary.strict ? 'strict' : 'default'} mode):`,
    `  ${'level'.padEnd(9)} ${'total'.padStart(5)}  ${STATUSES.map((s) => s.padStart(13)).join('')}`,
  ];
  for (const l of LEVELS) {
    const n = summary.byLevel[l];
    const total = STATUSES.reduce((sum, s) => sum + n[s], 0);
    out.push(`  ${l.padEnd(9)} ${String(total).padStart(5)}  ${STATUSES.map((s) => String(n[s]).padStart(13)).join('')}`);
  }
  for (const f of failures.filter((x) => !x.finding)) {
    const last = f.exchanges.at(-1);
    // The clauses the failure blamed; those the test names but did not reach, apart (support/blame.ts).
    out.push('', `${f.counts ? 'FAIL' : 'WARN'} [${f.level}] ${(f.blamed ?? f.clauses).join(', ')} :: ${f.test}`, `  ${(f.error ?? '').split('\n')[0]}`);
    if (f.unreached?.length) out.push(`  not reached (the test stopped at this failure): ${listed(f.unreached)}`);
    if (last)
      out.push(
        `  ${last.method} ${last.path} -> ${last.status}`,
        `  sent: ${JSON.stringify(last.requestBody ?? null).slice(0, 300)}`,
        `  got:  ${JSON.stringify(last.responseBody ?? null).slice(0, 300)}`,
        `  ${last.curl.slice(0, 600)}`,
      );
  }
  // Findings: one line per clause and message however many tests found it (each, with its exchange, is in conformance.json).
  const found = new Map<string, FailureResult[]>();
  for (const f of failures.filter((x) => x.finding)) {
    const what = `${f.clauses.join(', ')} :: ${f.error ?? ''}`;
    found.set(what, [...(found.get(what) ?? []), f]);
  }
  if (found.size > 0) out.push('');
  for (const [what, list] of found)
    out.push(`${list[0].counts ? 'FAIL' : 'WARN'} [inferred finding] ${what} (${list.length === 1 ? 'in 1 test' : `in ${list.length} tests`})`);
  // Stated clauses left uncovered are the INCOMPLETE lines below; the others, one line per reason.
  for (const [reason, ids] of byReason(clauses.filter((c) => c.status === 'uncovered' && c.level !== 'stated' && c.uncovered?.length)))
    out.push(`WARN [not covered] ${listed(ids)}: ${reason}`);
  for (const [reason, ids] of byReason(clauses.filter((c) => c.status === 'unverifiable'))) out.push(`NOT VERIFIABLE ${listed(ids)}: ${reason}`);
  for (const d of drift) out.push(`DRIFT ${d.clause}: was ${JSON.stringify(d.before)}, now ${JSON.stringify(d.now)}`);
  out.push(
    '',
    `conformance: ${summary.verdict.toUpperCase()}${summary.readOnly ? ' (read-only)' : ''}: ${summary.tests.passed}/${summary.tests.total} tests passed${summary.tests.skipped ? ` (${summary.tests.skipped} not run on purpose: waived or read-only)` : ''}, ${summary.tests.failedCounting} failing the run; ${summary.findings.total} inferred findings${summary.findings.counting ? ` (${summary.findings.counting} failing the run)` : ''}; ${summary.clauses.fail} clauses fail, ${summary.clauses.warn} warn${summary.clauses.unreached ? `, ${summary.clauses.unreached} not reached` : ''}, ${summary.clauses.uncovered} uncovered; ${written} written`,
  );
  return out.join('\n');
}

/** Clause ids, the first few named and the rest counted: one line stays one line. */
function listed(ids: string[]): string {
  return ids.length <= 4 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')} and ${ids.length - 3} more`;
}

/** Clauses grouped by their first unchecked reason, in the order first met. */
function byReason(clauses: ClauseResult[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of clauses) {
    const reason = c.uncovered?.[0] ?? 'no test reached it in this run';
    out.set(reason, [...(out.get(reason) ?? []), c.id]);
  }
  return out;
}

/** The stated clauses left unchecked for a reason the user can fix, one group per reason: why the run is INCOMPLETE. */
function incompleteGroups(uncovered: ClauseResult[]): IncompleteGroup[] {
  return [...byReason(uncovered)].map(([reason, clauses]) => ({ reason, clauses }));
}

/** What the run did not check and why: INCOMPLETE groups, waivers, and what a read-only run leaves out. */
function coverageLines(summary: ConformanceSummary): string {
  const c = summary.coverage!;
  const out: string[] = [];
  for (const g of summary.incomplete ?? [])
    out.push(`INCOMPLETE ${g.clauses.length} stated clause${g.clauses.length > 1 ? 's' : ''} unchecked (${listed(g.clauses)}): ${g.reason}`);
  for (const w of summary.waived ?? []) out.push(`WAIVED ${w.count} clause${w.count === 1 ? '' : 's'} (${w.clauses}): ${w.reason}`);
  if (summary.readOnly) out.push(`READ-ONLY ${c.checked} of ${c.total} stated clauses checked; ${c.excluded} need a write and were left out by design`);
  out.push(
    `coverage: ${c.checked} of ${c.total} stated clauses checked${c.uncovered ? `, ${c.uncovered} unchecked (INCOMPLETE)` : ''}${c.unverifiable ? `, ${c.unverifiable} not verifiable on this target` : ''}${c.unreached ? `, ${c.unreached} not reached (their tests stopped at a failure)` : ''}${c.waived ? `, ${c.waived} waived` : ''}${c.excluded ? `, ${c.excluded} excluded` : ''}`,
  );
  return `\n${out.join('\n')}`;
}

/** Inconclusive tests, one line per distinct reason with a count (a dead target is one line, not 60), and why the run stopped. */
function inconclusiveLines(summary: ConformanceSummary, inconclusive: InconclusiveResult[]): string {
  const out: string[] = [];
  const byReason = new Map<string, InconclusiveResult[]>();
  for (const i of inconclusive) byReason.set(i.reason, [...(byReason.get(i.reason) ?? []), i]);
  for (const [reason, list] of byReason) {
    const e = list[0].exchange;
    out.push(
      `INCONCLUSIVE ${list.length} test${list.length > 1 ? 's' : ''} (transport): ${reason.replace(/^inconclusive: transport: /, '')} (first: ${list[0].test}${e ? `; ${e.method} ${e.path}${e.status ? ` -> ${e.status}` : ''}` : ''})`,
    );
  }
  if (summary.stop)
    out.push(`PARTIAL: stopped: ${summary.stop.reason} after ${summary.stop.afterTests} of ${summary.stop.ofTests} tests; ${summary.tests.notRun} not run`);
  return out.length ? `\n${out.join('\n')}` : '';
}

/**
 * The test's exchanges with the one its failure judged (support/blame.ts, failedExchange) moved last, where
 * the evidence is read from: a failure's evidence is the exchange that failed, not the test's last request.
 */
function withFailedLast(exchanges: Exchange[], failed: string | undefined): Exchange[] {
  const at = failed ? exchanges.map(exchangeDigest).lastIndexOf(failed) : -1;
  return at < 0 ? exchanges : [...exchanges.slice(0, at), ...exchanges.slice(at + 1), exchanges[at]];
}

/** A path as the user would type it from where they are: relative inside the tree, absolute outside. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}
