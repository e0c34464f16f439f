// handleSummary for both scripts: reports/load/<script>/summary.json (per-endpoint figures that
// load/compare/baseline.ts compares, the thresholds and the raw k6 metrics), junit.xml, and a short
// stdout summary. Every output passes through redact(): the summary holds no headers, but a key
// must never reach an artifact even if k6 changed that.
import { API_KEY, BASE_URL, PROFILE, REDACTED, REPORT_DIR } from './env.ts';
import { junitXml } from './junit.ts';
import type { SummaryData } from './summary-data.ts';

function redact(text: string): string {
  if (!API_KEY) return text;
  return text.split(API_KEY).join(REDACTED).split(encodeURIComponent(API_KEY)).join(REDACTED);
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
    if (!m) continue;
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
  const list: { metric: string; threshold: string; ok: boolean }[] = [];
  for (const metric of Object.keys(data.metrics).sort()) {
    const th = data.metrics[metric].thresholds ?? {};
    for (const expr of Object.keys(th)) list.push({ metric, threshold: expr, ok: th[expr].ok });
  }
  return list;
}

function fixed(n: number | undefined, digits = 1): string {
  return n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits);
}

export function makeHandleSummary(script: string) {
  return function handleSummary(data: SummaryData): Record<string, string> {
    const endpoints = endpointFigures(data);
    const thresholds = thresholdList(data);
    const checks = data.metrics.checks?.values ?? { passes: 0, fails: 0, rate: 0 };
    const summary = {
      format: 'console-conformance.load-summary/1',
      script,
      profile: PROFILE,
      target: BASE_URL.replace(/\/\/[^@/]*@/, '//'), // no credentials in a URL either
      finishedAt: new Date().toISOString(),
      durationMs: data.state?.testRunDurationMs ?? 0,
      thresholdsOk: thresholds.every((t) => t.ok),
      checks: { passes: checks.passes, fails: checks.fails },
      endpoints,
      thresholds,
      counters: pickCounters(data),
      k6: { metrics: data.metrics },
    };
    const lines = [`k6 ${script} (${PROFILE}): ${fixed(summary.durationMs / 1000)} s, checks ${checks.passes} passed ${checks.fails} failed`];
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
    for (const t of thresholds.filter((x) => !x.ok)) lines.push(`  THRESHOLD CROSSED: ${t.metric} ${t.threshold}`);
    return {
      [`${REPORT_DIR}/summary.json`]: redact(JSON.stringify(summary, null, 2)),
      [`${REPORT_DIR}/junit.xml`]: redact(junitXml(`k6.${script}.${PROFILE}`, data)),
      stdout: redact(lines.join('\n') + '\n'),
    };
  };
}

/** The scripts' own counters (names starting with a script prefix), e.g. triggers completed. */
function pickCounters(data: SummaryData): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of Object.keys(data.metrics)) {
    if (/^(paging|mutation)_/.test(name) && data.metrics[name].type === 'counter') out[name] = data.metrics[name].values.count;
  }
  return out;
}
