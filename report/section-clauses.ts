// The clause matrix: a grid of spec sections by level (how many clauses of each status), then every
// clause grouped by section, filterable by status and level (the page's script, html.ts).
import { bySection, esc } from './escape.ts';
import type { ClauseResult, Status } from '../core/formats.ts';
import type { ReportInputs } from './inputs.ts';
import { sectionLabel } from './sections.ts';

// Worst first: a section's colour is its worst status, and chips and filter buttons read in that order.
const STATUSES_WORST_FIRST: Status[] = ['fail', 'warn', 'uncovered', 'unreached', 'pass', 'observed', 'unverifiable', 'waived', 'excluded'];
const LEVELS = ['stated', 'inferred', 'open'] as const;

const STATUS_MEANING: Record<Status, string> = {
  pass: 'checked, and the target keeps it',
  fail: 'violated: fails the run',
  warn: 'an inferred clause violated: a warning (a failure under --strict)',
  observed: 'open ("not shown" in the spec): what the target does is recorded, never judged',
  uncovered: 'not checked for a reason you can fix (named beside it): a stated one makes the run INCOMPLETE',
  unverifiable: "not checked: the target's legal answers give nothing to judge (a field it leaves out, a filter no item matches)",
  waived: "left out on purpose by the manifest's waive, with its reason",
  excluded: 'left out by the run itself: a write in a read-only run, or a test not selected (--grep, --shard)',
  unreached: "not checked in this run: the test that checks it stopped at another clause's failure first (linked beside it)",
};

function chips(cs: ClauseResult[]): string {
  if (cs.length === 0) return '<span class="muted">–</span>';
  return STATUSES_WORST_FIRST.map((s) => [s, cs.filter((c) => c.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `<span class="chip s-${s}" title="${n} ${s}">${n} ${s}</span>`)
    .join(' ');
}

/**
 * Ids of the failures (in the order of the failures section) that give evidence for each clause: those
 * that blamed it (contracts/support/blame.ts; a report written before blame names every clause of the
 * test), or with `stopped`, those that stopped before reaching it.
 */
export function failureAnchors(i: ReportInputs, stopped = false): Map<string, number[]> {
  const out = new Map<string, number[]>();
  (i.conformance?.failures ?? []).forEach((f, n) => {
    for (const c of stopped ? (f.unreached ?? []) : (f.blamed ?? f.clauses)) out.set(c, [...(out.get(c) ?? []), n + 1]);
  });
  return out;
}

/**
 * What the proof map says of a stated or inferred clause: the faults that fail it, or, when none does,
 * why (a clause the map does not hold is unproved too: the map is older than the clause).
 */
export function proofOf(i: ReportInputs, c: ClauseResult): { proved: true; by: string[] } | { proved: false; why: string } | undefined {
  if (!i.proof || c.level === 'open') return undefined;
  const entry = i.proof.map.clauses.find((x) => x.id === c.id);
  if (!entry) return { proved: false, why: `not in the proof map (made ${i.proof.map.madeAt.slice(0, 10)}, before the clause was added)` };
  return entry.provedBy.length > 0 ? { proved: true, by: entry.provedBy } : { proved: false, why: entry.why ?? 'no fault fails it' };
}

/** The line above the matrix: where the proof map comes from and how much of the catalogue it proves. */
function proofLine(i: ReportInputs): string {
  if (!i.proof) return '';
  const { map, file } = i.proof;
  const { stated, inferred } = map.summary;
  return `<p class="proofline">Proof map <code>${esc(file)}</code> (made ${esc(map.madeAt.slice(0, 10))}${map.commit ? ` at ${esc(map.commit)}` : ''}${map.partial ? ', partial' : ''}; <code>npm run clauses:proof</code>): a fault injected into the reference fails <b>${stated.proved} of ${stated.total}</b> stated and <b>${inferred.proved} of ${inferred.total}</b> inferred clauses${stated.aimed !== undefined ? ` (${stated.aimed} and ${inferred.aimed} by a fault aimed at the clause itself)` : ''}. A clause no fault fails is marked <span class="unproved">unproved</span>: its check has never been shown to fail, so its pass says less.</p>`;
}

export function clausesSection(i: ReportInputs): string {
  const clauses = i.conformance?.clauses ?? [];
  if (clauses.length === 0) return '<section id="clauses"><h2>Clauses</h2><p class="muted">No conformance results in this run.</p></section>';
  const sections = [...new Set(clauses.map((c) => c.section ?? '?'))].sort(bySection);
  const anchors = failureAnchors(i);
  const stoppers = failureAnchors(i, true);
  const ops = (s: string) => (i.sectionNames[s] ? ` <span class="muted">(${esc(i.sectionNames[s])})</span>` : '');

  const grid = sections.map((s) => {
    const cs = clauses.filter((c) => (c.section ?? '?') === s);
    const worst = STATUSES_WORST_FIRST.find((st) => cs.some((c) => c.status === st)) ?? 'pass';
    return `<tr class="w-${worst}"><td><a href="#sec-${esc(s)}">${esc(sectionLabel(s))}</a>${ops(s)}</td>${LEVELS.map((l) => `<td>${chips(cs.filter((c) => c.level === l))}</td>`).join('')}</tr>`;
  });

  const count = (s: Status) => clauses.filter((c) => c.status === s).length;
  const buttons = [`<button type="button" class="filter" data-status="all" aria-pressed="true">all <b>${clauses.length}</b></button>`]
    .concat(
      STATUSES_WORST_FIRST.map(
        (s) =>
          `<button type="button" class="filter s-${s}" data-status="${s}" aria-pressed="false" title="${esc(STATUS_MEANING[s])}">${s} <b>${count(s)}</b></button>`,
      ),
    )
    .join('');
  const unproved = clauses.filter((c) => proofOf(i, c)?.proved === false).length;
  const proofButton = i.proof
    ? `<button type="button" class="filter" data-status="unproved" aria-pressed="false" title="stated and inferred clauses no fault of the proof map fails">unproved <b>${unproved}</b></button>`
    : '';
  const levelSelect = `<label>level <select id="level-filter"><option value="all">all</option>${LEVELS.map((l) => `<option value="${l}">${l}</option>`).join('')}</select></label>`;

  const rows = sections.map((s) => {
    const cs = clauses.filter((c) => (c.section ?? '?') === s).sort((a, b) => a.id.localeCompare(b.id));
    const head = `<tr class="sec-head" id="sec-${esc(s)}" data-section="${esc(s)}"><th colspan="5">${esc(sectionLabel(s))}${ops(s)}</th></tr>`;
    const body = cs.map((c) => {
      const refs =
        c.status === 'unreached'
          ? (stoppers.get(c.id) ?? []).map((n) => `<a href="#failure-${n}" class="stopped-link">stopped at failure ${n}</a>`).join(' ')
          : (anchors.get(c.id) ?? []).map((n) => `<a href="#failure-${n}" class="evidence-link">evidence ${n}</a>`).join(' ');
      const why = c.uncovered?.length
        ? `<div class="muted small">${c.status === 'uncovered' ? 'not covered' : esc(c.status)}: ${esc(c.uncovered.join('; '))}</div>`
        : '';
      const tests = c.tests.length ? `<span title="${esc(c.tests.join('\n'))}">${c.tests.length}</span>` : '0';
      const proof = proofOf(i, c);
      const mark = !proof
        ? ''
        : proof.proved
          ? ` <span class="proved" title="${esc(`failed by ${proof.by.length} fault${proof.by.length === 1 ? '' : 's'}: ${proof.by.slice(0, 10).join(', ')}${proof.by.length > 10 ? ', ...' : ''}`)}">proved</span>`
          : ` <span class="unproved" title="${esc(proof.why)}">unproved</span>`;
      const proofData = proof ? ` data-proof="${proof.proved ? 'proved' : 'unproved'}"` : '';
      return `<tr class="clause s-${esc(c.status)}" data-status="${esc(c.status)}" data-level="${esc(c.level)}" data-section="${esc(s)}"${proofData}><td><code>${esc(c.id)}</code>${mark}</td><td>${esc(c.level)}</td><td class="status">${esc(c.status)} ${refs}</td><td>${esc(c.text ?? '')}${why}</td><td class="num">${tests}</td></tr>`;
    });
    return [head, ...body].join('\n');
  });

  return `<section id="clauses"><h2>Clauses by spec section and level</h2>
<p class="muted">Every requirement of the spec is a clause (contracts/clauses.yaml). <b>stated</b>: the spec says it; <b>inferred</b>: a defect any user would see, a warning unless --strict; <b>open</b>: "not shown", only observed.</p>
<table id="grid" class="grid"><thead><tr><th>spec section</th><th>stated</th><th>inferred</th><th>open</th></tr></thead><tbody>
${grid.join('\n')}
</tbody></table>
<div id="matrix-block"><h3 id="matrix-title">Clause matrix</h3>
${proofLine(i)}
<div class="filters" role="group" aria-label="filter clauses by status">${buttons}${proofButton} ${levelSelect} <span id="shown" class="muted">${clauses.length} of ${clauses.length} shown</span></div>
<table id="matrix"><thead><tr><th>clause</th><th>level</th><th>status</th><th>spec text (verbatim; for inferred, the inference)</th><th>tests</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div>
</section>`;
}
