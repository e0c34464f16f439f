// reports/index.html: one self-contained page (inline CSS, inline SVG charts, a few lines of inline
// script; no CDN, no request anywhere) from what a run left in reports/: the verdict, what ran against
// what, failures with their evidence, the clause matrix by section and level (filterable), load
// against the baseline, observations and drift. Written by `npm run verify`; `npm run report`
// rewrites it from reports/ as it is.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { esc } from './escape.ts';
import { readInputs, type ReportInputs } from './inputs.ts';
import { candidateSection } from './section-candidate.ts';
import { clausesSection } from './section-clauses.ts';
import { failuresSection } from './section-failures.ts';
import { loadSection } from './section-load.ts';
import { observationsSection } from './section-observations.ts';
import { runSection, verdictOf } from './section-run.ts';
import { trendSection } from './section-trend.ts';

const CSS = `
:root{--pass:#2e7d32;--fail:#c62828;--warn:#ef6c00;--observed:#1565c0;--uncovered:#6a1b9a;--muted:#757575;--line:#ddd;--bg2:#f6f7f9}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:1240px;margin:0 auto;padding:1.2rem 1.5rem 4rem}
nav.toc{background:#fff;border-bottom:1px solid var(--line);padding:.45rem 1.5rem;font-size:13px}
nav.toc a{margin-right:1rem;color:#0b5cad;text-decoration:none}
h1{font-size:1.6rem;margin:.4rem 0}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
.verdict{display:inline-block;padding:.1em .6em;border-radius:6px;color:#fff;font-size:1.4rem;vertical-align:middle}
.v-PASS{background:var(--pass)}.v-FAIL{background:var(--fail)}.v-REGRESSION{background:var(--warn)}.v-INCOMPLETE{background:#6a1b9a}.v-NOT-RUN{background:#555}
.meaning{margin:.2rem 0;font-size:1.05rem}.headline{font-size:1.05rem;margin:.3rem 0 0;padding:.5rem .7rem;background:var(--bg2);border-radius:6px}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem}td,th{border:1px solid var(--line);padding:4px 7px;text-align:left;vertical-align:top}
th{background:var(--bg2);font-weight:600}table.meta{width:auto}table.meta th{width:11rem}
.num{text-align:right;white-space:nowrap}.small{font-size:12px}.muted{color:#6a737d}.ok{color:var(--pass)}.bad{color:var(--fail);font-weight:600}
.status{white-space:nowrap;font-weight:600}.s-pass .status{color:var(--pass)}.s-fail .status{color:var(--fail)}.s-warn .status{color:var(--warn)}.s-observed .status{color:var(--observed)}.s-uncovered .status{color:var(--uncovered)}.s-unverifiable .status,.s-waived .status,.s-excluded .status,.s-unreached .status{color:var(--muted)}
tr.s-fail td{background:#fdecea}tr.s-warn td{background:#fff4e5}
.chip{display:inline-block;border-radius:10px;padding:0 .5em;font-size:12px;color:#fff;margin:1px 0;white-space:nowrap}
.chip.s-pass{background:var(--pass)}.chip.s-fail{background:var(--fail)}.chip.s-warn{background:var(--warn)}.chip.s-observed{background:var(--observed)}.chip.s-uncovered{background:var(--uncovered)}.chip.s-unverifiable,.chip.s-waived,.chip.s-excluded{background:var(--muted)}.chip.s-unreached{background:#fff;color:var(--muted);border:1px dashed var(--muted)}
.grid td:first-child a{color:inherit}.grid tr.w-fail td:first-child{border-left:4px solid var(--fail)}.grid tr.w-warn td:first-child{border-left:4px solid var(--warn)}
.filters{margin:.3rem 0 .5rem;display:flex;gap:.35rem;align-items:center;flex-wrap:wrap}
button.filter{font:inherit;border:1px solid #bbb;background:#fff;border-radius:14px;padding:.1rem .7rem;cursor:pointer}
button.filter[aria-pressed=true]{background:#1f2328;color:#fff;border-color:#1f2328}
tr.sec-head th{background:#eef1f5;font-size:13px}tr[hidden]{display:none}
#stages .status{text-transform:uppercase}.stage-pass .status{color:var(--pass)}.stage-fail .status,.stage-error .status{color:var(--fail)}.stage-regression .status{color:var(--warn)}.stage-skipped .status{color:var(--muted)}.stage-incomplete .status{color:var(--uncovered)}
details.failure{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:4px;margin:.4rem 0;padding:.3rem .6rem}
details.failure.k-WARN{border-left-color:var(--warn)}details.failure summary{cursor:pointer}
.tag{display:inline-block;border-radius:4px;padding:0 .4em;font-size:12px;font-weight:700;color:#fff;background:#555}
.tag.k-FAIL,.tag.v-regression{background:var(--fail)}.tag.k-WARN,.tag.k-DRIFT{background:var(--warn)}.tag.v-pass{background:var(--pass)}.tag.v-no-baseline,.tag.v-not-compared{background:var(--muted)}
pre{background:var(--bg2);padding:6px 8px;overflow:auto;max-height:280px;margin:.2rem 0 .5rem;font-size:12px;white-space:pre-wrap;word-break:break-word}
pre.curl{background:#1f2328;color:#e6edf3}.label{font-size:12px;color:#6a737d;margin-top:.4rem}
blockquote{margin:.2rem 0 .4rem;padding:.2rem .6rem;border-left:3px solid #bbb;color:#333;background:#fafafa}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:10px}.exchange{border-top:1px dashed var(--line);margin-top:.5rem;padding-top:.3rem}
.http-2xx{color:var(--pass)}.http-4xx{color:var(--warn)}.http-5xx{color:var(--fail)}
td code{word-break:break-word}#observed td:nth-child(2){width:30%}#observed td:first-child{width:22%}ul.values{margin:0;padding-left:1.1rem}tr.drifted td{background:#fff4e5}
tr.regressed td{background:#fdecea}.profile{margin-bottom:1.5rem}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0}figcaption{font-size:12px;color:#6a737d}
svg.chart{max-width:100%;height:auto;font:11px system-ui,sans-serif}svg .grid{stroke:#e3e3e3}svg .muted{fill:#888}svg .val{font-size:10px}
footer{margin-top:2rem;font-size:12px;color:#6a737d}
.unproved,.proved{display:inline-block;border-radius:4px;padding:0 .35em;font-size:11px;margin-left:.3em;white-space:nowrap}
.unproved{border:1px dashed var(--fail);color:var(--fail)}.proved{color:var(--muted);border:1px solid var(--line)}.proofline{font-size:13px}
`;

// Filters the clause matrix by status and level, and opens a failure when a link points at it.
const SCRIPT = `
(function () {
  var status = 'all', level = 'all';
  function apply() {
    var rows = document.querySelectorAll('#matrix tr.clause'), shown = 0, sections = {};
    rows.forEach(function (tr) {
      var ok = (status === 'all' || tr.dataset.status === status || (status === 'unproved' && tr.dataset.proof === 'unproved')) && (level === 'all' || tr.dataset.level === level);
      tr.hidden = !ok;
      if (ok) { shown++; sections[tr.dataset.section] = true; }
    });
    document.querySelectorAll('#matrix tr.sec-head').forEach(function (tr) { tr.hidden = !sections[tr.dataset.section]; });
    var out = document.getElementById('shown');
    if (out) out.textContent = shown + ' of ' + rows.length + ' shown';
  }
  document.querySelectorAll('button.filter').forEach(function (b) {
    b.addEventListener('click', function () {
      status = b.dataset.status;
      document.querySelectorAll('button.filter').forEach(function (x) { x.setAttribute('aria-pressed', String(x === b)); });
      apply();
    });
  });
  var sel = document.getElementById('level-filter');
  if (sel) sel.addEventListener('change', function () { level = sel.value; apply(); });
  function openTarget() {
    var el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (el && el.tagName === 'DETAILS') { el.open = true; el.scrollIntoView(); }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
})();
`;

function filesSection(i: ReportInputs): string {
  const l = i.links;
  const items = [
    l.playwright && `<li><a href="${esc(l.playwright)}">Playwright HTML report</a> of the conformance tests</li>`,
    l.conformance && `<li><a href="${esc(l.conformance)}">conformance.json</a>: every clause with status, tests and evidence</li>`,
    l.observations && `<li><a href="${esc(l.observations)}">observations.json</a>: give it to the next run for drift</li>`,
    l.junit && `<li><a href="${esc(l.junit)}">junit.xml</a>: one case per conformance test</li>`,
    ...i.load.flatMap((r) => [r.dashboard && `<li><a href="${esc(r.dashboard)}">Artillery report: ${esc(r.script)}</a></li>`]),
    l.compare && `<li><a href="${esc(l.compare)}">load/compare.json</a>: the load compare, per endpoint</li>`,
  ].filter(Boolean);
  return `<section id="files"><h2>Files of this run</h2><ul>${items.join('')}</ul></section>`;
}

export function renderPage(i: ReportInputs): string {
  const verdict = verdictOf(i);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>Console API conformance: ${esc(verdict)}</title>
<style>${CSS}</style></head><body>
<nav class="toc"><a href="#top">verdict</a><a href="#failures">failures</a>${i.candidate ? '<a href="#candidate">current vs candidate</a>' : ''}<a href="#clauses">clauses</a><a href="#load">load</a><a href="#trend">trend</a><a href="#observations">observations &amp; drift</a><a href="#matrix-title">matrix</a><a href="#files">files</a></nav>
<main>
${runSection(i)}
${failuresSection(i)}
${candidateSection(i.candidate)}
${clausesSection(i)}
${loadSection(i)}
${trendSection(i)}
${observationsSection(i)}
${filesSection(i)}
<footer>Written by console-conformance (npm run verify). The API key is redacted from every exchange and the page holds no request to anywhere.</footer>
</main>
<script>${SCRIPT}</script>
</body></html>
`;
}

/** Writes reportsDir/index.html from what is in reportsDir and the run history; returns its path. */
export function writeReport(reportsDir: string, historyFile?: string): string {
  const path = join(reportsDir, 'index.html');
  writeFileSync(path, renderPage(readInputs(reportsDir, historyFile)));
  return path;
}
