// The end-of-run data of a load profile, built from what its workers recorded (load/lib/runtime.ts):
// per metric its figures (durations in milliseconds, from microsecond samples) and each threshold
// with whether it held; the checks by name. load/lib/summary.ts writes summary.json and JUnit from it.
import type { MetricRecord, Records } from './runtime.ts';
import { figureOf, type Limit, limitText, meets, type Thresholds } from './thresholds.ts';

export type { Thresholds } from './thresholds.ts';

export interface MetricData {
  type: MetricRecord['type'];
  /** e.g. count and rate for a counter; avg, max, 'p(95)', count for a trend; rate, passes, fails for a rate. */
  values: Record<string, number>;
  /** By the limit's text (`p(95)<300`, as summary.json and JUnit show it). */
  thresholds?: Record<string, { ok: boolean; limit: Limit }>;
}

export interface CheckData {
  name: string;
  passes: number;
  fails: number;
}

export interface GroupData {
  name?: string;
  checks?: CheckData[];
  groups?: GroupData[];
}

export interface SummaryData {
  metrics: Record<string, MetricData>;
  root_group?: GroupData;
  state?: { testRunDurationMs?: number };
}

function quantile(asc: number[], q: number): number {
  if (asc.length === 0) return 0;
  const h = (asc.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(asc.length - 1, lo + 1);
  return asc[lo] + (h - lo) * (asc[hi] - asc[lo]);
}

export function metricValues(r: MetricRecord, seconds: number): Record<string, number> {
  switch (r.type) {
    case 'counter':
      return { count: r.sum, rate: seconds > 0 ? r.sum / seconds : 0 };
    case 'rate': {
      const n = r.passes + r.fails;
      return { rate: n ? r.passes / n : 0, passes: r.passes, fails: r.fails };
    }
    case 'trend': {
      const ms = r.micros.map((u) => u / 1000).sort((a, b) => a - b);
      const sum = ms.reduce((a, b) => a + b, 0);
      return {
        avg: ms.length ? sum / ms.length : 0,
        min: ms[0] ?? 0,
        med: quantile(ms, 0.5),
        max: ms.at(-1) ?? 0,
        'p(50)': quantile(ms, 0.5),
        'p(90)': quantile(ms, 0.9),
        'p(95)': quantile(ms, 0.95),
        'p(99)': quantile(ms, 0.99),
        count: ms.length,
      };
    }
  }
}

/**
 * Whether `limit` holds on `values`. A metric with no samples holds every limit (nothing crossed it);
 * a limit on a figure the metric does not have is an error, not a pass.
 */
export function thresholdHolds(limit: Limit, values: Record<string, number> | undefined): boolean {
  if (!values) return true;
  const got = figureOf(limit, values);
  if (got === undefined || Number.isNaN(got)) throw new Error(`threshold ${limitText(limit)} cannot be judged: no such figure on this metric`);
  return meets(limit, got);
}

/** The whole run's data from the merged records, its thresholds judged. */
export function summaryData(records: Records, thresholds: Thresholds, durationMs: number): SummaryData {
  const seconds = durationMs / 1000;
  const metrics: Record<string, MetricData> = {};
  for (const [key, r] of Object.entries(records.metrics)) metrics[key] = { type: r.type, values: metricValues(r, seconds) };
  for (const [key, limits] of Object.entries(thresholds)) {
    const has = metrics[key];
    const t: Record<string, { ok: boolean; limit: Limit }> = {};
    for (const limit of limits) t[limitText(limit)] = { ok: thresholdHolds(limit, has && !noSamples(has) ? has.values : undefined), limit };
    // A metric no sample reached still shows its figures, at zero (a request count of 0), with its thresholds.
    metrics[key] = has ? { ...has, thresholds: t } : { ...emptyMetric(limits), thresholds: t };
  }
  const checks = Object.entries(records.checks).map(([name, c]) => ({ name, ...c }));
  return { metrics, root_group: { name: '', checks, groups: [] }, state: { testRunDurationMs: durationMs } };
}

/** The figures of a metric without samples, of the type its thresholds read (a rate, a count, else a trend). */
function emptyMetric(limits: Limit[]): MetricData {
  const stat = limits[0]?.stat ?? 'rate';
  const record: MetricRecord =
    stat === 'count' ? { type: 'counter', sum: 0 } : stat === 'rate' ? { type: 'rate', passes: 0, fails: 0 } : { type: 'trend', micros: [] };
  return { type: record.type, values: metricValues(record, 0) };
}

function noSamples(m: MetricData): boolean {
  return m.type === 'trend' ? m.values.count === 0 : m.type === 'rate' ? m.values.passes + m.values.fails === 0 : false;
}
