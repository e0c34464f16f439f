// The Playwright reporter of the conformance suite: gathers each test's result (its clauses, blame,
// exchanges, observations, findings, why it checked nothing), stops the run after too many transport
// failures in a row, and at the end hands the results to the verdict (verdict.ts, a pure function),
// then writes reports/conformance.json (shape in core/formats.ts and docs/reports.md), junit.xml
// (junit.ts), observations.json and its part of the ledger (run-ledger.ts), and prints the clause
// matrix (matrix.ts). Everything written goes through redactText: the API key never reaches a report.
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, loadConfig } from '../../core/config.ts';
import { CLAUSES } from './clauses.ts';
import { compareObservations, readObservations, summarize } from './observations.ts';
import { junitXml } from './junit.ts';
import { redactText } from '../../core/keys.ts';
import { writeConformance, writeObservations, type Exchange, type RunStop } from '../../core/formats.ts';
import { addLedgerPart, tally } from '../../core/ledger.ts';
import { CHECKED, FINDING, type Finding } from './findings.ts';
import { BLAMED, FAILED_EXCHANGE, HELD, blameOf, exchangeDigest } from './blame.ts';
import type { Inconclusive, Level, Observation } from './suite-test.ts';
import { STOP_AFTER_CONSECUTIVE, clearStop, noAnswerInTime, requestStop, silenceReason } from './transport.ts';
import { verdict, type Ran, type Unchecked } from './verdict.ts';
import { screen } from './matrix.ts';
import { ledgerOfRun } from './run-ledger.ts';

export type { ClauseResult, ConformanceReport, ConformanceSummary, FailureResult, InconclusiveResult, RunStop, Status } from '../../core/formats.ts';

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
    // The clauses each error was blamed on (support/blame.ts, flushBlame); an error it does not list claimed none.
    const claimed = (notes(BLAMED)[0] ?? []) as string[][];
    // An open clause the test observed before it stopped was reached: what it records is all it checks.
    const observed = (notes('observation') as Observation[]).map((o) => o.clause);
    const blame = ok
      ? undefined
      : blameOf(
          clauses,
          [...(notes(HELD) as string[][]).flat(), ...observed],
          errors.map((_, i) => claimed[i] ?? []),
        );
    this.ran.push({
      title: test.title,
      file: relative(ROOT, test.location.file),
      level,
      clauses,
      ok,
      counts: !ok && (level !== 'inferred' || (this.config?.strict ?? false)),
      durationMs: result.duration,
      error: ok ? undefined : (result.error?.message ?? result.status).split('\n').slice(0, 8).join('\n'),
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
    const findings = this.findings;
    const observations = summarize(ran.flatMap((r) => r.observations.map((o) => ({ ...o, test: r.title }))));
    const drift = config?.observationsBaseline ? compareObservations(readObservations(config.observationsBaseline), observations) : [];
    if (config) clearStop(config.reportsDir);
    const v = verdict({
      ran,
      findings,
      catalogue: CLAUSES,
      scope: this.scope,
      waive: config?.manifest.waive,
      strict,
      readOnly: config?.readOnly ?? false,
      target: config?.baseUrl ?? null,
      manifest: config?.manifestPath ? relative(ROOT, config.manifestPath) : null,
      listSeed: config?.listSeed,
      startedAt: this.started,
      endedAt: Date.now(),
      planned: this.planned,
      stop: this.stop,
      playwrightStatus: result.status,
      drift: drift.length,
    });
    const { summary, clauses, failures, inconclusive } = v;

    const key = config?.apiKey;
    const dir = config?.reportsDir ?? join(ROOT, 'reports');
    mkdirSync(dir, { recursive: true });
    const write = (name: string, text: string) => writeFileSync(join(dir, name), redactText(text, key));
    const redact = (text: string) => redactText(text, key);
    writeConformance(dir, { summary, clauses, failures, inconclusive, drift }, redact);
    writeObservations(dir, observations, redact);
    write(
      'junit.xml',
      junitXml([...ran, ...findings], { strict, durationMs: summary.durationMs, incomplete: summary.incomplete ?? [], waived: summary.waived ?? [] }),
    );
    const { writes, state } = ledgerOfRun(ran);
    addLedgerPart(
      dir,
      { by: 'conformance', startedAt: summary.startedAt, writes: tally(writes), restores: [] },
      { target: summary.target ?? '', manifest: summary.manifest ?? '', readOnly: summary.readOnly ?? false, state },
    );
    console.log(redactText(screen(v, drift, shownPath(join(dir, 'conformance.json'))), key));
  }
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
