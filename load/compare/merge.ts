// The summaries of several runs of one script merged into the summary of one run: runs on several
// machines at once, their summaries copied together (`baseline:compare --merge`). Each run writes its
// own end-of-test summary, and an average of the runs' percentiles is not the percentile of the
// whole run: with runners that see different latencies (a pod on a busy node) it can be far off.
//
// What merges exactly: counts, throughputs (the runners ran at the same time), error rates (weighted
// by count), averages, maxima, checks by level, transport failures by kind, the scripts' counters, and
// the per-endpoint request-duration histograms (counts add, load/compare/samples.ts), from which the
// merged p50/p95/p99 are read, as the compare reads a single run's (each duration within 1%, its
// bucket's middle). Thresholds are judged again on the merged figures where they can be (rates,
// counts, averages, extremes, and percentiles of endpoint durations from the merged histogram), so
// the verdict is the whole run's, not the worst runner's. When a runner kept no histograms (a summary
// written before they were kept), percentiles fall back to the count-weighted mean of the runners'
// percentiles and the merged summary says so (`merge.percentiles: "approximate"`).
import { ConfigError } from '../../core/config.ts';
import type { Figures, LoadDelivery, RunSummary } from '../../core/formats.ts';
import { samplesOf } from './run-samples.ts';
import { type DurationHistogram, histogramCount, histogramQuantile, mergeRunSamples, type RunSamples } from './samples.ts';
import { commonTarget } from './measured-against.ts';
import { type Limit, meets, parseLimit, type Stat } from '../lib/thresholds.ts';
import { addWrites, emptyWrites, summaryWrites } from '../lib/writes.ts';

/** One raw metric of a summary (`metrics`): its type and its end-of-run figures. */
interface RawMetric {
  type: 'counter' | 'gauge' | 'rate' | 'trend';
  values: Record<string, number>;
}

/** The fields of a runner's summary.json the merge reads beside the compare's (load/lib/summary.ts writes them). */
export interface RunnerSummary extends RunSummary {
  /** The raw metrics (`metrics`; `k6.metrics` in summaries written before the engine was Artillery, still read). */
  metrics?: Record<string, RawMetric>;
  k6?: { metrics?: Record<string, RawMetric> };
}

type CheckFigures = NonNullable<RunSummary['checks']>;
export type Threshold = NonNullable<RunSummary['thresholds']>[number];

// ---------------------------------------------------------------------------------------------
// Thresholds, judged again on the merged figures.

/**
 * A limit (as data, or as the text a summary shows: `p(95)<300`, `rate==1`) held against the figure
 * `value` gives for its statistic; undefined when it cannot be (text that is not a limit, a figure not known).
 */
export function holds(limit: Limit | string, value: (stat: Stat) => number | undefined): boolean | undefined {
  const l = typeof limit === 'string' ? parseLimit(limit) : limit;
  if (!l) return undefined;
  const got = value(l.stat);
  if (got === undefined || Number.isNaN(got)) return undefined;
  return meets(l, got);
}

/**
 * A raw metric's merged aggregations: rates and counters add, trends add counts and weight their
 * averages, extremes are extremes. A trend's percentiles come only from `histogram` (the endpoint's
 * merged durations): the runners' own percentiles do not combine.
 */
function mergedValue(parts: RawMetric[], histogram: DurationHistogram | undefined) {
  const type = parts[0]?.type;
  const sum = (k: string) => parts.reduce((n, p) => n + (p.values[k] ?? 0), 0);
  return (stat: Stat): number | undefined => {
    const aggregation = stat.startsWith('p') ? 'p' : stat;
    if (type === 'rate') {
      const passes = sum('passes');
      const fails = sum('fails');
      return aggregation === 'rate' ? (passes + fails === 0 ? 0 : passes / (passes + fails)) : undefined;
    }
    if (type === 'counter') return aggregation === 'count' ? sum('count') : undefined;
    if (type === 'trend') {
      const count = sum('count');
      const live = parts.filter((p) => (p.values.count ?? 0) > 0);
      if (aggregation === 'count') return count;
      if (count === 0) return 0; // an empty trend's aggregations read 0, as in a single run's summary (load/lib/summary-data.ts)
      if (aggregation === 'avg') return live.reduce((n, p) => n + (p.values.avg ?? 0) * p.values.count, 0) / count;
      if (aggregation === 'min') return Math.min(...live.map((p) => p.values.min ?? Number.NaN));
      if (aggregation === 'max') return Math.max(...live.map((p) => p.values.max ?? Number.NaN));
      const q = aggregation === 'med' ? 50 : aggregation === 'p' ? Number(stat.slice(1)) : undefined;
      if (q !== undefined && histogram && histogramCount(histogram) > 0) return histogramQuantile(histogram, q / 100);
    }
    return undefined;
  };
}

/** The duration tag of an endpoint trend, `http_req_duration{endpoint:X}` -> X. */
const durationEndpoint = (metric: string) => /^http_req_duration\{endpoint:([^}]+)\}$/.exec(metric)?.[1];

function mergeThresholds(summaries: RunnerSummary[], samples: RunSamples | undefined): Threshold[] {
  const keys = new Map<string, { metric: string; threshold: string; limit?: Limit }>();
  for (const s of summaries)
    for (const t of s.thresholds ?? []) keys.set(`${t.metric}\u0000${t.threshold}`, { metric: t.metric, threshold: t.threshold, limit: t.limit });
  const out: Threshold[] = [];
  for (const { metric, threshold, limit } of keys.values()) {
    // A runner that kept its raw metrics but none of this one saw no sample of it.
    const kept = summaries.every((s) => (s.metrics ?? s.k6?.metrics) !== undefined);
    const raw = summaries.map((s) => (s.metrics ?? s.k6?.metrics)?.[metric]).filter((m): m is RawMetric => m !== undefined);
    const endpoint = durationEndpoint(metric);
    const merged = kept && raw.length > 0 ? holds(limit ?? threshold, mergedValue(raw, endpoint ? samples?.endpoints[endpoint] : undefined)) : undefined;
    // What cannot be judged on the merged figures holds when it held in every runner.
    const ok = merged ?? summaries.every((s) => (s.thresholds ?? []).every((t) => t.metric !== metric || t.threshold !== threshold || t.ok));
    out.push({ metric, threshold, ...(limit ? { limit } : {}), ok, judged: merged === undefined ? 'every runner' : 'merged figures' });
  }
  return out.sort((a, b) => (a.metric === b.metric ? (a.threshold < b.threshold ? -1 : 1) : a.metric < b.metric ? -1 : 1));
}

// ---------------------------------------------------------------------------------------------

function mergeChecks(summaries: RunnerSummary[]): CheckFigures | undefined {
  const all = summaries.map((s) => s.checks).filter((c): c is CheckFigures => c !== undefined);
  if (all.length === 0) return undefined;
  const level = (k: 'stated' | 'inferred') => ({
    passes: all.reduce((n, c) => n + (c[k]?.passes ?? 0), 0),
    fails: all.reduce((n, c) => n + (c[k]?.fails ?? 0), 0),
  });
  // A runner lists a check only where it failed: its fails add up exactly, its passes are those of the runners that list it.
  const failed = new Map<string, { name: string; level: string; passes: number; fails: number }>();
  for (const c of all)
    for (const f of c.failed ?? []) {
      const had = failed.get(f.name);
      failed.set(f.name, had ? { ...had, passes: had.passes + f.passes, fails: had.fails + f.fails } : { ...f });
    }
  return {
    passes: all.reduce((n, c) => n + c.passes, 0),
    fails: all.reduce((n, c) => n + c.fails, 0),
    stated: level('stated'),
    inferred: level('inferred'),
    failed: [...failed.values()],
  };
}

function mergeTransport(summaries: RunnerSummary[]): RunnerSummary['transport'] {
  const all = summaries.map((s) => s.transport).filter((t): t is NonNullable<RunnerSummary['transport']> => t !== undefined);
  if (all.length === 0) return undefined;
  const kinds: Record<string, number> = {};
  for (const t of all) for (const [k, n] of Object.entries(t.kinds)) kinds[k] = (kinds[k] ?? 0) + n;
  return { answers: all.reduce((n, t) => n + t.answers, 0), failures: all.reduce((n, t) => n + t.failures, 0), kinds };
}

function sumRecords(records: (Record<string, number> | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const [k, n] of Object.entries(r ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** The request-duration histograms of a summary, or null; an Error naming the runner when they are malformed. */
function samplesIn(s: RunSummary, i: number): RunSamples | null {
  try {
    return samplesOf(s, `runner ${i + 1}'s summary`);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/**
 * The runners' summaries of one script and profile as one run's (the comment at the top says what is
 * exact). Throws a ConfigError when they are not of one script and profile.
 */
export function mergeSummaries(summaries: RunSummary[]): RunSummary {
  if (summaries.length === 0) throw new ConfigError('--merge needs at least one summary');
  const runners = summaries as RunnerSummary[];
  const { script, profile } = runners[0];
  for (const s of runners) {
    if (s.script !== script || s.profile !== profile)
      throw new ConfigError(`cannot merge ${s.script}/${s.profile} with ${script}/${profile}: one script and profile per merge`);
  }
  const kept = runners.map(samplesIn);
  const samples = kept.every((x) => x !== null) ? mergeRunSamples(kept as RunSamples[]) : undefined;
  const names = [...new Set(runners.flatMap((s) => Object.keys(s.endpoints)))].sort();
  const endpoints: Record<string, Figures> = {};
  const approximate: string[] = [];
  for (const name of names) {
    const parts = runners.map((s) => s.endpoints[name]).filter((e): e is Figures => e !== undefined && e.count > 0);
    const count = parts.reduce((n, e) => n + e.count, 0);
    const weighted = (k: 'p50' | 'p95' | 'p99' | 'errorRate' | 'avg') => (count === 0 ? 0 : parts.reduce((n, e) => n + (e[k] ?? 0) * e.count, 0) / count);
    const h = samples?.endpoints[name];
    const exact = h !== undefined && histogramCount(h) > 0;
    if (!exact && count > 0) approximate.push(name);
    const q = (k: 'p50' | 'p95' | 'p99', at: number) => (exact ? histogramQuantile(h, at) : weighted(k));
    endpoints[name] = {
      p50: q('p50', 0.5),
      p95: q('p95', 0.95),
      p99: q('p99', 0.99),
      avg: weighted('avg'),
      max: Math.max(0, ...parts.map((e) => e.max ?? 0)),
      count,
      rps: parts.reduce((n, e) => n + e.rps, 0),
      errorRate: weighted('errorRate'),
    };
  }
  const target = commonTarget(runners);
  const thresholds = mergeThresholds(runners, samples);
  const checks = mergeChecks(runners);
  const transport = mergeTransport(runners);
  const writes = runners.map(summaryWrites).filter((w) => w !== undefined);
  const finished = runners.map((s) => s.finishedAt).filter((f): f is string => typeof f === 'string');
  return {
    format: runners[0].format,
    script,
    profile,
    ...(finished.length ? { finishedAt: finished.sort().at(-1) } : {}),
    durationMs: Math.max(...runners.map((s) => s.durationMs)),
    runners: runners.reduce((n, s) => n + (s.runners ?? 1), 0),
    merge: {
      percentiles: approximate.length === 0 ? 'exact' : 'approximate',
      note:
        approximate.length === 0
          ? 'p50/p95/p99 read from the merged request-duration histograms (within 1%)'
          : `count-weighted mean of the runners' percentiles for ${approximate.join(', ')}: ${samples ? 'no durations of expected responses kept' : 'a runner kept no request-duration histograms'}`,
    },
    ...(target ? { target } : {}),
    ...(thresholds.length ? { thresholdsOk: thresholds.every((t) => t.ok), thresholds } : {}),
    ...(checks ? { checks } : {}),
    ...(transport ? { transport } : {}),
    counters: sumRecords(runners.map((s) => s.counters)),
    ...(writes.length ? { writes: writes.reduce((all, w) => addWrites(all, w), emptyWrites()) } : {}),
    endpoints,
    ...(samples ? { samples } : {}),
    ...(runners.some((s) => s.delivery) ? { delivery: mergeDelivery(runners.map((s) => s.delivery)) } : {}),
  };
}

/** The runs' deliveries side by side: arrivals add, and one run that fell short leaves the merged run not carried out. */
function mergeDelivery(all: (LoadDelivery | undefined)[]): LoadDelivery {
  const known = all.filter((d): d is LoadDelivery => d !== undefined);
  const asked = known.reduce((n, d) => n + d.asked, 0);
  const started = known.reduce((n, d) => n + d.started, 0);
  const short = all.map((d, i) => (d && !d.ok ? `run ${i + 1}: ${d.note}` : '')).filter(Boolean);
  return {
    asked,
    started,
    dropped: known.reduce((n, d) => n + d.dropped, 0),
    shortfall: asked > 0 ? Math.round(Math.max(0, (asked - started) / asked) * 10000) / 10000 : 0,
    ok: short.length === 0,
    note: short.length ? short.join('; ') : `${started} of ${asked} arrivals started in ${known.length} of ${all.length} runs that said`,
    generators: known.flatMap((d) => d.generators),
  };
}

/**
 * What the merged run's engine result would have been, for the verdict (load/command/outcome.ts):
 * 1 when a merged threshold is crossed (the verdict says which level: 1, 2 or 3), else 0.
 */
export function mergedExit(merged: RunSummary): 0 | 1 {
  return (merged as RunnerSummary).thresholdsOk === false ? 1 : 0;
}
