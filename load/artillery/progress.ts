// One line per Artillery reporting period (10 s) while a profile runs, from Artillery's own
// intermediate report (the `stats` event, every worker merged): arrivals and any dropped, then per
// endpoint its rate, p95 and the answers that went wrong. A run of a minute or more shows as it goes
// whether the load is being delivered and how the target holds, instead of nothing until it ends.
import { endpointMetric, GENERATOR_BUSY, METRIC_PREFIX, networkMetric, unexpectedMetric } from './metrics.ts';

/** What this line reads of Artillery's period report (PeriodMetrics with its summaries). */
export interface PeriodStats {
  period?: number | string;
  firstMetricAt?: number;
  lastMetricAt?: number;
  counters?: Record<string, number>;
  summaries?: Record<string, { count: number; p50?: number; p95: number; p99?: number; max?: number }>;
}

/** The seconds a period's figures cover: a whole period, or less for the first and the last. */
export function periodSeconds(s: PeriodStats, periodMs = 10_000): number {
  const start = Math.max(Number(s.period ?? 0), s.firstMetricAt ?? 0);
  const span = ((s.lastMetricAt ?? start) - start) / 1000;
  return Math.min(periodMs / 1000, Math.max(1, Math.ceil(span)));
}

/** The endpoints of a period: the `console.<endpoint>` histograms, our other metrics left out. */
export function periodEndpoints(s: PeriodStats): string[] {
  return Object.keys(s.summaries ?? {})
    .filter((n) => n.startsWith(METRIC_PREFIX) && n !== GENERATOR_BUSY)
    .map((n) => n.slice(METRIC_PREFIX.length))
    .sort();
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

export function progressLine(label: string, s: PeriodStats): string {
  const c = s.counters ?? {};
  const seconds = periodSeconds(s);
  const parts: string[] = [];
  const created = c['vusers.created'] ?? 0;
  const skipped = c['vusers.skipped'] ?? 0;
  let head = `${label} ${clock(Number(s.period ?? s.firstMetricAt ?? 0))}: ${created} arrivals (${(created / seconds).toFixed(1)}/s)`;
  if (skipped) head += `, ${skipped} DROPPED at the VU limit`;
  const failedChecks = (c[`${METRIC_PREFIX}checks.failed`] ?? 0) as number;
  if (failedChecks) head += `, ${failedChecks} checks failed`;
  const busy = s.summaries?.[GENERATOR_BUSY];
  if (busy) head += `, generator busy ${Math.round(busy.max ?? busy.p95)}%`;
  for (const e of periodEndpoints(s)) {
    const h = s.summaries?.[endpointMetric(e)];
    if (!h) continue;
    let p = `${e} ${(h.count / seconds).toFixed(1)}/s p95 ${h.p95.toFixed(1)} ms`;
    const unexpected = c[unexpectedMetric(e)] ?? 0;
    const network = c[networkMetric(e)] ?? 0;
    if (unexpected) p += ` ${unexpected} unexpected`;
    if (network) p += ` ${network} network`;
    parts.push(p);
  }
  return parts.length ? `${head}; ${parts.join('; ')}` : head;
}
