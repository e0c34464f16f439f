// What a load profile records while it runs, as plain typed records (`count`, `rate`, `trend`,
// `check`, and `wrote` for its writes to the target): its requests' durations (microseconds, timed by
// load/lib/http.ts with process.hrtime), checks, counters and rates, each also under every
// tag it was given (`http_req_duration{endpoint:listExperiments.deep}`), so that thresholds and the
// summary name the endpoint. Artillery runs the profile's functions in its workers (threads, and
// processes with --runners); each worker appends what one arrival recorded as one JSON line to a file
// of its own (load/artillery/processor.ts), and the command merges every line of every file: counts add
// and every duration is kept, so several workers merge exactly. Artillery's own metrics are whole
// milliseconds and approximate quantiles: too coarse for a local target and for the compare.

import type { Side } from '../../core/formats.ts';
import { addWrites, type LoadWrites, type PerResource, sideWrites } from './writes.ts';

export type Tags = Record<string, string>;

/** What an inferred check's name ends with, so that the summary, the console and JUnit say its level. */
export const INFERRED_MARK = ' [inferred]';

/** One metric's raw record: durations in microseconds for a trend. */
export type MetricRecord =
  | { type: 'counter'; sum: number }
  | { type: 'rate'; passes: number; fails: number }
  | { type: 'trend'; micros: number[]; at?: number[] };

/** What some part of a run recorded: metrics by key (`name` or `name{tag:value}`) and checks by name. */
export interface Records {
  metrics: Record<string, MetricRecord>;
  checks: Record<string, { passes: number; fails: number }>;
  /** When the load recorded here began and ended (epoch ms): the run's duration is the merged span. */
  span?: [number, number];
  /** What was written to each side's target (a paired run writes to both). */
  writes?: Partial<Record<Side, LoadWrites>>;
}

const emptyRecords = (): Records => ({ metrics: {}, checks: {} });
let current: Records = emptyRecords();

/** The keys a value is recorded under: the metric itself and one per tag. */
function keys(name: string, tags: Tags | undefined): string[] {
  const out = [name];
  for (const [k, v] of Object.entries(tags ?? {})) out.push(`${name}{${k}:${v}}`);
  return out;
}

function record(name: string, type: MetricRecord['type'], tags: Tags | undefined, apply: (r: MetricRecord) => void): void {
  for (const key of keys(name, tags)) {
    let r = current.metrics[key];
    if (!r) {
      r = type === 'counter' ? { type, sum: 0 } : type === 'rate' ? { type, passes: 0, fails: 0 } : { type, micros: [] };
      current.metrics[key] = r;
    }
    apply(r);
  }
}

/** Adds `n` to counter `name`. */
export function count(name: string, n: number, tags?: Tags): void {
  record(name, 'counter', tags, (r) => {
    if (r.type === 'counter') r.sum += n;
  });
}

/** One pass (`ok`) or fail of rate `name`. */
export function rate(name: string, ok: boolean, tags?: Tags): void {
  record(name, 'rate', tags, (r) => {
    if (r.type !== 'rate') return;
    if (ok) r.passes++;
    else r.fails++;
  });
}

/** One duration of trend `name`, in microseconds; `at`, when it began (epoch ms), for the throughput over time. */
export function trend(name: string, micros: number, tags?: Tags, at?: number): void {
  record(name, 'trend', tags, (r) => {
    if (r.type !== 'trend') return;
    r.micros.push(micros);
    if (at === undefined) return;
    r.at = r.at ?? [];
    r.at.push(at);
  });
}

/** Runs each named test on `value`; records each under its name and in `checks` (with `tags`); true when all held. */
export function check<T>(value: T, tests: Record<string, (v: T) => boolean>, tags?: Tags): boolean {
  let all = true;
  for (const [name, test] of Object.entries(tests)) {
    let ok = false;
    try {
      ok = Boolean(test(value));
    } catch {
      ok = false;
    }
    const c = current.checks[name] ?? { passes: 0, fails: 0 };
    if (ok) c.passes++;
    else c.fails++;
    current.checks[name] = c;
    rate('checks', ok, tags);
    all &&= ok;
  }
  return all;
}

const writesOf = (side: Side): LoadWrites => sideWrites(current, side);

/** Records `n` writes of a kind to resource `id` on `side`'s target (for reports/ledger.json). */
export function wrote(side: Side, what: PerResource, id: string, n = 1): void {
  const per = writesOf(side)[what];
  per[id] = (per[id] ?? 0) + n;
}

/** Records a metric created or updated on `side`'s target. */
export function wroteMetric(side: Side, what: 'metricsCreated' | 'metricsUpdated'): void {
  writesOf(side)[what]++;
}

/** Records the rules `gate` held at an answer (the last one this worker saw; merged, the largest). */
export function gateHeld(side: Side, gate: string, rules: number): void {
  writesOf(side).gateRules[gate] = rules;
}

/** What was recorded since the last call, handed over and forgotten. */
export function takeRecords(): Records {
  const r = current;
  current = emptyRecords();
  return r;
}

/** Adds `part` into `into` (counts add, durations are all kept). */
export function mergeRecords(into: Records, part: Records): Records {
  for (const [key, r] of Object.entries(part.metrics)) {
    const have = into.metrics[key];
    if (!have) {
      into.metrics[key] = r.type === 'trend' ? { type: 'trend', micros: [...r.micros], ...(r.at ? { at: [...r.at] } : {}) } : { ...r };
      continue;
    }
    if (have.type === 'counter' && r.type === 'counter') have.sum += r.sum;
    else if (have.type === 'rate' && r.type === 'rate') {
      have.passes += r.passes;
      have.fails += r.fails;
    } else if (have.type === 'trend' && r.type === 'trend') {
      for (const m of r.micros) have.micros.push(m);
      if (r.at) {
        const at = have.at ?? [];
        for (const a of r.at) at.push(a);
        have.at = at;
      }
    } else throw new Error(`metric ${key} recorded as both ${have.type} and ${r.type}`);
  }
  for (const [side, w] of Object.entries(part.writes ?? {}) as [Side, LoadWrites][]) {
    addWrites(sideWrites(into, side), w);
  }
  if (part.span) into.span = into.span ? [Math.min(into.span[0], part.span[0]), Math.max(into.span[1], part.span[1])] : [...part.span];
  for (const [name, c] of Object.entries(part.checks)) {
    const have = into.checks[name] ?? { passes: 0, fails: 0 };
    have.passes += c.passes;
    have.fails += c.fails;
    into.checks[name] = have;
  }
  return into;
}

export const newRecords = emptyRecords;

/** Stops the run with `reason`: a target that cannot be tested (exit 3, the reason in one line). */
export class AbortRun extends Error {}

export function abort(reason: string): never {
  throw new AbortRun(reason);
}
