// What verify adds to the run history (core/history.ts) about the run it just wrote to reports/:
// read from the same files the report page reads (verify.json, conformance.json, load/), so the
// history holds what the page showed.
import { historyTarget, type HistoryEndpoint, type HistoryRun } from '../core/history.ts';
import type { ReportInputs } from './inputs.ts';

/** A duration histogram of summary.json's `samples` (docs/load.md, "Request samples"). */
interface Histogram {
  growth: number;
  start: number;
  counts: number[];
}

/** The median of a histogram, read as its bucket's geometric middle (within 1%, as the compare reads it). */
export function histogramMedian(h: Histogram | undefined): number | null {
  const total = h?.counts.reduce((n, c) => n + c, 0) ?? 0;
  if (!h || total === 0) return null;
  let seen = 0;
  for (let j = 0; j < h.counts.length; j++) {
    seen += h.counts[j];
    if (seen * 2 >= total) return h.growth ** (h.start + j + 0.5);
  }
  return null;
}

/** The history rows of a run's load profiles: per endpoint its figures, the median of its samples, the compare's calibration scale. */
function endpointRows(
  runs: {
    script: string;
    summary: { endpoints?: Record<string, { p50: number; p95: number; p99: number; count: number }>; samples?: unknown } | null;
    scale: number | null;
  }[],
): HistoryEndpoint[] {
  const endpoints: HistoryEndpoint[] = [];
  for (const run of runs) {
    const samples = (run.summary as { samples?: { endpoints?: Record<string, Histogram> } } | null)?.samples?.endpoints ?? {};
    for (const [endpoint, e] of Object.entries(run.summary?.endpoints ?? {}))
      endpoints.push({
        script: run.script,
        endpoint,
        p50: e.p50,
        p95: e.p95,
        p99: e.p99,
        count: e.count,
        median: histogramMedian(samples[endpoint]),
        scale: run.scale,
      });
  }
  return endpoints;
}

/**
 * A load run without a conformance run as a history row: the merged runners of a TestRun (compare
 * --merge --history), against `target` (`<origin> <manifest>`, as verify names it, so the trends of
 * both kinds of run against one target line up). Its verdict and clause counts are null: no suite ran.
 */
export function loadHistoryRun(o: {
  startedAt: string;
  target: string;
  exitCode: number;
  strict: boolean;
  profile: string;
  runs: {
    script: string;
    summary: { endpoints?: Record<string, { p50: number; p95: number; p99: number; count: number }>; samples?: unknown };
    scale: number | null;
  }[];
}): HistoryRun {
  return {
    startedAt: o.startedAt,
    target: o.target,
    version: null,
    exitCode: o.exitCode,
    verdict: null,
    strict: o.strict,
    profile: o.profile,
    partial: false,
    clauses: null,
    endpoints: endpointRows(o.runs),
  };
}

/** The run in `inputs` as a history row; undefined when verify.json is missing (nothing says what ran). */
export function historyRunOf(inputs: ReportInputs): HistoryRun | undefined {
  const v = inputs.verify;
  if (!v) return undefined;
  const summary = inputs.conformance?.summary;
  const endpoints = endpointRows(inputs.load.map((run) => ({ ...run, scale: inputs.compare?.profiles[run.script]?.calibration.scale ?? null })));
  return {
    startedAt: v.startedAt,
    target: historyTarget(v.target, v.manifest),
    version: v.versions['console-conformance'] ?? null,
    exitCode: v.exitCode,
    verdict: summary?.verdict ?? null,
    strict: v.options.strict,
    profile: v.options.skipLoad ? null : v.options.profile,
    partial: Boolean(v.options.grep) || Boolean(summary?.partial),
    clauses: summary?.byLevel ?? null,
    coverage: summary?.coverage ?? null,
    footprint: inputs.ledger ? { totals: inputs.ledger.totals, state: inputs.ledger.state } : null,
    endpoints,
  };
}
