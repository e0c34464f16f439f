// Writes reports/conformance.json (architecture guide, section 6; shape in README, "Reports"),
// reports/junit.xml and reports/observations.json, and prints the clause matrix. Levels decide what a
// failed test means: stated fails the run, inferred warns (fails under strict), open only records.
// Everything written goes through redactText: the API key never reaches a report.
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, loadConfig } from '../../scripts/lib/config.ts';
import { CLAUSES } from './clauses.ts';
import { compareObservations, readObservations, summarize, type Drift, type Observations } from './observations.ts';
import { junitXml } from './junit.ts';
import { redactText } from './redact.ts';
import type { Exchange } from './evidence.ts';
import type { Level, Observation, Uncovered } from './target.ts';

export type Status = 'pass' | 'fail' | 'warn' | 'observed' | 'uncovered';

// The shape of reports/conformance.json (README, "Reports"): declared here, where it is written, and
// imported by what reads it (scripts/report/inputs.ts), so that the two cannot drift apart.
export interface ClauseResult {
  id: string; section: string | null; level: Level; status: Status; text: string | null; tests: string[];
  evidence: { test: string; level: Level; error?: string; exchanges: Exchange[] }[];
  observations: { test: string; aspect: string; value: unknown }[];
  uncovered?: string[];
}
export interface FailureResult { test: string; file: string; level: Level; clauses: string[]; counts: boolean; error?: string; exchanges: Exchange[] }
export interface ConformanceSummary {
  verdict: 'pass' | 'fail'; strict: boolean; target: string | null; manifest: string | null; startedAt: string; durationMs: number;
  tests: { total: number; passed: number; failed: number; failedCounting: number };
  clauses: Record<'total' | Status, number>;
  byLevel: Record<Level, Record<Status, number>>;
  drift: number;
  playwrightStatus: string;
}
export interface ConformanceReport { summary: ConformanceSummary; clauses: ClauseResult[]; failures: FailureResult[]; drift: Drift[] }

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
  uncovered: Uncovered[];
}

const LEVELS: Level[] = ['stated', 'inferred', 'open'];
const STATUSES: Status[] = ['pass', 'fail', 'warn', 'observed', 'uncovered'];

export default class ConformanceReporter implements Reporter {
  private ran: Ran[] = [];
  private started = Date.now();
  private config = (() => {
    try {
      return loadConfig();
    } catch {
      return undefined; // the wrapper (scripts/conformance.ts) reports a bad configuration with exit 3
    }
  })();

  onTestEnd(test: TestCase, result: TestResult): void {
    const level = (test.tags.find((t) => ['@stated', '@inferred', '@open'].includes(t))?.slice(1) ?? 'stated') as Level;
    const notes = (type: string) => result.annotations.concat(test.annotations).filter((a) => a.type === type).map((a) => JSON.parse(a.description ?? '{}'));
    const ok = result.status === 'passed' || result.status === 'skipped';
    const clauses = test.annotations.filter((a) => a.type === 'clause').map((a) => a.description ?? '');
    // A skipped test checked nothing: its clauses are not covered by it.
    const uncovered = result.status === 'skipped' ? clauses.map((clause) => ({ clause, reason: 'test skipped' })) : notes('uncovered');
    this.ran.push({
      title: test.title,
      file: relative(ROOT, test.location.file),
      level,
      clauses,
      ok,
      counts: !ok && (level !== 'inferred' || (this.config?.strict ?? false)),
      durationMs: result.duration,
      error: ok ? undefined : (result.error?.message ?? result.status).split('\n').slice(0, 8).join('\n'),
      exchanges: result.attachments.filter((a) => a.name === 'exchange' && a.body).map((a) => JSON.parse(a.body!.toString())),
      observations: notes('observation'),
      uncovered,
    });
  }

  onEnd(result: FullResult): void {
    // `playwright test --list` (clauses:coverage) runs no test: leave the last run's reports alone.
    if (this.ran.length === 0) return;
    const config = this.config;
    const strict = config?.strict ?? false;
    const ran = this.ran;

    const byClause = new Map<string, Ran[]>();
    for (const r of ran) for (const c of r.clauses) byClause.set(c, [...(byClause.get(c) ?? []), r]);
    const known = new Map(CLAUSES.map((c) => [c.id, c]));
    const allObservations = ran.flatMap((r) => r.observations.map((o) => ({ ...o, test: r.title })));
    const allUncovered = ran.flatMap((r) => r.uncovered.map((u) => ({ ...u, test: r.title })));
    const ids = new Set([...known.keys(), ...byClause.keys(), ...allObservations.map((o) => o.clause)]);

    const clauses = [...ids].sort().map((id): ClauseResult => {
      const entry = known.get(id);
      const tests = byClause.get(id) ?? [];
      const observations = allObservations.filter((o) => o.clause === id).map(({ test, aspect, value }) => ({ test, aspect, value }));
      const uncovered = allUncovered.filter((u) => u.clause === id);
      const level: Level = entry?.level ?? tests[0]?.level ?? 'stated';
      // A test that could not reach its clause (uncovered) does not count as checking it.
      const checking = tests.filter((t) => !t.uncovered.some((u) => u.clause === id));
      // An open clause is only ever observed (or not reached); the others follow their tests: a failed
      // test that fails the run fails its clauses, one that does not (inferred, default mode) warns.
      let status: Status;
      if (level === 'open') status = observations.length > 0 ? 'observed' : 'uncovered';
      else if (checking.some((t) => !t.ok && t.counts)) status = 'fail';
      else if (checking.some((t) => !t.ok)) status = 'warn';
      else if (checking.length === 0) status = 'uncovered';
      else status = 'pass';
      const evidence = checking.filter((t) => !t.ok).map((t) => ({ test: t.title, level: t.level, error: t.error, exchanges: t.exchanges.slice(-3) }));
      return {
        id, section: entry?.section ?? null, level, status, text: entry?.text ?? null,
        tests: [...new Set(tests.map((t) => t.title))], evidence, observations,
        ...(uncovered.length > 0 ? { uncovered: uncovered.map((u) => u.reason) } : {}),
      };
    });

    const failures = ran.filter((r) => !r.ok).map((r): FailureResult => ({
      test: r.title, file: r.file, level: r.level, clauses: r.clauses, counts: r.counts, error: r.error, exchanges: r.exchanges.slice(-3),
    }));
    const observations = summarize(allObservations);
    const drift = config?.observationsBaseline ? compareObservations(readObservations(config.observationsBaseline), observations) : [];
    const count = (s: Status) => clauses.filter((c) => c.status === s).length;
    const summary: ConformanceSummary = {
      verdict: failures.some((f) => f.counts) ? 'fail' : 'pass',
      strict,
      target: config?.baseUrl ?? null,
      manifest: config?.manifestPath ? relative(ROOT, config.manifestPath) : null,
      startedAt: new Date(this.started).toISOString(),
      durationMs: Date.now() - this.started,
      tests: { total: ran.length, passed: ran.filter((r) => r.ok).length, failed: failures.length, failedCounting: failures.filter((f) => f.counts).length },
      clauses: { total: clauses.length, pass: count('pass'), fail: count('fail'), warn: count('warn'), observed: count('observed'), uncovered: count('uncovered') },
      byLevel: Object.fromEntries(LEVELS.map((l) => [l, Object.fromEntries(STATUSES.map((s) => [s, clauses.filter((c) => c.level === l && c.status === s).length]))])) as Record<Level, Record<Status, number>>,
      drift: drift.length,
      playwrightStatus: result.status,
    };

    const key = config?.apiKey;
    const dir = config?.reportsDir ?? join(ROOT, 'reports');
    mkdirSync(dir, { recursive: true });
    const write = (name: string, text: string) => writeFileSync(join(dir, name), redactText(text, key));
    write('conformance.json', JSON.stringify({ summary, clauses, failures, drift } satisfies ConformanceReport, null, 2) + '\n');
    write('observations.json', JSON.stringify(observations satisfies Observations, null, 2) + '\n');
    write('junit.xml', junitXml(ran, { strict, durationMs: summary.durationMs }));
    console.log(redactText(matrix(summary, failures, drift, allUncovered, shownPath(join(dir, 'conformance.json'))), key));
  }
}


/** The console summary: counts by level and status (from the summary), failures with their evidence, warnings, drift. */
function matrix(summary: ConformanceSummary, failures: FailureResult[], drift: Drift[], uncovered: { clause: string; reason: string }[], written: string): string {
  const out = [`\nClause matrix (${summary.strict ? 'strict' : 'default'} mode):`, `  ${'level'.padEnd(9)} ${'total'.padStart(5)}  ${STATUSES.map((s) => s.padStart(10)).join('')}`];
  for (const l of LEVELS) {
    const n = summary.byLevel[l];
    const total = STATUSES.reduce((sum, s) => sum + n[s], 0);
    out.push(`  ${l.padEnd(9)} ${String(total).padStart(5)}  ${STATUSES.map((s) => String(n[s]).padStart(10)).join('')}`);
  }
  for (const f of failures) {
    const last = f.exchanges.at(-1);
    out.push('', `${f.counts ? 'FAIL' : 'WARN'} [${f.level}] ${f.clauses.join(', ')} :: ${f.test}`, `  ${(f.error ?? '').split('\n')[0]}`);
    if (last) out.push(`  ${last.method} ${last.path} -> ${last.status}`, `  sent: ${JSON.stringify(last.requestBody ?? null).slice(0, 300)}`, `  got:  ${JSON.stringify(last.responseBody ?? null).slice(0, 300)}`, `  ${last.curl.slice(0, 600)}`);
  }
  for (const u of uncovered) out.push(`WARN [not covered] ${u.clause}: ${u.reason}`);
  for (const d of drift) out.push(`DRIFT ${d.clause}: was ${JSON.stringify(d.before)}, now ${JSON.stringify(d.now)}`);
  out.push('', `conformance: ${summary.verdict.toUpperCase()}: ${summary.tests.passed}/${summary.tests.total} tests passed, ${summary.tests.failedCounting} failing the run; ${summary.clauses.fail} clauses fail, ${summary.clauses.warn} warn, ${summary.clauses.uncovered} uncovered; ${written} written`);
  return out.join('\n');
}

/** A path as the user would type it from where they are: relative inside the tree, absolute outside. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}
