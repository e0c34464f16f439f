// Latency over time: p50, p95 and p99 of each endpoint per period (10 s, as Artillery reports), from
// every request's exact duration and start (load/lib/runtime.ts keeps both), so that several workers
// and runners merge exactly and a run's percentiles do not hide a slow minute in a fast hour.
// Periods count from the load's first arrival; a request belongs to the period it started in.
import type { LoadPeriod } from '../../core/formats.ts';
import type { Records } from '../lib/runtime.ts';
import { quantileSorted } from '../../core/quantile.ts';

export const PERIOD_MS = 10_000;

const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function latencyPeriods(records: Records, periodMs = PERIOD_MS): LoadPeriod[] {
  const byEndpoint: [string, number[], number[]][] = [];
  let start = Number.POSITIVE_INFINITY;
  let end = 0;
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    if (endpoint === 'setup' || e.at.length === 0) continue;
    byEndpoint.push([endpoint, e.micros, e.at]);
    for (const a of e.at) {
      if (a < start) start = a;
      if (a > end) end = a;
    }
  }
  if (byEndpoint.length === 0) return [];
  const count = Math.floor((end - start) / periodMs) + 1;
  const periods: LoadPeriod[] = Array.from({ length: count }, (_, i) => ({
    at: new Date(start + i * periodMs).toISOString(),
    offsetSeconds: (i * periodMs) / 1000,
    seconds: Math.max(1, Math.ceil(Math.min(periodMs, end + 1 - (start + i * periodMs)) / 1000)),
    endpoints: {},
  }));
  for (const [endpoint, micros, at] of byEndpoint.sort(([a], [b]) => a.localeCompare(b))) {
    const buckets: number[][] = Array.from({ length: count }, () => []);
    for (let i = 0; i < micros.length; i++) buckets[Math.floor((at[i] - start) / periodMs)].push(micros[i] / 1000);
    buckets.forEach((ms, i) => {
      if (ms.length === 0) return;
      ms.sort((a, b) => a - b);
      periods[i].endpoints[endpoint] = {
        count: ms.length,
        p50: round3(quantileSorted(ms, 0.5)),
        p95: round3(quantileSorted(ms, 0.95)),
        p99: round3(quantileSorted(ms, 0.99)),
      };
    });
  }
  return periods;
}
