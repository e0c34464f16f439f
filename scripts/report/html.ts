// reports/index.html: one self-contained page (no CDN, inline CSS and JS) from reports/conformance.json
// and reports/observations.json: the verdict, what ran against what, the clause matrix by section and
// level (filterable by status), each failure with its evidence, and the observations of open clauses.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const pre = (v: unknown) => `<pre>${esc(typeof v === 'string' ? v : JSON.stringify(v, null, 2))}</pre>`;

export interface Stage { name: string; status: 'pass' | 'fail' | 'error' | 'not run'; detail: string }

export function renderReport(reportsDir: string, stages: Stage[], meta: Record<string, string>): string {
  const conf = JSON.parse(readFileSync(join(reportsDir, 'conformance.json'), 'utf8'));
  const verdict = stages.every((s) => s.status === 'pass' || s.status === 'not run') ? 'PASS' : 'FAIL';
  const clauses: any[] = conf.clauses;
  const sections = [...new Set(clauses.map((c) => String(c.section ?? '?')))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const rows = clauses
    .slice()
    .sort((a, b) => String(a.section).localeCompare(String(b.section), 'en', { numeric: true }) || a.id.localeCompare(b.id))
    .map((c) => `<tr class="st-${c.status}" data-status="${esc(c.status)}"><td>${esc(c.section)}</td><td><code>${esc(c.id)}</code></td><td>${esc(c.level)}</td><td class="status">${esc(c.status)}</td><td>${esc(c.text)}</td><td>${c.tests.length}</td></tr>`)
    .join('\n');
  const matrix = sections
    .map((s) => {
      const cs = clauses.filter((c) => String(c.section) === s);
      const n = (st: string) => cs.filter((c) => c.status === st).length;
      return `<tr><td>${esc(s)}</td><td>${cs.length}</td><td>${n('pass')}</td><td class="${n('fail') ? 'bad' : ''}">${n('fail')}</td><td>${n('warn')}</td><td>${n('observed')}</td><td>${n('uncovered')}</td></tr>`;
    })
    .join('\n');
  const failures = (conf.failures as any[])
    .map((f) => {
      const spec = f.clauses.map((id: string) => clauses.find((c) => c.id === id)).filter(Boolean).map((c: any) => `<li><code>${esc(c.id)}</code> (spec ${esc(c.section)}, ${esc(c.level)}): ${esc(c.text)}</li>`).join('');
      const ex = (f.exchanges as any[]).map((e) => `<div class="ex"><b>${esc(e.method)} ${esc(e.path)} → ${esc(e.status)}</b>${pre(e.curl)}<div class="cols"><div>sent${pre(e.requestBody ?? '')}</div><div>received${pre(e.responseBody ?? '')}</div></div></div>`).join('');
      return `<details class="failure"><summary>${f.counts ? 'FAIL' : 'WARN'} [${esc(f.level)}] ${esc(f.test)}</summary><p>${esc(f.error)}</p><ul>${spec}</ul>${ex}</details>`;
    })
    .join('\n');
  const observed = clauses.filter((c) => c.observations?.length).map((c) => `<tr><td><code>${esc(c.id)}</code></td><td>${esc(c.text)}</td><td>${pre(c.observations.map((o: any) => o.value ?? o))}</td></tr>`).join('\n');
  const drift = (conf.drift as any[] | undefined) ?? [];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>console-conformance report: ${verdict}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222;max-width:1200px}
h1 .v{padding:.1em .5em;border-radius:4px;color:#fff}.PASS{background:#2e7d32}.FAIL{background:#c62828}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}td,th{border:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f5f5f5}.st-fail .status,.bad{color:#c62828;font-weight:bold}.st-warn .status{color:#ef6c00}.st-pass .status{color:#2e7d32}
.st-uncovered .status{color:#888}pre{background:#f7f7f7;padding:6px;overflow:auto;max-height:300px;margin:.3rem 0}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:8px}details{margin:.5rem 0;border:1px solid #eee;padding:.4rem}summary{cursor:pointer;font-weight:600}
</style></head><body>
<h1>Conformance <span class="v ${verdict}">${verdict}</span></h1>
<table><tr><th>target</th><td>${esc(meta.target)}</td></tr><tr><th>manifest</th><td>${esc(meta.manifest)}</td></tr>
<tr><th>mode</th><td>${conf.summary.strict ? 'strict (inferred clauses fail)' : 'default (inferred clauses warn)'}</td></tr>
<tr><th>when</th><td>${esc(conf.summary.startedAt)} (${(conf.summary.durationMs / 1000).toFixed(1)} s)</td></tr>
<tr><th>versions</th><td>${esc(meta.versions)}</td></tr></table>
<h2>Stages</h2><table><tr><th>stage</th><th>status</th><th>detail</th></tr>
${stages.map((s) => `<tr><td>${esc(s.name)}</td><td class="${s.status === 'pass' ? '' : 'bad'}">${esc(s.status)}</td><td>${esc(s.detail)}</td></tr>`).join('\n')}</table>
<h2>Clauses by section</h2><table><tr><th>section</th><th>clauses</th><th>pass</th><th>fail</th><th>warn</th><th>observed</th><th>uncovered</th></tr>${matrix}</table>
<h2>Failures (${conf.failures.length})</h2>${failures || '<p>None.</p>'}
<h2>Observations of open clauses</h2><table><tr><th>clause</th><th>spec</th><th>observed</th></tr>${observed}</table>
<h2>Drift against the previous run</h2>${drift.length ? pre(drift) : '<p>None.</p>'}
<h2>Clause matrix</h2>
<p><label>status <select id="filter"><option value="">all</option><option>pass</option><option>fail</option><option>warn</option><option>observed</option><option>uncovered</option></select></label>
Links: <a href="playwright-report/index.html">Playwright report</a> · <a href="conformance.json">conformance.json</a> · <a href="junit.xml">junit.xml</a></p>
<table id="matrix"><tr><th>section</th><th>clause</th><th>level</th><th>status</th><th>spec text</th><th>tests</th></tr>
${rows}</table>
<script>
document.getElementById('filter').addEventListener('change', function (e) {
  var v = e.target.value;
  document.querySelectorAll('#matrix tr[data-status]').forEach(function (tr) { tr.style.display = !v || tr.dataset.status === v ? '' : 'none'; });
});
</script>
</body></html>
`;
}

export function writeReport(reportsDir: string, stages: Stage[], meta: Record<string, string>): string | undefined {
  if (!existsSync(join(reportsDir, 'conformance.json'))) return undefined;
  const path = join(reportsDir, 'index.html');
  writeFileSync(path, renderReport(reportsDir, stages, meta));
  return path;
}
