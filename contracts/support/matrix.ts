// The clause matrix a conformance run prints: counts by level and status, the failures with their
// evidence, the findings, what went unchecked and why, and the summary line. Text only, from the
// verdict (verdict.ts): the reporter prints it.
import type { ClauseResult, ConformanceSummary, FailureResult, InconclusiveResult } from '../../core/formats.ts';
import { STATUSES } from '../../core/formats.ts';
import type { Drift } from './observations.ts';
import { LEVELS, byReason, type RunVerdict } from './verdict.ts';

/** The whole screen: the matrix, the inconclusive tests and the coverage lines; `written` is the report's path. */
export function screen(v: RunVerdict, drift: Drift[], written: string): string {
  return matrix(v.summary, v.failures, drift, v.clauses, written) + inconclusiveLines(v.summary, v.inconclusive) + coverageLines(v.summary);
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
