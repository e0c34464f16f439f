// reports/junit.xml from the suite's own results, so that a CI reading JUnit sees the same verdict as
// conformance.json: a failure element only where the run fails (stated, or inferred under --strict);
// an inferred violation in default mode is a passing test case with its warning in system-out; a test
// that checked nothing (inconclusive: transport, or not run after the run stopped) is <skipped>.
import { xmlEscape as esc } from '../../core/xml.ts';
import type { IncompleteGroup } from '../../core/formats.ts';
import type { Ran } from './verdict.ts';

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function details(r: Ran): string {
  const last = r.exchanges.at(-1);
  // The clauses the failure blamed, and apart those the test names but did not reach (support/blame.ts).
  const lines = [
    `failed clauses: ${(r.blamed ?? r.clauses).join(', ')}`,
    ...(r.unreached?.length ? [`not reached (the test stopped at this failure): ${r.unreached.join(', ')}`] : []),
    `level: ${r.level}`,
    r.error ?? '',
  ];
  if (last)
    lines.push(
      `${last.method} ${last.path} -> ${last.status}`,
      `sent: ${JSON.stringify(last.requestBody ?? null).slice(0, 1000)}`,
      `got: ${JSON.stringify(last.responseBody ?? null).slice(0, 1000)}`,
      last.curl,
    );
  return lines.join('\n');
}

function testcase(r: Ran): string {
  const props = [
    `<property name="level" value="${r.level}"/>`,
    ...r.clauses.map((c) => `<property name="clause" value="${esc(c)}"/>`),
    ...(r.blamed ?? []).map((c) => `<property name="failed-clause" value="${esc(c)}"/>`),
    ...(r.unreached ?? []).map((c) => `<property name="unreached-clause" value="${esc(c)}"/>`),
  ].join('');
  const head = `    <testcase classname="${esc(r.file)}" name="${esc(r.title)}" time="${seconds(r.durationMs)}"><properties>${props}</properties>`;
  // Checked nothing (docs/transport.md): neither a pass nor a failure of the target.
  if (r.inconclusive) {
    const message = r.inconclusive.stopped ? `not run: ${r.inconclusive.reason}` : `inconclusive: transport: ${r.inconclusive.reason}`;
    const e = r.inconclusive.exchange;
    const out = e
      ? `<system-out>${esc([`${e.method} ${e.path} -> ${e.status}`, `got: ${JSON.stringify(e.responseBody ?? null).slice(0, 1000)}`, e.curl].join('\n'))}</system-out>`
      : '';
    return `${head}<skipped message="${esc(message.slice(0, 300))}"/>${out}</testcase>`;
  }
  // Not run on purpose: every clause waived, or a write in a read-only run.
  if (r.skippedAs) return `${head}<skipped message="${esc(r.skippedAs.slice(0, 300))}"/></testcase>`;
  if (r.ok) return `${head}</testcase>`;
  const text = esc(details(r));
  const message = `${(r.blamed ?? r.clauses).join(', ')}: ${(r.error ?? '').split('\n')[0]}`;
  if (r.counts) return `${head}<failure type="${r.level}" message="${esc(message.slice(0, 300))}">${text}</failure></testcase>`;
  return `${head}<system-out>WARN (inferred, not strict)\n${text}</system-out></testcase>`;
}

/**
 * The run's coverage as test cases of their own: each reason the run is INCOMPLETE an error (a CI that
 * reads JUnit must not show green over stated clauses nobody checked), each waiver a skipped case.
 */
function coverageSuite(incomplete: IncompleteGroup[], waived: { clauses: string; reason: string; count: number }[]): string | undefined {
  const cases = [
    ...incomplete.map((g) => {
      const message = `${g.clauses.length} stated clause${g.clauses.length > 1 ? 's' : ''} unchecked: ${g.reason}`;
      return `    <testcase classname="coverage" name="${esc(`stated clauses checked: ${g.reason}`)}" time="0.000"><error type="incomplete" message="${esc(message.slice(0, 300))}">${esc(`${message}\nclauses: ${g.clauses.join(', ')}`)}</error></testcase>`;
    }),
    ...waived.map(
      (w) =>
        `    <testcase classname="coverage" name="${esc(`waived: ${w.clauses}`)}" time="0.000"><skipped message="${esc(`waived (${w.count} clauses): ${w.reason}`.slice(0, 300))}"/></testcase>`,
    ),
  ];
  if (cases.length === 0) return undefined;
  return `  <testsuite name="coverage" tests="${cases.length}" failures="0" errors="${incomplete.length}" skipped="${waived.length}" time="0.000">\n${cases.join('\n')}\n  </testsuite>`;
}

export function junitXml(
  ran: Ran[],
  run: { strict: boolean; durationMs: number; incomplete?: IncompleteGroup[]; waived?: { clauses: string; reason: string; count: number }[] },
): string {
  const files = [...new Set(ran.map((r) => r.file))].sort();
  const suites = files.map((file) => {
    const mine = ran.filter((r) => r.file === file);
    const failures = mine.filter((r) => !r.ok && r.counts).length;
    const time = mine.reduce((s, r) => s + r.durationMs, 0);
    const skipped = mine.filter((r) => r.inconclusive || r.skippedAs).length;
    return `  <testsuite name="${esc(file)}" tests="${mine.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}">\n${mine.map(testcase).join('\n')}\n  </testsuite>`;
  });
  const incomplete = run.incomplete ?? [];
  const waived = run.waived ?? [];
  const coverage = coverageSuite(incomplete, waived);
  if (coverage) suites.push(coverage);
  const failures = ran.filter((r) => !r.ok && r.counts).length;
  const skipped = ran.filter((r) => r.inconclusive || r.skippedAs).length + waived.length;
  const tests = ran.length + incomplete.length + waived.length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="console-conformance${run.strict ? ' (strict)' : ''}" tests="${tests}" failures="${failures}" errors="${incomplete.length}" skipped="${skipped}" time="${seconds(run.durationMs)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/**
 * junit.xml of a run that could not start (the target down, hanging, not the Console API): one errored
 * case with the one-line reason, so that a CI reading JUnit shows why instead of nothing, or a stale file.
 */
export function notRunJunit(reason: string, strict: boolean): string {
  const message = esc(reason.slice(0, 300));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="console-conformance${strict ? ' (strict)' : ''}" tests="1" failures="0" errors="1" skipped="0" time="0.000">\n  <testsuite name="preflight" tests="1" failures="0" errors="1" skipped="0" time="0.000">\n    <testcase classname="preflight" name="the target answers as the Console API" time="0.000"><error type="not carried out" message="${message}">${esc(reason)}</error></testcase>\n  </testsuite>\n</testsuites>\n`;
}
