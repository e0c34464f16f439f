// What a load profile records while it runs, as typed records: per endpoint its requests (each
// duration in microseconds, timed by load/lib/http.ts with process.hrtime, with the time it began),
// the answers not of the status expected and those that were the network's; the checks by name with
// their level; the profile's own counters; and its writes to the target (`wrote`). Artillery runs the
// profile's functions in its workers (threads, and processes with --runners); each worker appends what
// one arrival recorded as one JSON line to a file of its own (load/artillery/processor.ts), and the
// command merges every line of every file: counts add and every duration is kept, so several workers
// merge exactly. The summary, the outcome, the compare's samples and the ledger are derived from these
// records (load/lib/summary-data.ts); the metric names summary.json shows are made there, at the edge.
// Artillery's own metrics are whole milliseconds and approximate quantiles: too coarse for a local
// target and for the compare.

import type { Side } from '../../core/formats.ts';
import type { TransportKind } from '../../core/transport-rule.ts';
import type { CheckLevel } from './clause-levels.ts';
import { addWrites, type LoadWrites, type PerResource, sideWrites } from './writes.ts';

/** What an inferred check's name ends with, so that the summary, the console and JUnit say its level. */
export const INFERRED_MARK = ' [inferred]';

export type { CheckLevel };

/** Answers that were the network's, not the target's, by kind (core/transport-rule.ts). */
export type NetworkCounts = Partial<Record<TransportKind, number>>;

/** The candidate's side of an endpoint in a paired run (load/lib/http.ts, paired mode). */
export interface CandidateRecord {
  /** Its answers (paired or of its own), and those not of the status expected. */
  answers: number;
  unexpected: number;
  /** Of its answers, those that were the network's, by kind. */
  network: NetworkCounts;
  /** The two durations (µs) of each request both sides answered as expected, of one status class, aligned: current[i] and candidate[i] are one pair. */
  pairCurrent: number[];
  pairCandidate: number[];
  /** Both answers expected but of another status class (a 200 and a 409): two pieces of work, not a pair. */
  mismatched: number;
  /** Requests to the candidate alone (no counterpart on the current at that moment). */
  alone: number;
}

/** One endpoint's requests. */
export interface EndpointRecord {
  /** Every request's duration (µs) and when it began (epoch ms), aligned. */
  micros: number[];
  at: number[];
  /** Durations (µs) of the answers of the status expected: the compare's samples (a refused connection or a quick 500 says nothing of an endpoint's speed). */
  expectedMicros: number[];
  /** Answers not of the status expected. */
  unexpected: number;
  /** Answers the checks looked at (load/lib/checks.ts `answered`), and those that were the network's, by kind. */
  looked: number;
  network: NetworkCounts;
  /** Paired mode: requests to the current alone (the candidate had no counterpart). */
  alone: number;
  candidate?: CandidateRecord;
  /** Each request's status, aligned with `micros` (0: no answer): Artillery's http.codes and http.response_time are made of them. */
  statuses?: number[];
  /**
   * The requests that failed as Artillery counts a failed virtual user, by code: no answer by its
   * error's code (ETIMEDOUT, ECONNREFUSED, ...), an answer not of the status expected `console.unexpected`,
   * one that was the network's `console.<kind>` (core/transport-rule.ts).
   */
  errors?: Record<string, number>;
}

export interface CheckRecord {
  level: CheckLevel;
  /** The endpoint whose answer it checked. */
  endpoint: string;
  passes: number;
  fails: number;
}

/** When one runner's arrivals started: the first and last (epoch ms), their number, and counts per bin of `binMs` (key: floor(ms / binMs)). */
export interface ArrivalTimes {
  first: number;
  last: number;
  n: number;
  binMs: number;
  bins: Record<string, number>;
}

/** Arrival times are kept per bin of this many ms: fine enough to judge a schedule per 10 s, small in a record. */
export const ARRIVAL_BIN_MS = 250;

/** The times of one arrival that began at `at` (epoch ms). */
export const oneArrival = (at: number): ArrivalTimes => ({
  first: at,
  last: at,
  n: 1,
  binMs: ARRIVAL_BIN_MS,
  bins: { [String(Math.floor(at / ARRIVAL_BIN_MS))]: 1 },
});

function addArrivals(into: ArrivalTimes, part: ArrivalTimes): void {
  into.first = Math.min(into.first, part.first);
  into.last = Math.max(into.last, part.last);
  into.n += part.n;
  for (const [k, n] of Object.entries(part.bins)) into.bins[k] = (into.bins[k] ?? 0) + n;
}

/** What some part of a run recorded. */
export interface Records {
  endpoints: Record<string, EndpointRecord>;
  checks: Record<string, CheckRecord>;
  /** The profile's own counts (`paging_pages_walked`, `load_paired_reqs`, ...). */
  counters: Record<string, number>;
  /** When the load recorded here began and ended (epoch ms): the run's duration is the merged span. */
  span?: [number, number];
  /** What was written to each side's target (a paired run writes to both). */
  writes?: Partial<Record<Side, LoadWrites>>;
  /** When the arrivals began, per runner ("1" when there is one): the delivery's schedule is judged on them. */
  arrivals?: Record<string, ArrivalTimes>;
}

export const newRecords = (): Records => ({ endpoints: {}, checks: {}, counters: {} });
let current: Records = newRecords();

export const newEndpoint = (): EndpointRecord => ({ micros: [], at: [], expectedMicros: [], unexpected: 0, looked: 0, network: {}, alone: 0 });
export const newCandidate = (): CandidateRecord => ({ answers: 0, unexpected: 0, network: {}, pairCurrent: [], pairCandidate: [], mismatched: 0, alone: 0 });

/** The record of `name` in `records`, made when it has none. */
export function endpointOf(name: string, records: Records = current): EndpointRecord {
  let e = records.endpoints[name];
  if (!e) {
    e = newEndpoint();
    records.endpoints[name] = e;
  }
  return e;
}

export function candidateOf(name: string, records: Records = current): CandidateRecord {
  const e = endpointOf(name, records);
  e.candidate ??= newCandidate();
  return e.candidate;
}

/** Counts a request of `endpoint` that failed with `code` (EndpointRecord.errors). */
export function failed(endpoint: string, code: string): void {
  const e = endpointOf(endpoint);
  e.errors ??= {};
  e.errors[code] = (e.errors[code] ?? 0) + 1;
}

/** Adds `n` to the profile's counter `name`. */
export function count(name: string, n = 1): void {
  current.counters[name] = (current.counters[name] ?? 0) + n;
}

/** Runs each named test on `value`, an answer of `endpoint`; records each under its name with `level`; true when all held. */
export function check<T>(value: T, tests: Record<string, (v: T) => boolean>, endpoint: string, level: CheckLevel): boolean {
  let all = true;
  for (const [name, test] of Object.entries(tests)) {
    let ok = false;
    try {
      ok = Boolean(test(value));
    } catch {
      ok = false;
    }
    let c = current.checks[name];
    if (!c) {
      c = { level, endpoint, passes: 0, fails: 0 };
      current.checks[name] = c;
    }
    if (ok) c.passes++;
    else c.fails++;
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
  current = newRecords();
  return r;
}

const append = (into: number[], part: number[]) => {
  for (const v of part) into.push(v);
};

function addNetwork(into: NetworkCounts, part: NetworkCounts): void {
  for (const [kind, n] of Object.entries(part) as [TransportKind, number][]) into[kind] = (into[kind] ?? 0) + n;
}

function addCandidate(into: CandidateRecord, part: CandidateRecord): void {
  into.answers += part.answers;
  into.unexpected += part.unexpected;
  addNetwork(into.network, part.network);
  append(into.pairCurrent, part.pairCurrent);
  append(into.pairCandidate, part.pairCandidate);
  into.mismatched += part.mismatched;
  into.alone += part.alone;
}

/** Adds `part` into `into` (counts add, durations are all kept). */
export function mergeRecords(into: Records, part: Records): Records {
  for (const [name, e] of Object.entries(part.endpoints)) {
    const have = endpointOf(name, into);
    append(have.micros, e.micros);
    append(have.at, e.at);
    append(have.expectedMicros, e.expectedMicros);
    have.unexpected += e.unexpected;
    have.looked += e.looked;
    addNetwork(have.network, e.network);
    have.alone += e.alone;
    if (e.statuses) {
      have.statuses ??= [];
      append(have.statuses, e.statuses);
    }
    if (e.errors) {
      have.errors ??= {};
      const errors = have.errors;
      for (const [code, n] of Object.entries(e.errors)) errors[code] = (errors[code] ?? 0) + n;
    }
    if (e.candidate) addCandidate(candidateOf(name, into), e.candidate);
  }
  for (const [name, c] of Object.entries(part.checks)) {
    const have = into.checks[name] ?? { level: c.level, endpoint: c.endpoint, passes: 0, fails: 0 };
    have.passes += c.passes;
    have.fails += c.fails;
    into.checks[name] = have;
  }
  for (const [name, n] of Object.entries(part.counters)) into.counters[name] = (into.counters[name] ?? 0) + n;
  for (const [side, w] of Object.entries(part.writes ?? {}) as [Side, LoadWrites][]) addWrites(sideWrites(into, side), w);
  for (const [runner, t] of Object.entries(part.arrivals ?? {})) {
    into.arrivals ??= {};
    const have = into.arrivals[runner];
    if (have) addArrivals(have, t);
    else into.arrivals[runner] = { ...t, bins: { ...t.bins } };
  }
  if (part.span) into.span = into.span ? [Math.min(into.span[0], part.span[0]), Math.max(into.span[1], part.span[1])] : [...part.span];
  return into;
}

/** Stops the run with `reason`: a target that cannot be tested (exit 3, the reason in one line). */
export class AbortRun extends Error {}

export function abort(reason: string): never {
  throw new AbortRun(reason);
}
