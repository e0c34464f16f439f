// Open clauses (the spec says "not shown"): what the target did, never judged, and drift: what changed
// since the previous run's observations.json (verify passes it to the suite).
import { esc, inline, pre } from './escape.ts';
import type { ReportInputs } from './inputs.ts';
import { sectionLabel } from './sections.ts';

export function observationsSection(i: ReportInputs): string {
  const drift = i.conformance?.drift ?? [];
  const baseline = i.verify?.options.observationsBaseline ?? null;
  const driftBody = drift.length
    ? `<table id="drift"><thead><tr><th>clause</th><th>aspect</th><th>before</th><th>now</th></tr></thead><tbody>${drift
        .map(
          (d) =>
            `<tr><td><code>${esc(d.clause)}</code></td><td>${esc(d.aspect)}</td><td><code>${esc(inline(d.before))}</code></td><td><code>${esc(inline(d.now))}</code></td></tr>`,
        )
        .join('\n')}</tbody></table>`
    : `<p id="drift-none" class="${baseline ? 'ok' : 'muted'}">${baseline ? `No drift: every open clause observed in this run behaves as in ${esc(baseline)}.` : 'No previous run to compare with (verify compares with the last run against the same target, or --observations-baseline FILE).'}</p>`;

  const clauses = new Map((i.conformance?.clauses ?? []).map((c) => [c.id, c]));
  const drifted = new Set(drift.map((d) => d.clause));
  const obs = Object.entries(i.observations ?? {});
  const rows = obs.map(([id, o]) => {
    const c = clauses.get(id);
    const values = Object.entries(o.value)
      .map(([aspect, v]) => `<li><span class="aspect">${esc(aspect)}</span>: <code>${esc(inline(v))}</code></li>`)
      .join('');
    const ev = o.evidence.length
      ? `<details class="obs-evidence"><summary>${o.evidence.length} exchange${o.evidence.length > 1 ? 's' : ''}</summary>${o.evidence.map((e) => `<div class="small">${esc(e.aspect)}: <code>${esc(e.method)} ${esc(e.path)}</code> → ${esc(e.status)}</div>${pre(e.curl, 'curl')}`).join('')}</details>`
      : '';
    return `<tr${drifted.has(id) ? ' class="drifted"' : ''}><td><code>${esc(id)}</code>${drifted.has(id) ? ' <span class="tag k-DRIFT">drift</span>' : ''}<div class="muted small">${esc(sectionLabel(c?.section ?? null))}</div></td><td>${esc(c?.text ?? '')}</td><td><ul class="values">${values}</ul>${ev}</td></tr>`;
  });
  return `<section id="observations"><h2>Open clauses: observations and drift</h2>
<h3>Drift against the previous run${drift.length ? ` (${drift.length})` : ''}</h3>
${driftBody}
<h3>What the target does where the spec says "not shown" (${obs.length} clauses)</h3>
${rows.length ? `<table id="observed"><thead><tr><th>clause</th><th>spec</th><th>observed</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>` : '<p class="muted">Nothing observed in this run.</p>'}
</section>`;
}
