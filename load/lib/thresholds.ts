// Thresholds as data: per metric key (`http_req_duration{endpoint:listExperiments.deep}`, so that a
// crossed one names the endpoint) the limits it is held to, e.g. `{stat: 'p95', op: '<', value: 300}`;
// and the thresholds that decide the run's verdict by the level of what failed (load/lib/checks.ts).
// The text form (`p(95)<300`) is what summary.json and JUnit show, and what summaries and cloud plans
// written before the limits were data hold: `parseLimit` reads it back.
import type { ThresholdLimit } from '../../core/formats.ts';

export type Limit = ThresholdLimit;
export type Stat = Limit['stat'];

/** Thresholds as the profiles state them: metric key to the limits it is held to. */
export type Thresholds = Record<string, Limit[]>;

export interface Limits {
  p95: number;
  p99: number;
}

const below = (stat: Stat, value: number): Limit => ({ stat, op: '<', value });

export function endpointThresholds(endpoints: Record<string, Limits>, maxErrorRate: number): Thresholds {
  const t: Thresholds = {};
  for (const name of Object.keys(endpoints)) {
    t[`http_req_duration{endpoint:${name}}`] = [below('p95', endpoints[name].p95), below('p99', endpoints[name].p99)];
    t[`http_req_failed{endpoint:${name}}`] = [{ stat: 'rate', op: '<=', value: maxErrorRate }];
  }
  return t;
}

/**
 * Checks by level and transport failures: stated checks must meet `checks`; inferred ones only under
 * `strict`; answers that were the network's, not the target's, may be at most `transportBudget` of
 * all answers looked at. (Every tagged sub-metric is recorded whether or not a threshold reads it.)
 */
export function verdictThresholds(checks: Limit, strict: boolean, transportBudget: number): Thresholds {
  return {
    'checks{level:stated}': [checks],
    ...(strict ? { 'checks{level:inferred}': [checks] } : {}),
    load_transport_failures: [{ stat: 'rate', op: '<=', value: transportBudget }],
  };
}

/** The limit as text, as summary.json and JUnit show it: `p(95)<300`, `rate<=0.001`. */
export function limitText(l: Limit): string {
  return `${l.stat.startsWith('p') ? `p(${l.stat.slice(1)})` : l.stat}${l.op}${l.value}`;
}

/** The figure a limit reads among a metric's values (load/lib/summary-data.ts names percentiles `p(95)`). */
export function figureOf(l: Limit, values: Record<string, number>): number | undefined {
  return values[l.stat.startsWith('p') ? `p(${l.stat.slice(1)})` : l.stat];
}

/** Whether `got` meets the limit. */
export function meets(l: Limit, got: number): boolean {
  switch (l.op) {
    case '<':
      return got < l.value;
    case '<=':
      return got <= l.value;
    case '>':
      return got > l.value;
    case '>=':
      return got >= l.value;
    case '!=':
      return got !== l.value;
    default:
      return got === l.value;
  }
}

const TEXT = /^\s*(avg|min|max|med|count|rate|value|p\((\d+(?:\.\d+)?)\))\s*(<=|>=|<|>|===|==|!=)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$/;

/** A limit from its text form (`p(95)<300`, `rate==1`); undefined when it is not `<stat> <op> <number>`. */
export function parseLimit(text: string): Limit | undefined {
  const m = TEXT.exec(text);
  if (!m) return undefined;
  const stat = (m[2] ? `p${m[2]}` : m[1]) as Stat;
  return { stat, op: (m[3] === '===' ? '==' : m[3]) as Limit['op'], value: Number(m[4]) };
}

/** Thresholds read from a file: limits as data, or as text (cloud plans prepared before they were data). */
export function readThresholds(raw: Record<string, (Limit | string)[]>): Thresholds {
  const out: Thresholds = {};
  for (const [key, limits] of Object.entries(raw))
    out[key] = limits.map((l) => {
      const limit = typeof l === 'string' ? parseLimit(l) : l;
      if (!limit) throw new Error(`threshold ${JSON.stringify(l)} of ${key} cannot be judged: not <stat> <op> <number>`);
      return limit;
    });
  return out;
}
