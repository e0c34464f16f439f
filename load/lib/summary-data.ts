// The end-of-run data of a load profile, derived from what its workers recorded (load/lib/runtime.ts,
// typed per endpoint): each endpoint's figures, the checks by name and by level, the network's answers
// by kind, the profile's counters; and, for summary.json, JUnit and the thresholds the profiles state,
// the same figures under the metric names those files have always shown (`http_req_duration` and
// `http_req_duration{endpoint:listExperiments.deep}`, `checks{level:stated}`, ...), made here and read
// back nowhere in the code. load/lib/summary.ts writes summary.json and JUnit from it.
import { quantileSorted } from '../../core/quantile.ts';
import { TRANSPORT_KINDS } from '../../core/transport-rule.ts';
import type { CheckLevel, EndpointRecord, Records } from './runtime.ts';
import { figureOf, type Limit, limitText, meets, type Thresholds } from './thresholds.ts';

/** A metric's raw figures before they are summed up: a count, passes and fails, or durations in microseconds. */
export type MetricRecord = { type: 'counter'; sum: number } | { type: 'rate'; passes: number; fails: number } | { type: 'trend'; micros: number[] };

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
  level: CheckLevel;
  passes: number;
  fails: number;
}

export interface GroupData {
  name?: string;
  checks?: CheckData[];
  groups?: GroupData[];
}

export interface EndpointFigures {
  p50: number;
  p95: number;
  p99: number;
  avg: number;
  max: number;
  count: number;
  rps: number;
  errorRate: number;
}

export interface SummaryData {
  /** Under the names summary.json and JUnit show (above), each with its thresholds judged. */
  metrics: Record<string, MetricData>;
  root_group?: GroupData;
  state?: { testRunDurationMs?: number };
  /** Per endpoint (setup's probes left out). */
  endpoints: Record<string, EndpointFigures>;
  checks: { passes: number; fails: number; byLevel: Record<CheckLevel, { passes: number; fails: number }> };
  /** Answers that were the network's, not the target's (load/lib/checks.ts), of all answers looked at, by kind. */
  transport: { answers: number; failures: number; kinds: Record<string, number> };
  /** The profile's own counters (e.g. triggers completed). */
  counters: Record<string, number>;
}

/** The project's one quantile (core/quantile.ts) of ascending `asc`; 0 for none, as summary.json shows an endpoint that ran no request. */
const quantileOrZero = (asc: number[], q: number): number => (asc.length === 0 ? 0 : quantileSorted(asc, q));

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
        med: quantileOrZero(ms, 0.5),
        max: ms.at(-1) ?? 0,
        'p(50)': quantileOrZero(ms, 0.5),
        'p(90)': quantileOrZero(ms, 0.9),
        'p(95)': quantileOrZero(ms, 0.95),
        'p(99)': quantileOrZero(ms, 0.99),
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

const networkOf = (e: EndpointRecord) => Object.values(e.network).reduce((a, b) => a + (b ?? 0), 0);

/** The figures of `records` under the names summary.json shows: per endpoint and for the whole run. */
export function namedMetrics(records: Records): Record<string, MetricRecord> {
  const out: Record<string, MetricRecord> = {};
  const all = { micros: [] as number[], expected: [] as number[], unexpected: 0 };
  for (const [name, e] of Object.entries(records.endpoints)) {
    const tag = `{endpoint:${name}}`;
    const network = networkOf(e);
    out[`http_req_duration${tag}`] = { type: 'trend', micros: e.micros };
    out[`load_expected_duration${tag}`] = { type: 'trend', micros: e.expectedMicros };
    out[`http_req_failed${tag}`] = { type: 'rate', passes: e.unexpected, fails: e.micros.length - e.unexpected };
    out[`http_reqs${tag}`] = { type: 'counter', sum: e.micros.length };
    if (e.looked > 0) out[`load_transport_failures${tag}`] = { type: 'rate', passes: network, fails: e.looked - network };
    for (const u of e.micros) all.micros.push(u);
    for (const u of e.expectedMicros) all.expected.push(u);
    all.unexpected += e.unexpected;
  }
  const transport = transportFigures(records);
  out.http_req_duration = { type: 'trend', micros: all.micros };
  out.load_expected_duration = { type: 'trend', micros: all.expected };
  out.http_req_failed = { type: 'rate', passes: all.unexpected, fails: all.micros.length - all.unexpected };
  out.http_reqs = { type: 'counter', sum: all.micros.length };
  out.load_transport_failures = { type: 'rate', passes: transport.failures, fails: transport.answers - transport.failures };
  for (const [kind, n] of Object.entries(transport.kinds)) out[`load_transport_failures{kind:${kind}}`] = { type: 'rate', passes: n, fails: 0 };
  const checks = checkFigures(records);
  out.checks = { type: 'rate', ...pf(checks) };
  for (const [level, c] of Object.entries(checks.byLevel)) if (c.passes + c.fails > 0) out[`checks{level:${level}}`] = { type: 'rate', ...c };
  for (const c of Object.values(records.checks)) {
    const key = `checks{endpoint:${c.endpoint}}`;
    out[key] ??= { type: 'rate', passes: 0, fails: 0 };
    const r = out[key];
    if (r.type === 'rate') {
      r.passes += c.passes;
      r.fails += c.fails;
    }
  }
  for (const [name, n] of Object.entries(records.counters)) out[name] = { type: 'counter', sum: n };
  return out;
}

const pf = (c: { passes: number; fails: number }) => ({ passes: c.passes, fails: c.fails });

function checkFigures(records: Records): SummaryData['checks'] {
  const byLevel = { stated: { passes: 0, fails: 0 }, inferred: { passes: 0, fails: 0 } };
  let passes = 0;
  let fails = 0;
  for (const c of Object.values(records.checks)) {
    byLevel[c.level].passes += c.passes;
    byLevel[c.level].fails += c.fails;
    passes += c.passes;
    fails += c.fails;
  }
  return { passes, fails, byLevel };
}

function transportFigures(records: Records): SummaryData['transport'] {
  const kinds: Record<string, number> = {};
  let answers = 0;
  let failures = 0;
  for (const e of Object.values(records.endpoints)) {
    answers += e.looked;
    for (const [kind, n] of Object.entries(e.network)) {
      kinds[kind] = (kinds[kind] ?? 0) + (n ?? 0);
      failures += n ?? 0;
    }
  }
  const ordered: Record<string, number> = {};
  for (const kind of TRANSPORT_KINDS) if (kinds[kind]) ordered[kind] = kinds[kind];
  return { answers, failures, kinds: ordered };
}

function endpointFigures(records: Records, seconds: number, timed: string[]): Record<string, EndpointFigures> {
  const out: Record<string, EndpointFigures> = {};
  for (const name of [...new Set([...Object.keys(records.endpoints), ...timed])].sort()) {
    const e = records.endpoints[name];
    // Setup's probes are the target's questions before the load, not the load.
    if (name === 'setup') continue;
    if (!e || e.micros.length === 0) {
      // An endpoint the profile times that no request reached (e.g. overrides the target refused): there, at zero.
      if (timed.includes(name)) out[name] = { p50: 0, p95: 0, p99: 0, avg: 0, max: 0, count: 0, rps: 0, errorRate: 0 };
      continue;
    }
    const v = metricValues({ type: 'trend', micros: e.micros }, seconds);
    out[name] = {
      p50: v['p(50)'],
      p95: v['p(95)'],
      p99: v['p(99)'],
      avg: v.avg,
      max: v.max,
      count: v.count,
      rps: seconds > 0 ? v.count / seconds : 0,
      errorRate: e.unexpected / e.micros.length,
    };
  }
  return out;
}

/** The whole run's data from the merged records, its thresholds judged; `timed`, the endpoints the profile times. */
export function summaryData(records: Records, thresholds: Thresholds, durationMs: number, timed: string[] = []): SummaryData {
  const seconds = durationMs / 1000;
  const metrics: Record<string, MetricData> = {};
  for (const [key, r] of Object.entries(namedMetrics(records))) metrics[key] = { type: r.type, values: metricValues(r, seconds) };
  for (const [key, limits] of Object.entries(thresholds)) {
    const has = metrics[key];
    const t: Record<string, { ok: boolean; limit: Limit }> = {};
    for (const limit of limits) t[limitText(limit)] = { ok: thresholdHolds(limit, has && !noSamples(has) ? has.values : undefined), limit };
    // A metric no sample reached still shows its figures, at zero (a request count of 0), with its thresholds.
    metrics[key] = has ? { ...has, thresholds: t } : { ...emptyMetric(limits), thresholds: t };
  }
  const checks = Object.entries(records.checks).map(([name, c]) => ({ name, level: c.level, passes: c.passes, fails: c.fails }));
  return {
    metrics,
    root_group: { name: '', checks, groups: [] },
    state: { testRunDurationMs: durationMs },
    endpoints: endpointFigures(records, seconds, timed),
    checks: checkFigures(records),
    transport: transportFigures(records),
    // The profiles' own (named after their script); the engine's, such as a paired run's pair counts, are not the summary's.
    counters: Object.fromEntries(Object.entries(records.counters).filter(([name]) => name.startsWith('paging_') || name.startsWith('mutation_'))),
  };
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
