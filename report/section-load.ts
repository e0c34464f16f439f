// Load: per load profile, latency percentiles per endpoint against the baseline (calibrated for this
// machine, docs/load.md "Baselines and the compare"), throughput over time, and links to the run's own
// outputs (Artillery's JSON report, JUnit, summary).
import { esc, fmtMs, fmtPct, fmtRatio } from './escape.ts';
import { latencyChart, latencyOverTimeChart, throughputChart } from './charts.ts';
import type { EndpointRow, ProfileResult } from '../core/formats.ts';
import type { LoadRun, ReportInputs } from './inputs.ts';

function rowsFromSummary(run: LoadRun): EndpointRow[] {
  return Object.entries(run.summary?.endpoints ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([endpoint, e]) => ({
      endpoint,
      p50: e.p50,
      p95: e.p95,
      p99: e.p99,
      rps: e.rps,
      errorRate: e.errorRate,
      count: e.count,
      baseline: null,
      ratio: null,
      regression: false,
      reason: '',
    }));
}

/** The statistical rule's effect and interval under the verdict, when it judged the row (docs/load.md). */
function statistical(r: EndpointRow): string {
  const st = r.rule === 'statistical' ? r.statistical : undefined;
  return st
    ? `<div class="muted small">median ${esc(st.effect.toFixed(2))}× (95% CI ${esc(st.lower.toFixed(2))}–${esc(st.upper.toFixed(2))}×), p ${esc(st.p.toPrecision(2))}, n ${esc(st.n.run)}/${esc(st.n.base)}</div>`
    : '';
}

function table(rows: EndpointRow[], scale: number | null): string {
  const exp = (r: EndpointRow, k: 'p50' | 'p95' | 'p99') => (r.baseline && scale !== null ? r.baseline[k] * scale : null);
  const cell = (r: EndpointRow, k: 'p50' | 'p95' | 'p99') =>
    `<td class="num">${esc(fmtMs(r[k]))}<div class="muted small">${esc(fmtMs(exp(r, k)))}${r.ratio ? ` · ${esc(fmtRatio(r.ratio[k]))}` : ''}</div></td>`;
  return `<table class="load-table"><thead><tr><th>endpoint</th><th class="num">requests</th><th class="num">req/s<div class="muted small">baseline</div></th><th class="num">p50 ms<div class="muted small">expected · ratio</div></th><th class="num">p95 ms<div class="muted small">expected · ratio</div></th><th class="num">p99 ms<div class="muted small">expected · ratio</div></th><th class="num">errors</th><th>against the baseline</th></tr></thead><tbody>
${rows
  .map(
    (r) =>
      `<tr class="${r.regression ? 'regressed' : ''}" data-endpoint="${esc(r.endpoint)}"><td><code>${esc(r.endpoint)}</code></td><td class="num">${esc(r.count)}</td><td class="num">${esc(r.rps.toFixed(1))}<div class="muted small">${r.baseline ? esc(r.baseline.rps.toFixed(1)) : '–'}</div></td>${cell(r, 'p50')}${cell(r, 'p95')}${cell(r, 'p99')}<td class="num">${esc(fmtPct(r.errorRate))}</td><td>${r.regression ? `<b class="bad">regression</b>: ${esc(r.reason)}` : r.baseline ? '<span class="ok">within tolerance</span>' : '<span class="muted">no baseline</span>'}${statistical(r)}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`;
}

/** p50, p95 and p99 per period of each endpoint (summary.json `periods`; older summaries have none). */
function overTime(run: LoadRun): string {
  const periods = run.summary?.periods;
  if (!periods?.length) return '';
  const endpoints = [...new Set(periods.flatMap((p) => Object.keys(p.endpoints)))].sort();
  const seconds = periods.reduce((n, p) => n + p.seconds, 0);
  return `<figure class="latency-over-time"><figcaption>latency over time: p50, p95 and p99 of each endpoint per ${esc(Math.max(...periods.map((p) => p.seconds)))} s period (${esc(periods.length)} period${periods.length === 1 ? '' : 's'}, ${esc(seconds)} s)</figcaption>
<div class="charts">${endpoints.map((e) => latencyOverTimeChart(periods, e, `${run.script}: ${e} latency over time`)).join('\n')}</div></figure>`;
}

function profileBlock(run: LoadRun, cmp: ProfileResult | undefined): string {
  const s = run.summary;
  const rows = cmp
    ? cmp.endpoints.slice().sort((a, b) => Number(b.regression) - Number(a.regression) || a.endpoint.localeCompare(b.endpoint))
    : rowsFromSummary(run);
  const scale = cmp?.calibration.scale ?? null;
  const verdict = cmp?.verdict ?? 'not compared';
  const failedThresholds = (s?.thresholds ?? []).filter((t) => !t.ok);
  const facts = [
    s ? `profile <b>${esc(s.profile)}</b>, ${esc((s.durationMs / 1000).toFixed(1))} s` : '',
    s?.checks ? `checks ${esc(s.checks.passes)} passed, <span class="${s.checks.fails ? 'bad' : ''}">${esc(s.checks.fails)} failed</span>` : '',
    s
      ? s.thresholdsOk === false
        ? `<span class="bad">${failedThresholds.length} threshold${failedThresholds.length === 1 ? '' : 's'} crossed</span>`
        : 'thresholds held'
      : '',
    s?.delivery ? (s.delivery.ok ? `load delivered: ${esc(s.delivery.note)}` : `<span class="bad">not carried out: ${esc(s.delivery.note)}</span>`) : '',
    scale !== null ? `calibration: this machine ${esc(fmtRatio(scale))} the baseline's` : '',
    cmp?.reason ? esc(cmp.reason) : '',
  ].filter(Boolean);
  const links = [
    run.dashboard ? `<a href="${esc(run.dashboard)}">Artillery report (JSON)</a>` : '',
    run.junit ? `<a href="${esc(run.junit)}">JUnit</a>` : '',
    run.summary ? `<a href="load/${esc(run.script)}/summary.json">summary.json</a>` : '',
    cmp ? `<span class="muted">baseline ${esc(cmp.baselineFile.replace(/^.*\/(load\/baselines\/)/, '$1'))}</span>` : '',
  ].filter(Boolean);
  return `<div class="profile" id="load-${esc(run.script)}" data-verdict="${esc(verdict)}">
<h3>${esc(run.script)} <span class="tag v-${esc(verdict)}">${esc(verdict)}</span></h3>
<p>${facts.join(' · ')}</p>
${failedThresholds.length ? `<ul class="bad">${failedThresholds.map((t) => `<li><code>${esc(t.metric)}</code> ${esc(t.threshold)}</li>`).join('')}</ul>` : ''}
<p class="links">${links.join(' · ')}</p>
${table(rows, scale)}
<div class="charts"><figure><figcaption>p95 latency per endpoint: this run and what the baseline predicts on this machine</figcaption>${latencyChart(rows, scale, `${run.script}: p95 per endpoint against the baseline`)}</figure>
<figure><figcaption>throughput over time (requests per second, from the load run's request samples)</figcaption>${run.series ? throughputChart(run.series, `${run.script}: requests per second over time`) : '<p class="muted">No time series (request rows) for this run.</p>'}</figure></div>
${overTime(run)}
</div>`;
}

export function loadSection(i: ReportInputs): string {
  const skipped = i.verify?.options.skipLoad;
  if (i.load.length === 0) {
    return `<section id="load"><h2>Load</h2><p class="muted">${skipped ? 'Not run (--skip-load).' : 'No load run in this report.'}</p></section>`;
  }
  const cmp = i.compare;
  const tol = cmp?.tolerance;
  return `<section id="load"><h2>Load against the baseline${cmp ? ` <span class="tag v-${esc(cmp.verdict)}">${esc(cmp.verdict)}</span>` : ''}</h2>
<p class="muted">Per endpoint: this run's latency, and below it what the committed baseline predicts on this machine (baseline × calibration scale) and the ratio. ${tol ? `A latency regresses above ${esc(tol.p50)}× (p50), ${esc(tol.p95)}× (p95), ${esc(tol.p99)}× (p99) and by more than ${esc(tol.minDeltaMs)} ms; throughput below ${esc(tol.rps)}× the baseline's.` : ''}${cmp && Object.values(cmp.profiles).some((p) => p.latencyRule?.startsWith('statistical')) ? ` Where run and baseline keep request samples, a latency regresses instead when a one-sided Mann-Whitney test shows it slower (alpha ${esc(tol?.alpha ?? 0.01)} over the endpoints) and the 95% interval of its calibrated median ratio lies above ${esc(1 + (tol?.minEffect ?? 0.1))}×.` : ''}</p>
${i.load.map((run) => profileBlock(run, cmp?.profiles[run.script])).join('\n')}
</section>`;
}
