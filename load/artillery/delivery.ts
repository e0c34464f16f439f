// Whether the load that was asked for was delivered, judged against the schedule the phases ask, per
// runner: arrivals started by each 10 s of the phases against what the phases asked by then, and the
// span of the arrivals against the phases' duration. A generator that falls behind does not drop its
// arrivals: Artillery fires them late and stretches the phase, so counting arrivals at the end says
// nothing; a run started later than its schedule allows, or whose arrivals were dropped at its VU limit
// (vusers.skipped), measured another load than the one asked, and its latencies are not judged (exit
// 3, naming the period, the asked and started rates and the generator's busy share). Never against a
// baseline or a limit: only the run's own phases. A generator whose event loop was busy nearly all the
// time is named with its figure: the wait for its loop counts in every duration it times.
import type { LoadDelivery } from '../../core/formats.ts';
import type { ArrivalTimes } from '../lib/runtime.ts';
import { GENERATOR_BUSY } from './metrics.ts';

export type { ArrivalTimes };
import type { ArtilleryPhase } from './script.ts';

/** More than this share of the asked arrivals dropped at the VU limit: not carried out. */
export const DROP_TOLERANCE = 0.01;
/** Fewer than this share of the asked arrivals started (dropped, or never fired by a late generator): not carried out. */
export const START_TOLERANCE = 0.05;
/** A worker's event loop busy this share of a period (its median second) or more: the generator saturated. */
export const SATURATED_BUSY_PCT = 90;
/**
 * Behind the schedule: at some point, fewer arrivals started than this share short of what the phases
 * asked by then (past SCHEDULE_SLACK_SECONDS of the asked rate and two arrivals), or the arrivals
 * spanned this much more than the phases and a second.
 */
export const SCHEDULE_TOLERANCE = 0.1;
/**
 * The arrivals of this many seconds at the asked rate are slack, besides the tolerance: the arrival times
 * are kept in bins of 250 ms, and Artillery's workers each start their share of the phases a few
 * milliseconds apart. Not a whole second: at 200 arrivals a second over 5 s that alone would be 20%.
 */
export const SCHEDULE_SLACK_SECONDS = 0.25;
/** The schedule is judged at every this many seconds of the phases (Artillery's period) and at their end. */
export const SCHEDULE_STEP_SECONDS = 10;

type Rates = Pick<ArtilleryPhase, 'duration' | 'arrivalRate' | 'rampTo'>;

/** The phases' total length, seconds. */
export const phasesSeconds = (phases: Rates[]) => phases.reduce((s, p) => s + p.duration, 0);

/** The asked rate `t` seconds into the phases (a ramp's straight line), and the arrivals asked from 0 to `t`. */
export function scheduleAt(phases: Rates[], t: number): { rate: number; asked: number } {
  let start = 0;
  let asked = 0;
  for (const p of phases) {
    const to = p.rampTo ?? p.arrivalRate;
    const rateIn = (x: number) => p.arrivalRate + ((to - p.arrivalRate) * x) / p.duration;
    if (t < start + p.duration) {
      const x = Math.max(0, t - start);
      return { rate: rateIn(x), asked: asked + ((p.arrivalRate + rateIn(x)) / 2) * x };
    }
    asked += ((p.arrivalRate + to) / 2) * p.duration;
    start += p.duration;
  }
  return { rate: 0, asked };
}

/** Arrivals of `times` that started before `at` (epoch ms); a bin `at` falls in counts for its part before it. */
export function startedBefore(times: ArrivalTimes, at: number): number {
  let n = 0;
  for (const [key, count] of Object.entries(times.bins)) {
    const from = Number(key) * times.binMs;
    if (from + times.binMs <= at) n += count;
    else if (from < at) n += (count * (at - from)) / times.binMs;
  }
  return n;
}

/** One period of the schedule as delivered: seconds into the phases, arrivals asked and started in it. */
export interface SchedulePeriod {
  from: number;
  to: number;
  asked: number;
  started: number;
}

export interface ScheduleVerdict {
  ok: boolean;
  periods: SchedulePeriod[];
  /** Seconds from the first arrival to the last, against the phases' seconds. */
  tookSeconds: number;
  phasesSeconds: number;
  /** Why the schedule was not kept (empty when it was). */
  why: string;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * One runner's arrivals against its phases' schedule, from its first arrival: at every 10 s of the
 * phases and at their end, the arrivals started by then against those asked by then; and the span of
 * the arrivals against the phases' length. Cumulative, so that an arrival fired a little late in one
 * period and counted in the next is not a shortfall, while a generator steadily behind is.
 */
export function judgeSchedule(phases: Rates[], times: ArrivalTimes | undefined): ScheduleVerdict {
  const total = phasesSeconds(phases);
  if (!times || times.n === 0) return { ok: true, periods: [], tookSeconds: 0, phasesSeconds: total, why: '' };
  const periods: SchedulePeriod[] = [];
  let why = '';
  let before = { asked: 0, started: 0 };
  for (let to = Math.min(SCHEDULE_STEP_SECONDS, total), from = 0; from < total; from = to, to = Math.min(to + SCHEDULE_STEP_SECONDS, total)) {
    const at = scheduleAt(phases, to);
    const started = startedBefore(times, times.first + to * 1000);
    const rateThen = Math.max(at.rate, scheduleAt(phases, from).rate);
    periods.push({ from, to, asked: Math.round(at.asked - before.asked), started: Math.round(started - before.started) });
    if (!why && started < at.asked * (1 - SCHEDULE_TOLERANCE) - rateThen * SCHEDULE_SLACK_SECONDS - 2) {
      const p = periods[periods.length - 1];
      const secs = to - from;
      why =
        `by ${round1(to)} s of the phases ${Math.round(started)} of ${Math.round(at.asked)} arrivals had started ` +
        `(${pct(1 - started / at.asked)} behind, tolerance ${pct(SCHEDULE_TOLERANCE)}): in ${round1(from)}-${round1(to)} s ` +
        `asked ${round1(p.asked / secs)}/s, started ${round1(p.started / secs)}/s`;
    }
    before = { asked: at.asked, started };
  }
  // The last arrival of a phase fires within its last second: a span longer than the phases by more than the tolerance is a stretched phase.
  const took = (times.last - times.first) / 1000;
  const stretched = took > total * (1 + SCHEDULE_TOLERANCE) + 1;
  if (stretched) why = [why, `the phases' ${round1(total)} s took ${round1(took)} s (first arrival to last)`].filter(Boolean).join('; ');
  return { ok: !why, periods, tookSeconds: round1(took), phasesSeconds: total, why };
}

/**
 * Arrival times read from Artillery's periods (its intermediate reports: vusers.created per 10 s of
 * the clock), where the workers' own records did not travel (a cloud run): coarser, judged alike.
 */
export function timesFromReport(report: ArtilleryReport): ArrivalTimes | undefined {
  const periods = (report.intermediate ?? []).filter((p) => (p.counters?.['vusers.created'] ?? 0) > 0 && p.period !== undefined);
  if (periods.length === 0) return undefined;
  const binMs = 10_000;
  const bins: Record<string, number> = {};
  let n = 0;
  for (const p of periods) {
    const created = p.counters?.['vusers.created'] ?? 0;
    bins[String(Math.floor(Number(p.period) / binMs))] = created;
    n += created;
  }
  const first = periods[0].firstCounterAt ?? Number(periods[0].period);
  const lastPeriod = periods[periods.length - 1];
  return { first, last: lastPeriod.lastCounterAt ?? Number(lastPeriod.period) + binMs, n, binMs, bins };
}

/** Arrivals Artillery's phases ask for: rate x duration, a ramp's mean rate x its duration. */
export function plannedArrivals(phases: Pick<ArtilleryPhase, 'duration' | 'arrivalRate' | 'rampTo'>[]): number {
  let n = 0;
  for (const p of phases) n += p.rampTo === undefined ? p.arrivalRate * p.duration : ((p.arrivalRate + p.rampTo) / 2) * p.duration;
  return Math.round(n);
}

/** CPU seconds used between `from` and `to` (epoch ms), from samples [when, CPU seconds so far] in time order. */
export function cpuBetween(samples: [number, number][], from: number, to: number): number | undefined {
  const at = (t: number) => {
    let before: [number, number] | undefined;
    for (const s of samples) {
      if (s[0] >= t) return before ? before[1] + ((s[1] - before[1]) * (t - before[0])) / (s[0] - before[0] || 1) : s[1];
      before = s;
    }
    return before?.[1];
  };
  const a = at(from);
  const b = at(to);
  return a === undefined || b === undefined ? undefined : Math.max(0, b - a);
}

/** What this module reads of an Artillery JSON report (`--output`). */
export interface ArtilleryReport {
  aggregate?: { counters?: Record<string, number> };
  intermediate?: {
    period?: string | number;
    firstCounterAt?: number;
    lastCounterAt?: number;
    counters?: Record<string, number>;
    summaries?: Record<string, { p50?: number; max?: number }>;
  }[];
}

export interface RunnerDelivery {
  /** 1-based. */
  runner: number;
  report: ArtilleryReport;
  phases: Pick<ArtilleryPhase, 'duration' | 'arrivalRate' | 'rampTo'>[];
  /** CPU seconds the runner's process used (user + system), where the platform says. */
  cpuSeconds?: number;
  /** When its arrivals started, from its workers' records; absent: read from its report's periods. */
  times?: ArrivalTimes;
}

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

export function judgeDelivery(runners: RunnerDelivery[], requests: number): LoadDelivery {
  let asked = 0;
  let started = 0;
  let dropped = 0;
  const generators: LoadDelivery['generators'] = [];
  const behind: string[] = [];
  const schedule: NonNullable<LoadDelivery['schedule']> = [];
  for (const r of runners) {
    asked += plannedArrivals(r.phases);
    const c = r.report.aggregate?.counters ?? {};
    started += c['vusers.created'] ?? 0;
    dropped += c['vusers.skipped'] ?? 0;
    // The busiest period's median second: one slow second is a hiccup, half a period is saturation.
    const periods = (r.report.intermediate ?? []).map((p) => p.summaries?.[GENERATOR_BUSY]?.p50).filter((x): x is number => x !== undefined);
    // A sketch of 1% accuracy can read a little over 100%.
    const busy = periods.length ? Math.min(100, Math.max(...periods)) : undefined;
    generators.push({
      runner: r.runner,
      ...(busy === undefined ? {} : { busyPct: busy, saturated: busy >= SATURATED_BUSY_PCT }),
      ...(r.cpuSeconds === undefined ? {} : { cpuSeconds: Math.round(r.cpuSeconds * 100) / 100 }),
    });
    const kept = judgeSchedule(r.phases, r.times ?? timesFromReport(r.report));
    schedule.push({ runner: r.runner, tookSeconds: kept.tookSeconds, phasesSeconds: kept.phasesSeconds, periods: kept.periods });
    if (!kept.ok) {
      const who = runners.length > 1 ? `runner ${r.runner}: ` : '';
      behind.push(`${who}${kept.why}${busy === undefined ? '' : `; its generator's event loop busy ${busy}% (busiest period's median second)`}`);
    }
  }
  const cpu = generators.reduce((s, g) => s + (g.cpuSeconds ?? 0), 0);
  const shortfall = asked > 0 ? Math.max(0, (asked - started) / asked) : 0;
  const dropShare = asked > 0 ? dropped / asked : 0;
  const ok = dropShare <= DROP_TOLERANCE && shortfall <= START_TOLERANCE && behind.length === 0;
  const saturated = generators.filter((g) => g.saturated);
  const named = saturated.map((g) => `${runners.length > 1 ? `runner ${g.runner}'s` : 'the'} generator's event loop was busy ${g.busyPct}% of a period`);
  let note: string;
  if (ok) note = `${started} of ${asked} arrivals started${dropped ? `, ${dropped} dropped at the VU limit (within ${pct(DROP_TOLERANCE)})` : ''}, on schedule`;
  else if (behind.length && dropShare <= DROP_TOLERANCE && shortfall <= START_TOLERANCE)
    note = `the generator fell behind the asked schedule: ${behind.join('; ')}`;
  else {
    const why = [dropShare > DROP_TOLERANCE ? `${dropped} dropped at the VU limit (vusers.skipped, over ${pct(DROP_TOLERANCE)})` : ''];
    const unfired = asked - started - dropped;
    if (shortfall > START_TOLERANCE && unfired > 0) why.push(`${unfired} never fired by the generator`);
    note = `the load fell short: ${started} of ${asked} arrivals started (${pct(shortfall)} short, tolerance ${pct(START_TOLERANCE)}): ${why.filter(Boolean).join(', ') || `${dropped} dropped`}`;
    if (behind.length) note += `; behind the asked schedule: ${behind.join('; ')}`;
  }
  if (named.length && !(behind.length && !ok)) note += `; ${named.join('; ')}`;
  return {
    asked,
    started,
    dropped,
    shortfall: Math.round(shortfall * 10000) / 10000,
    ok,
    note,
    generators,
    schedule,
    ...(cpu > 0 && requests > 0 ? { cpuMsPer1000Requests: Math.round((cpu * 1000 * 1000) / requests) } : {}),
  };
}
