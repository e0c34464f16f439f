// The top of the page: the verdict in one word and one line, what was run against what, the stages.
import { esc } from './escape.ts';
import type { ReportInputs } from './inputs.ts';

export type HeadlineVerdict = 'PASS' | 'FAIL' | 'REGRESSION' | 'INCOMPLETE' | 'NOT RUN';

const MEANING: Record<HeadlineVerdict, string> = {
  PASS: 'every stated clause in scope was checked and the target keeps it, and load is within the baseline’s tolerance',
  INCOMPLETE: 'no violation found, but stated clauses went unchecked for a reason you can fix (named below): exit code 3, never a pass',
  FAIL: 'a stated clause is violated (or an inferred one, under --strict): exit code 1',
  REGRESSION: 'the contract holds, but load regressed beyond the baseline’s tolerance: exit code 2',
  'NOT RUN': 'the run could not be carried out: exit code 3 (see the stages)',
};

/** The verdict: verify's exit code when verify ran, else what the reports say on their own. */
export function verdictOf(i: ReportInputs): HeadlineVerdict {
  const incomplete = i.conformance?.summary.verdict === 'incomplete';
  if (i.verify) {
    if (i.verify.exitCode === 3 && incomplete) return 'INCOMPLETE';
    return (['PASS', 'FAIL', 'REGRESSION', 'NOT RUN'] as const)[i.verify.exitCode] ?? 'NOT RUN';
  }
  if (!i.conformance) return 'NOT RUN';
  if (i.conformance.summary.verdict === 'fail') return 'FAIL';
  if (i.conformance.summary.verdict === 'inconclusive') return 'NOT RUN';
  if (incomplete) return 'INCOMPLETE';
  return i.compare?.verdict === 'regression' ? 'REGRESSION' : 'PASS';
}

/** What the run left unchecked, first: a headline must never read as a pass over stated clauses nobody checked. */
function coverageParts(i: ReportInputs): string[] {
  const c = i.conformance?.summary;
  const cov = c?.coverage;
  if (!c || !cov) return [];
  const parts = [`${cov.checked} of ${cov.total} stated clauses checked${c.readOnly ? ' (read-only run)' : ''}`];
  for (const g of c.incomplete ?? []) parts.push(`INCOMPLETE: ${g.clauses.length} unchecked: ${g.reason}`);
  if (cov.unverifiable) parts.push(`${cov.unverifiable} not verifiable on this target`);
  if (cov.waived) parts.push(`${cov.waived} waived`);
  if (cov.excluded) parts.push(`${cov.excluded} excluded${c.readOnly ? ' (need a write)' : ''}`);
  return parts;
}

function headline(i: ReportInputs): string {
  const parts: string[] = [];
  const c = i.conformance?.summary;
  if (c) {
    parts.push(...coverageParts(i));
    parts.push(
      `${c.clauses.total} clauses: ${c.clauses.pass} pass, ${c.clauses.fail} fail, ${c.clauses.warn} warn, ${c.clauses.observed} observed, ${c.clauses.uncovered} not covered${c.clauses.unreached ? `, ${c.clauses.unreached} not reached` : ''}`,
    );
    parts.push(`${c.tests.passed} of ${c.tests.total} tests passed`);
    // A run cut short, or with tests the network left unchecked (docs/transport.md), says so up front.
    if (c.tests.inconclusive) parts.push(`${c.tests.inconclusive} inconclusive (transport)`);
    if (c.stop) parts.push(`partial run: stopped: ${c.stop.reason} after ${c.stop.afterTests} of ${c.stop.ofTests} tests, ${c.tests.notRun} not run`);
    if (c.drift) parts.push(`${c.drift} drift`);
  } else {
    // No results: the stage that could not be carried out says why, in its one line.
    const stopped = i.verify?.stages.find((s) => s.name === 'conformance' && s.status === 'error') ?? i.verify?.stages.find((s) => s.status === 'error');
    parts.push(stopped ? `no conformance results: ${stopped.name}: ${stopped.detail}` : 'no conformance results');
  }
  if (i.compare) {
    const regressions = Object.values(i.compare.profiles).flatMap((p) => p.endpoints.filter((e) => e.regression));
    parts.push(`load ${i.compare.verdict}${regressions.length ? ` (${regressions.length} endpoint${regressions.length > 1 ? 's' : ''} regressed)` : ''}`);
  } else parts.push('load not run');
  return parts.join(' · ');
}

/** What the run wrote to the target and gave back (reports/ledger.json), in one line with a link. */
function footprint(i: ReportInputs): string {
  const t = i.ledger!.totals;
  if (t.writes === 0) return `nothing${i.ledger!.readOnly ? ' (read-only run)' : ''}; <a href="ledger.json">ledger.json</a>`;
  const rules = Object.entries(t.rulesAdded)
    .map(([g, n]) => `${esc(g)} ${esc(n)}`)
    .join(', ');
  const phases = Object.values(t.phasesSkipped).reduce((a, b) => a + b, 0);
  const parts = [
    `${esc(t.writes)} writes`,
    `${esc(t.metricsCreated)} metrics created`,
    rules ? `rules added: ${rules}` : 'no rules added',
    `${esc(phases)} trigger phases skipped`,
    t.notRestored ? `<strong>${esc(t.notRestored)} writes the API could undo not restored</strong>` : "gates' enabled state and overrides given back",
  ];
  return `${parts.join('; ')} (rules, metrics and skipped phases cannot be undone); <a href="ledger.json">ledger.json</a>`;
}

export function runSection(i: ReportInputs): string {
  const verdict = verdictOf(i);
  const v = i.verify;
  const c = i.conformance?.summary;
  const target = v ? `${v.target.url}${v.target.reference ? ' (the reference server, started by verify)' : ''}` : (c?.target ?? 'unknown');
  const rows: [string, string][] = [
    ['target', esc(target)],
    ['manifest', esc(v?.manifest ?? c?.manifest ?? 'unknown')],
    [
      'mode',
      esc(
        `${(v?.options.strict ?? c?.strict) ? 'strict: inferred clauses fail' : 'default: inferred clauses warn'}${(v?.options.readOnly ?? c?.readOnly) ? '; read-only: only reads and dryRun writes were sent' : ''}`,
      ),
    ],
    [
      'load profile',
      esc(
        v
          ? v.options.skipLoad
            ? 'not run (--skip-load)'
            : `${v.options.profile}${v.target.reference ? ', each script against a fresh reference server' : ''}`
          : (i.load.map((l) => l.summary?.profile).filter(Boolean)[0] ?? 'not run'),
      ),
    ],
    ...(v?.options.grep ? [['conformance tests', `only those matching <code>${esc(v.options.grep)}</code> (--grep)`] as [string, string]] : []),
    ['drift compared with', esc(v?.options.observationsBaseline ?? 'no previous run given')],
    ...(i.ledger ? [['wrote to the target', footprint(i)] as [string, string]] : []),
    ['started', esc(v?.startedAt ?? c?.startedAt ?? 'unknown') + (v ? ` (took ${(v.durationMs / 1000).toFixed(1)} s)` : '')],
    [
      'versions',
      esc(
        v
          ? Object.entries(v.versions)
              .map(([k, x]) => `${k} ${x}`)
              .join(', ')
          : 'unknown',
      ),
    ],
  ];
  const stages = v?.stages ?? [];
  return `<header id="top">
<h1>Console API v1 conformance <span id="verdict" class="verdict v-${esc(verdict.replace(' ', '-'))}">${esc(verdict)}</span></h1>
<p class="meaning">${esc(MEANING[verdict])}</p>
<p id="headline" class="headline">${esc(headline(i))}</p>
</header>
<section id="run"><h2>What was run against what</h2>
<table class="meta">${rows.map(([k, x]) => `<tr><th>${esc(k)}</th><td>${x}</td></tr>`).join('')}</table>
${
  stages.length
    ? `<table id="stages"><tr><th>stage</th><th>result</th><th>exit</th><th>time</th><th>detail</th></tr>
${stages.map((s) => `<tr class="stage-${esc(s.status)}"><td>${esc(s.name)}</td><td class="status">${esc(s.status)}</td><td>${esc(s.exitCode ?? '–')}</td><td class="num">${esc(s.seconds.toFixed(1))} s</td><td>${esc(s.detail)}</td></tr>`).join('\n')}</table>`
    : ''
}
</section>`;
}
