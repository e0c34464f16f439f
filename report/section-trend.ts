// Trends over the run history: the clause pass rate, the stated coverage and each endpoint's p50, run after run, with the
// runs where the level shifted (report/trend.ts, report/changepoints.ts).
import { trendChart } from './charts.ts';
import { esc, fmtMs } from './escape.ts';
import type { ReportInputs } from './inputs.ts';
import { describeChange, LATENCY_MIN_EFFECT, TREND_WINDOW, trendsOf, type Trend } from './trend.ts';
import { DEFAULTS } from './changepoints.ts';

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

function block(t: Trend): string {
  const latency = t.kind === 'latency';
  const chart = trendChart(
    t.points,
    t.changes.map((c) => ({ index: c.index, label: latency ? `${c.size.toFixed(2)}×` : `${c.size > 0 ? '+' : ''}${(c.size * 100).toFixed(1)} pt` })),
    {
      title: `${t.label} over runs`,
      unit: latency ? (t.calibrated ? 'ms, calibrated' : 'ms') : t.kind === 'coverage' ? 'stated clauses checked' : 'pass rate',
      format: latency ? (v) => fmtMs(v) : pct,
    },
  );
  const list = t.changes.length
    ? `<ul class="changes">${t.changes.map((c) => `<li class="bad">${esc(describeChange(t, c))} <span class="muted small">p ${esc(c.p.toPrecision(2))}</span></li>`).join('')}</ul>`
    : `<p class="muted small">No shift in ${esc(t.points.length)} run${t.points.length === 1 ? '' : 's'}${t.points.length < 2 * DEFAULTS.minSegment ? ` (a shift needs ${2 * DEFAULTS.minSegment} runs: ${DEFAULTS.minSegment} on each side)` : ''}.</p>`;
  return `<figure class="trend" data-trend="${esc(t.key)}" data-changes="${esc(t.changes.length)}"><figcaption>${esc(t.label)}${t.calibrated ? ' (divided by the run’s calibration scale)' : ''}</figcaption>${chart}${list}</figure>`;
}

export function trendSection(i: ReportInputs): string {
  const h = i.history;
  if (h.error) return `<section id="trend"><h2>Trend over runs</h2><p class="muted">The run history could not be read: ${esc(h.error)}</p></section>`;
  const trends = trendsOf(h.runs);
  if (trends.runs === 0) return `<section id="trend"><h2>Trend over runs</h2><p class="muted">No run history (verify adds each run to it).</p></section>`;
  const all = [trends.passRate, trends.coverage, ...trends.latency];
  const shifted = all.filter((t) => t.changes.length);
  return `<section id="trend"><h2>Trend over runs ${shifted.length ? `<span class="tag v-regression">${esc(shifted.length)} shifted</span>` : '<span class="tag v-pass">no shift</span>'}</h2>
<p class="muted">Endpoints that shifted come first. The last ${esc(trends.runs)} run${trends.runs === 1 ? '' : 's'} (at most ${TREND_WINDOW}) against this target${trends.profile ? `, latency of the ${esc(trends.profile)} profile` : ''}, from the history. A dashed line marks a change-point: the first run of a new level, found by binary segmentation with a permutation test (alpha ${DEFAULTS.alpha}, at least ${DEFAULTS.minSegment} runs on each side; latency shifts under ${LATENCY_MIN_EFFECT * 100}% not shown).</p>
${block(trends.passRate)}
${trends.coverage.points.length ? block(trends.coverage) : ''}
${
  trends.latency.length
    ? `<h3>p50 per endpoint</h3><div class="charts">${trends.latency
        .slice()
        .sort((a, b) => Number(b.changes.length > 0) - Number(a.changes.length > 0))
        .map(block)
        .join('\n')}</div>`
    : '<p class="muted">No load runs of this profile in the history.</p>'
}
</section>`;
}
