// The end of a profile run, for both profiles: reports/load/<script>/summary.json (per-endpoint figures
// that load/compare/baseline.ts compares, the thresholds, the raw metrics and the per-endpoint duration
// histograms), junit.xml, and a short console summary. Every output passes through redact(): the
// summary holds no headers, but a key must never reach an artifact even if that changed.
import type { LoadDelivery, LoadPeriod, LoadShape, LoadWrites } from '../../core/formats.ts';
import { REDACTED } from '../../core/keys.ts';
import { profileJunitXml } from './junit.ts';
import type { GroupData, SummaryData } from './summary-data.ts';
import type { Limit } from './thresholds.ts';

function redact(text: string, key: string): string {
  if (!key) return text;
  return text.split(key).join(REDACTED).split(encodeURIComponent(key)).join(REDACTED);
}

export type { EndpointFigures } from './summary-data.ts';

function thresholdList(data: SummaryData) {
  const list: { metric: string; threshold: string; limit: Limit; ok: boolean }[] = [];
  for (const metric of Object.keys(data.metrics).sort()) {
    const th = data.metrics[metric].thresholds ?? {};
    for (const text of Object.keys(th)) list.push({ metric, threshold: text, limit: th[text].limit, ok: th[text].ok });
  }
  return list;
}

/** Every check that failed at least once, by name, with its level. */
function failedChecks(group: GroupData | undefined): { name: string; level: 'stated' | 'inferred'; passes: number; fails: number }[] {
  const out: { name: string; level: 'stated' | 'inferred'; passes: number; fails: number }[] = [];
  const visit = (g: GroupData | undefined) => {
    for (const c of g?.checks ?? []) if (c.fails > 0) out.push({ name: c.name, level: c.level, passes: c.passes, fails: c.fails });
    for (const sub of g?.groups ?? []) visit(sub);
  };
  visit(group);
  return out;
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
    const endpoints = data.endpoints;
    const thresholds = thresholdList(data);
    const checks = data.checks;
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
        stated: data.checks.byLevel.stated,
        inferred: data.checks.byLevel.inferred,
        failed: failedChecks(data.root_group),
      },
      transport: data.transport,
      endpoints,
      thresholds,
      counters: data.counters,
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
