// The end of a profile run, for both profiles: reports/load/<script>/summary.json (per-endpoint figures
// that load/compare/baseline.ts compares, the thresholds, the raw metrics and the per-endpoint duration
// histograms), junit.xml, and a short console summary. Every output passes through redact(): the
// summary holds no headers, but a key must never reach an artifact even if that changed.
import type { LoadDelivery, LoadPeriod, LoadShape, LoadWrites } from '../../core/formats.ts';
import { TRANSPORT_KINDS } from '../../core/transport-rule.ts';
import { INFERRED_MARK } from './runtime.ts';
import { profileJunitXml } from './junit.ts';
import type { GroupData, SummaryData } from './summary-data.ts';
import type { Limit } from './thresholds.ts';

const REDACTED = '<redacted>';

function redact(text: string, key: string): string {
  if (!key) return text;
  return text.split(key).join(REDACTED).split(encodeURIComponent(key)).join(REDACTED);
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

/** Per-endpoint figures from the tagged sub-metrics (present because every endpoint has thresholds). */
export function endpointFigures(data: SummaryData): Record<string, EndpointFigures> {
  const seconds = (data.state?.testRunDurationMs ?? 0) / 1000;
  const out: Record<string, EndpointFigures> = {};
  for (const metric of Object.keys(data.metrics)) {
    const m = /^http_req_duration\{endpoint:([^}]+)\}$/.exec(metric);
    // The endpoints with thresholds: setup's probes are recorded under an endpoint of their own, apart.
    if (!m || !data.metrics[metric].thresholds) continue;
    const v = data.metrics[metric].values;
    const failed = data.metrics[`http_req_failed{endpoint:${m[1]}}`]?.values;
    out[m[1]] = {
      p50: v['p(50)'],
      p95: v['p(95)'],
      p99: v['p(99)'],
      avg: v.avg,
      max: v.max,
      count: v.count,
      rps: seconds > 0 ? v.count / seconds : 0,
      errorRate: failed ? failed.rate : 0,
    };
  }
  return out;
}

function thresholdList(data: SummaryData) {
  const list: { metric: string; threshold: string; limit: Limit; ok: boolean }[] = [];
  for (const metric of Object.keys(data.metrics).sort()) {
    const th = data.metrics[metric].thresholds ?? {};
    for (const text of Object.keys(th)) list.push({ metric, threshold: text, limit: th[text].limit, ok: th[text].ok });
  }
  return list;
}

/** Passed and failed checks of one level, from the sub-metric its threshold keeps. */
function levelFigures(data: SummaryData, level: 'stated' | 'inferred'): { passes: number; fails: number } {
  const v = data.metrics[`checks{level:${level}}`]?.values;
  return { passes: v?.passes ?? 0, fails: v?.fails ?? 0 };
}

/** Every check that failed at least once, by name, with its level (an inferred check's name says so). */
function failedChecks(group: GroupData | undefined): { name: string; level: 'stated' | 'inferred'; passes: number; fails: number }[] {
  const out: { name: string; level: 'stated' | 'inferred'; passes: number; fails: number }[] = [];
  const visit = (g: GroupData | undefined) => {
    for (const c of g?.checks ?? [])
      if (c.fails > 0) out.push({ name: c.name, level: c.name.endsWith(INFERRED_MARK) ? 'inferred' : 'stated', passes: c.passes, fails: c.fails });
    for (const sub of g?.groups ?? []) visit(sub);
  };
  visit(group);
  return out;
}

/** Answers that were the network's, not the target's (load/lib/checks.ts), of all answers looked at, by kind. */
function transportFigures(data: SummaryData): { answers: number; failures: number; kinds: Record<string, number> } {
  const v = data.metrics.load_transport_failures?.values;
  const kinds: Record<string, number> = {};
  for (const kind of TRANSPORT_KINDS) {
    const n = data.metrics[`load_transport_failures{kind:${kind}}`]?.values.passes ?? 0;
    if (n > 0) kinds[kind] = n;
  }
  return { answers: (v?.passes ?? 0) + (v?.fails ?? 0), failures: v?.passes ?? 0, kinds };
}

function fixed(n: number | undefined, digits = 1): string {
  return n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);
}

export interface SummaryInput {
  script: string;
  profile: string;
  baseUrl: string;
  apiKey: string;
  data: SummaryData;
  /** Per-endpoint duration histograms (load/compare/samples.ts). */
  samples: unknown;
  /** Load generators merged into this run (processes of Artillery's, each with its workers). */
  runners: number;
  engine: { name: string; version: string };
  /** Whether the asked load was delivered (load/artillery/delivery.ts). */
  delivery?: LoadDelivery;
  /** The shape given as data (--config, --overrides) and what Artillery's ensure plugin concluded of its limits. */
  shape?: LoadShape;
  /** Latency over time (load/artillery/periods.ts). */
  periods?: LoadPeriod[];
  /** What the run wrote to the target (the mutation profile's, load/lib/writes.ts). */
  writes?: LoadWrites;
}

/** summary.json, junit.xml (their text, the key redacted) and the console lines of a run. */
export function summaryFiles(o: SummaryInput): { summaryJson: string; junit: string; console: string } {
  const { script, data } = o;
  const PROFILE = o.profile;
  {
    const endpoints = endpointFigures(data);
    const thresholds = thresholdList(data);
    const checks = data.metrics.checks?.values ?? { passes: 0, fails: 0, rate: 0 };
    const summary = {
      format: 'console-conformance.load-summary/1',
      script,
      profile: PROFILE,
      target: o.baseUrl.replace(/\/\/[^@/]*@/, '//'), // no credentials in a URL either
      finishedAt: new Date().toISOString(),
      durationMs: data.state?.testRunDurationMs ?? 0,
      engine: o.engine,
      ...(o.runners > 1 ? { runners: o.runners } : {}),
      thresholdsOk: thresholds.every((t) => t.ok),
      checks: {
        passes: checks.passes,
        fails: checks.fails,
        stated: levelFigures(data, 'stated'),
        inferred: levelFigures(data, 'inferred'),
        failed: failedChecks(data.root_group),
      },
      transport: transportFigures(data),
      endpoints,
      thresholds,
      counters: pickCounters(data),
      ...(o.writes ? { writes: o.writes } : {}),
      ...(o.delivery ? { delivery: o.delivery } : {}),
      ...(o.shape ? { shape: o.shape } : {}),
      ...(o.periods ? { periods: o.periods } : {}),
      samples: o.samples,
      metrics: data.metrics,
    };
    const part = o.runners > 1 ? `, ${o.runners} runners merged` : '';
    const lines = [
      `${o.engine.name} ${script} (${PROFILE}${part}): ${fixed(summary.durationMs / 1000)} s, checks ${checks.passes} passed ${checks.fails} failed`,
    ];
    lines.push(
      `  ${'endpoint'.padEnd(34)} ${'count'.padStart(6)} ${'rps'.padStart(7)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'p99'.padStart(7)} ${'err%'.padStart(6)}`,
    );
    for (const name of Object.keys(endpoints).sort()) {
      const e = endpoints[name];
      lines.push(
        `  ${name.padEnd(34)} ${String(e.count).padStart(6)} ${fixed(e.rps).padStart(7)} ${fixed(e.p50).padStart(7)} ${fixed(e.p95).padStart(7)} ${fixed(e.p99).padStart(7)} ${fixed(e.errorRate * 100, 2).padStart(6)}`,
      );
    }
    for (const [k, v] of Object.entries(summary.counters)) lines.push(`  ${k}: ${v}`);
    if (o.delivery) {
      const d = o.delivery;
      lines.push(
        `  ${d.ok ? 'load delivered' : 'NOT CARRIED OUT'}: ${d.note}${d.cpuMsPer1000Requests ? `; generator CPU ${d.cpuMsPer1000Requests} ms per 1000 requests` : ''}`,
      );
    }
    for (const c of summary.checks.failed)
      lines.push(`  ${c.level === 'stated' ? 'CHECK FAILED' : 'WARNING (inferred)'}: ${c.name} (${c.fails} of ${c.passes + c.fails})`);
    const t = summary.transport;
    if (t.failures > 0)
      lines.push(
        `  NO USABLE ANSWER: ${t.failures} of ${t.answers} answers were the network's, not the target's (${Object.entries(t.kinds)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')})`,
      );
    for (const t of thresholds.filter((x) => !x.ok)) lines.push(`  THRESHOLD CROSSED: ${t.metric} ${t.threshold}`);
    for (const l of o.shape?.limits ?? [])
      lines.push(`  ${l.ok ? 'limit held' : l.strict ? 'LIMIT BROKEN' : 'limit broken (optional)'}: ${l.check}${l.runner ? ` (runner ${l.runner})` : ''}`);
    return {
      summaryJson: redact(JSON.stringify(summary, null, 2), o.apiKey),
      junit: redact(profileJunitXml(`load.${script}.${PROFILE}`, data), o.apiKey),
      console: redact(lines.join('\n') + '\n', o.apiKey),
    };
  }
}

/** The scripts' own counters (names starting with a script prefix), e.g. triggers completed. */
function pickCounters(data: SummaryData): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(data.metrics)) {
    if (/^(paging|mutation)_/.test(name) && data.metrics[name].type === 'counter') out[name] = data.metrics[name].values.count;
  }
  return out;
}
