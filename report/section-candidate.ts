// "Current vs candidate" (npm run candidate, reports/candidate.json): regressions with both exchanges
// side by side, changed open behaviour grouped by operation, what both sides break, and the noise
// learnt, and with --latency the candidate's latency ratio per endpoint with its interval. Absent when the reports folder holds no candidate.json.
import type { CandidateReport, Exchange, SidePair } from '../core/formats.ts';
import { esc, inline, pre } from './escape.ts';

function exchange(e: Exchange | null): string {
  if (!e) return '<p class="muted small">no such request on this side</p>';
  return `<div class="small"><code>${esc(e.method)} ${esc(e.path)}</code> → ${esc(e.status)}</div>${pre(e.responseBody)}${pre(e.curl, 'curl')}`;
}

const sideBySide = (p: SidePair) =>
  `<table class="side-by-side"><thead><tr><th>current</th><th>candidate</th></tr></thead><tbody><tr><td>${exchange(p.current)}</td><td>${exchange(p.candidate)}</td></tr></tbody></table>`;

export function candidateSection(c: CandidateReport | null): string {
  if (!c) return '';
  const sides = c.sides
    .map((s) => `<li><b>${esc(s.side)}</b>: ${esc(s.target)} (manifest ${esc(s.manifest)}): ${esc(s.reads.map((r) => r.verdict).join(', '))}</li>`)
    .join('');
  const regressions = c.regressions.length
    ? c.regressions
        .map(
          (g) =>
            `<details class="regression" open><summary><span class="tag k-FAIL">regression</span> <code>${esc(g.clause)}</code> (${esc(g.level)}; current: ${esc(g.current)})</summary><p>${esc(g.text ?? '')}</p>${pre(g.error ?? '')}${sideBySide(g.exchanges)}</details>`,
        )
        .join('\n')
    : `<p id="candidate-no-regression" class="ok">No regression: the candidate keeps every stated clause the current keeps.</p>`;
  const byOperation = new Map<string, CandidateReport['changes']>();
  for (const x of c.changes) byOperation.set(x.operation, [...(byOperation.get(x.operation) ?? []), x]);
  const changes = c.changes.length
    ? [...byOperation]
        .map(
          ([op, xs]) =>
            `<h4><code>${esc(op)}</code> (${xs.length})</h4>${xs
              .map(
                (x) =>
                  `<details class="change"><summary>${esc(x.kind)} at <code>${esc(x.where)}</code>: current <code>${esc(inline(x.current))}</code>, candidate <code>${esc(inline(x.candidate))}</code>${x.count > 1 ? ` (${x.count} times)` : ''} <span class="muted small">${esc(x.clauses.join(', '))}</span></summary>${sideBySide(x.exchanges)}</details>`,
              )
              .join('')}`,
        )
        .join('\n')
    : '<p id="candidate-no-change" class="muted">No change of open behaviour.</p>';
  const both = c.bothBroken.length
    ? `<h3>Broken on both sides (no change)</h3><ul>${c.bothBroken.map((b) => `<li><code>${esc(b.clause)}</code></li>`).join('')}</ul>`
    : '';
  const fig = (n: number) => Number(n.toPrecision(3)).toString();
  const l = c.latency;
  const latency = !l
    ? ''
    : l.verdict === 'not carried out'
      ? `<h3>Latency side by side</h3><p class="muted">Not carried out: ${esc(l.reason ?? '')}</p>`
      : `<h3>Latency side by side (${esc((l.scripts ?? ['paging']).join(' and '))}, ${esc(l.profile)})</h3>
<p class="small">${l.requests.paired} requests sent to both sides in random order from one generator; calibration ratio candidate/current ${(l.runs ?? [{ script: 'paging', calibration: l.calibration }]).map((r) => `${esc(r.script)} ${r.calibration === null ? 'unknown' : fig(r.calibration)}`).join(', ')}; judged pair by pair per operation: a regression is a ratio shown above ${fig(1 + l.minEffect)}x (one-sided Wilcoxon signed-rank test and the 95% interval, Bonferroni over every operation); an operation the candidate answered unexpectedly too often is not decided.</p>${
          l.ledgers
            ? `<p class="small">What the mutation run wrote: ${Object.entries(l.ledgers)
                .map(([s, f]) => `${esc(s)} <code>${esc(f)}</code>`)
                .join(', ')}</p>`
            : ''
        }
<table id="candidate-latency"><thead><tr><th>operation</th><th>current p50 ms</th><th>candidate p50 ms</th><th>ratio</th><th>95% interval</th><th>p</th><th>pairs</th><th></th></tr></thead><tbody>${l.endpoints
          .map(
            (e) =>
              `<tr><td><code>${esc(e.endpoint)}</code></td><td>${fig(e.median.current)}</td><td>${fig(e.median.candidate)}</td><td>${fig(e.ratio)}x</td><td>${fig(e.lower)}-${fig(e.upper)}x</td><td>${fig(e.p)}</td><td>${e.n.current}</td><td>${e.regression ? '<span class="tag k-FAIL">slower</span>' : e.decidable ? '' : `<span class="muted small">${e.candidate?.unexpected ? `not decided: ${e.candidate.unexpected} of ${e.candidate.requests} candidate answers unexpected` : 'too few'}</span>`}</td></tr>`,
          )
          .join('')}</tbody></table>`;
  return `<section id="candidate"><h2>Current vs candidate</h2>
<p>${esc(c.reason ?? `${c.verdict}: ${c.regressions.length} regressions, ${c.changes.length} changes of open behaviour; ${c.paired.exchanges} exchanges of ${c.paired.tests} tests paired, ${c.options.readOnly ? 'read-only' : 'with writes'}; noise learnt from ${c.options.reads} reads of each side (${c.noise.places} places, ${c.noise.differencesIgnored} differences ignored)`)}</p>
<ul>${sides}</ul>
<h3>Regressions (${c.regressions.length})</h3>
${regressions}
<h3>Changed behaviour, by operation (${c.changes.length})</h3>
${changes}
${both}
${latency}
</section>`;
}
