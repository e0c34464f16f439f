// The end-of-run data of a load profile, built from what its workers recorded (load/lib/runtime.ts):
// per metric its figures (durations in milliseconds, from microsecond samples) and each threshold
// with whether it held; the checks by name. load/lib/summary.ts writes summary.json and JUnit from it.
import { holds } from '../compare/merge.ts';
import type { MetricRecord, Records } from './runtime.ts';

export interface MetricData {
  type: 'counter' | 'gauge' | 'rate' | 'trend';
  /** e.g. count and rate for a counter; avg, max, 'p(95)', count for a trend; rate, passes, fails for a rate. */
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
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

/** Thresholds as the profiles state them: metric key to expressions such as `p(95)<300` or `rate<=0.001`. */
export type Thresholds = Record<string, string[]>;

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
    case 'gauge':
      return { value: r.value, min: r.value, max: r.value };
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
 * Whether `expr` (`p(95)<300`, `rate<=0.001`) holds on `values`, read as the merge reads thresholds
 * (load/compare/merge.ts). A metric with no samples holds every threshold (nothing crossed it); an
 * expression this suite cannot judge is an error, not a pass.
 */
export function thresholdHolds(expr: string, values: Record<string, number> | undefined): boolean {
  const judged = holds(
    expr,
    (aggregation, percentile) => (values ?? { [aggregation]: 0, [`p(${percentile})`]: 0 })[aggregation === 'p' ? `p(${percentile})` : aggregation],
  );
  if (judged === undefined) throw new Error(`threshold ${JSON.stringify(expr)} cannot be judged: not <stat> <op> <number>, or no such figure on this metric`);
  return values ? judged : true;
}

/** The whole run's data from the merged records, its thresholds judged. */
export function summaryData(records: Records, thresholds: Thresholds, durationMs: number): SummaryData {
  const seconds = durationMs / 1000;
  const metrics: Record<string, MetricData> = {};
  for (const [key, r] of Object.entries(records.metrics)) metrics[key] = { type: r.type, values: metricValues(r, seconds) };
  for (const [key, exprs] of Object.entries(thresholds)) {
    const has = metrics[key];
    const t: Record<string, { ok: boolean }> = {};
    for (const e of exprs) t[e] = { ok: thresholdHolds(e, has && !noSamples(has) ? has.values : undefined) };
    // A metric no sample reached still shows its figures, at zero (a request count of 0), with its thresholds.
    metrics[key] = has ? { ...has, thresholds: t } : { ...emptyMetric(exprs), thresholds: t };
  }
  const checks = Object.entries(records.checks).map(([name, c]) => ({ name, ...c }));
  return { metrics, root_group: { name: '', checks, groups: [] }, state: { testRunDurationMs: durationMs } };
}

/** The figures of a metric without samples, of the type its thresholds read (percentiles: a trend; rate; count; value). */
function emptyMetric(exprs: string[]): MetricData {
  const stat = exprs[0] ?? '';
  const record: MetricRecord = /^\s*(p\(|avg|med|min|max)/.test(stat)
    ? { type: 'trend', micros: [] }
    : /^\s*count/.test(stat)
      ? { type: 'counter', sum: 0 }
      : /^\s*value/.test(stat)
        ? { type: 'gauge', value: 0 }
        : { type: 'rate', passes: 0, fails: 0 };
  return { type: record.type, values: metricValues(record, 0) };
}

function noSamples(m: MetricData): boolean {
  return m.type === 'trend' ? m.values.count === 0 : m.type === 'rate' ? m.values.passes + m.values.fails === 0 : false;
}
