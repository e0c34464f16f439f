// Charts as inline SVG, generated here: the page must work offline and from a file (no CDN, no
// chart library to inline), and two simple chart kinds are all it needs.
import { esc, fmtMs } from './escape.ts';
import type { EndpointRow, LoadPeriod } from '../core/formats.ts';
import type { TimeSeries } from './timeseries.ts';

const PALETTE = ['#1565c0', '#ef6c00', '#2e7d32', '#6a1b9a', '#c62828', '#00838f', '#8d6e63', '#ad1457', '#546e7a', '#9e9d24'];

/** A round number at or above `max`, so the axis reads 0, 5, 10 rather than 0, 4.7, 9.4. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/**
 * Requests per second over the run, one line per endpoint and a thicker line for the total.
 * `series.buckets[i].requests` are counts per bucket; dividing by the bucket length gives a rate.
 */
export function throughputChart(series: TimeSeries, title: string): string {
  if (series.buckets.length === 0) return '<p class="muted">No request samples were captured.</p>';
  const W = 760,
    H = 240,
    L = 48,
    R = 170,
    T = 14,
    B = 34;
  const perSec = 1000 / series.bucketMs;
  const total = series.buckets.map((b) => Object.values(b.requests).reduce((n, c) => n + c, 0) * perSec);
  const yMax = niceMax(Math.max(...total));
  // The last bucket is usually partial: plot it where it starts, like the others.
  const xMax = Math.max(series.bucketMs, (series.buckets.length - 1) * series.bucketMs);
  const x = (t: number) => L + ((W - L - R) * t) / xMax;
  const y = (v: number) => T + (H - T - B) * (1 - v / yMax);
  const line = (values: number[]) => values.map((v, i) => `${x(series.buckets[i].t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const lines = series.endpoints.map((e, i) => {
    const color = PALETTE[i % PALETTE.length];
    const values = series.buckets.map((b) => (b.requests[e] ?? 0) * perSec);
    return { e, color, svg: `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${line(values)}"><title>${esc(e)}</title></polyline>` };
  });
  const yTicks = [0, yMax / 2, yMax].map(
    (v) =>
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" class="grid"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${esc(+v.toFixed(1))}</text>`,
  );
  const xTicks = [0, xMax / 2, xMax].map(
    (t) => `<text x="${x(t)}" y="${H - B + 16}" text-anchor="middle">${esc((t / 1000).toFixed(t < 10000 ? 1 : 0))} s</text>`,
  );
  const legend = [{ e: 'total', color: '#222' }, ...lines].map(
    (l, i) =>
      `<g transform="translate(${W - R + 12},${T + 4 + i * 16})"><rect width="10" height="10" fill="${l.color}"/><text x="14" y="9">${esc(l.e)}</text></g>`,
  );
  return `<svg class="chart" role="img" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-label="${esc(title)}">
<title>${esc(title)}</title>
${yTicks.join('')}${xTicks.join('')}
<text x="12" y="${T + (H - T - B) / 2}" transform="rotate(-90 12 ${T + (H - T - B) / 2})" text-anchor="middle">requests/s</text>
${lines.map((l) => l.svg).join('\n')}
<polyline fill="none" stroke="#222" stroke-width="2.5" points="${line(total)}"><title>total</title></polyline>
${legend.join('')}
</svg>`;
}

/**
 * p95 latency per endpoint: this run against what the baseline predicts on this machine (baseline
 * p95 x calibration scale, docs/load.md "Calibration"). A regressing endpoint's bar is red.
 */
export function latencyChart(rows: EndpointRow[], scale: number | null, title: string): string {
  if (rows.length === 0) return '';
  const W = 760,
    L = 230,
    R = 70,
    ROW = 30,
    T = 22;
  const expected = (r: EndpointRow) => (r.baseline && scale !== null ? r.baseline.p95 * scale : null);
  const xMax = niceMax(Math.max(...rows.map((r) => Math.max(r.p95, expected(r) ?? 0))));
  const H = T + rows.length * ROW + 24;
  const w = (v: number) => ((W - L - R) * v) / xMax;
  const bars = rows.map((r, i) => {
    const top = T + i * ROW;
    const e = expected(r);
    const runColor = r.regression ? '#c62828' : '#1565c0';
    return `<g><text x="${L - 8}" y="${top + 15}" text-anchor="end">${esc(r.endpoint)}</text>
<rect x="${L}" y="${top + 2}" width="${w(r.p95).toFixed(1)}" height="11" fill="${runColor}"><title>${esc(`${r.endpoint}: p95 ${fmtMs(r.p95)} ms this run`)}</title></rect>
<text x="${(L + w(r.p95) + 4).toFixed(1)}" y="${top + 12}" class="val">${esc(fmtMs(r.p95))}</text>
${e === null ? `<text x="${L}" y="${top + 25}" class="muted">no baseline</text>` : `<rect x="${L}" y="${top + 15}" width="${w(e).toFixed(1)}" height="8" fill="#9e9e9e"><title>${esc(`${r.endpoint}: p95 ${fmtMs(e)} ms expected from the baseline`)}</title></rect><text x="${(L + w(e) + 4).toFixed(1)}" y="${top + 23}" class="val muted">${esc(fmtMs(e))}</text>`}</g>`;
  });
  return `<svg class="chart" role="img" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-label="${esc(title)}">
<title>${esc(title)}</title>
<g transform="translate(${L},10)"><rect width="10" height="10" fill="#1565c0"/><text x="14" y="9">p95 this run (ms)</text><rect x="150" width="10" height="8" fill="#9e9e9e"/><text x="164" y="9">p95 expected from the baseline, calibrated</text></g>
${bars.join('\n')}
<line x1="${L}" x2="${L}" y1="${T}" y2="${H - 20}" class="grid"/>
<text x="${W - R}" y="${H - 6}" text-anchor="end" class="muted">scale 0 to ${esc(xMax)} ms</text>
</svg>`;
}

/**
 * One trend over runs (report/trend.ts): a point per run, in order, each with its time and version
 * on hover, and a dashed line before each change-point's first run, labelled with its size. The axis
 * spans the values, not zero to the top: a drift of 10% must show on a line that does not start at 0.
 */
export function trendChart(
  points: { startedAt: string; version: string | null; value: number }[],
  changes: { index: number; label: string }[],
  opts: { title: string; unit: string; format: (v: number) => string },
): string {
  if (points.length === 0) return '<p class="muted">No runs in the history yet.</p>';
  const W = 580,
    H = 160,
    L = 60,
    R = 20,
    T = 18,
    B = 30;
  const values = points.map((p) => p.value);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.05 || 1;
  lo -= pad;
  hi += pad;
  const x = (i: number) => L + (points.length === 1 ? (W - L - R) / 2 : ((W - L - R) * i) / (points.length - 1));
  const y = (v: number) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
  // A flat series has one value: one tick, not three labels on top of each other.
  const tickValues = [...new Map([lo + pad, (lo + hi) / 2, hi - pad].map((v) => [opts.format(v), v])).values()];
  const yTicks = tickValues.map(
    (v) =>
      `<line x1="${L}" x2="${W - R}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/><text x="${L - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(opts.format(v))}</text>`,
  );
  const day = (p: { startedAt: string }) => p.startedAt.slice(0, 10);
  const last = points.length - 1;
  const xTicks = [...new Set([0, Math.floor(last / 2), last])].map(
    (i) =>
      `<text x="${x(i).toFixed(1)}" y="${H - B + 16}" text-anchor="${i === 0 && last > 0 ? 'start' : i === last && last > 0 ? 'end' : 'middle'}">${esc(day(points[i]))}</text>`,
  );
  const marks = changes.map((c) => {
    const cx = ((x(c.index - 1) + x(c.index)) / 2).toFixed(1);
    return `<g class="change"><line x1="${cx}" x2="${cx}" y1="${T}" y2="${H - B}" stroke="#c62828" stroke-dasharray="4 3"/><text x="${cx}" y="${T - 5}" text-anchor="middle" fill="#c62828">${esc(c.label)}</text></g>`;
  });
  const dots = points.map(
    (p, i) =>
      `<circle cx="${x(i).toFixed(1)}" cy="${y(p.value).toFixed(1)}" r="2.5" fill="#1565c0"><title>${esc(`${p.startedAt}${p.version ? ` ${p.version}` : ''}: ${opts.format(p.value)}`)}</title></circle>`,
  );
  return `<svg class="chart trend" role="img" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-label="${esc(opts.title)}">
<title>${esc(opts.title)}</title>
${yTicks.join('')}${xTicks.join('')}
<text x="12" y="${T + (H - T - B) / 2}" transform="rotate(-90 12 ${T + (H - T - B) / 2})" text-anchor="middle">${esc(opts.unit)}</text>
${marks.join('')}
<polyline fill="none" stroke="#1565c0" stroke-width="1.5" points="${points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ')}"/>
${dots.join('')}
</svg>`;
}

/**
 * Latency over time for one endpoint: its p50, p95 and p99 per period (summary.json `periods`), a
 * small chart each so that a slow minute of one endpoint is not lost among the others' lines. A
 * period without a request of it leaves a gap.
 */
export function latencyOverTimeChart(periods: LoadPeriod[], endpoint: string, title: string): string {
  const W = 360,
    H = 150,
    L = 44,
    R = 12,
    T = 18,
    B = 26;
  const points = periods.flatMap((p) => {
    const e = p.endpoints[endpoint];
    return e ? [{ t: p.offsetSeconds, ...e }] : [];
  });
  if (points.length === 0) return '';
  const yMax = niceMax(Math.max(...points.map((p) => p.p99)));
  const xMax = Math.max(10, ...periods.map((p) => p.offsetSeconds));
  const x = (t: number) => L + ((W - L - R) * t) / xMax;
  const y = (v: number) => T + (H - T - B) * (1 - v / yMax);
  const series = (['p50', 'p95', 'p99'] as const).map((k, i) => {
    const color = ['#2e7d32', '#ef6c00', '#c62828'][i];
    // Runs of consecutive periods are joined; a gap breaks the line.
    const runs: (typeof points)[] = [];
    let last = Number.NaN;
    for (const p of points) {
      if (!(p.t - last <= 10.001)) runs.push([]);
      runs[runs.length - 1].push(p);
      last = p.t;
    }
    const lines = runs
      .map(
        (r) => `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${r.map((p) => `${x(p.t).toFixed(1)},${y(p[k]).toFixed(1)}`).join(' ')}"/>`,
      )
      .join('');
    const dots = points
      .map(
        (p) =>
          `<circle cx="${x(p.t).toFixed(1)}" cy="${y(p[k]).toFixed(1)}" r="2" fill="${color}"><title>${esc(`${k} ${fmtMs(p[k])} ms at +${p.t} s (${p.count} requests)`)}</title></circle>`,
      )
      .join('');
    return { k, color, svg: lines + dots };
  });
  const yTicks = [0, yMax / 2, yMax].map(
    (v) => `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" class="grid"/><text x="${L - 4}" y="${y(v) + 4}" text-anchor="end">${esc(fmtMs(v))}</text>`,
  );
  const xTicks = [0, xMax].map((t) => `<text x="${x(t)}" y="${H - B + 14}" text-anchor="middle">+${esc(t)} s</text>`);
  const legend = series.map(
    (s, i) => `<g transform="translate(${L + 6 + i * 48},4)"><rect width="8" height="8" fill="${s.color}"/><text x="11" y="8">${s.k}</text></g>`,
  );
  return `<svg class="chart latency-time" role="img" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" aria-label="${esc(title)}" data-endpoint="${esc(endpoint)}">
<title>${esc(title)}</title>
${yTicks.join('')}${xTicks.join('')}
<text x="${W - R}" y="12" text-anchor="end" class="muted">${esc(endpoint)} (ms)</text>
${series.map((s) => s.svg).join('\n')}
${legend.join('')}
</svg>`;
}
