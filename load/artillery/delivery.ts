// Whether the load that was asked for was delivered, from Artillery's own report of each runner: a
// run that dropped arrivals at its VU limit (vusers.skipped) or started fewer than it asked for
// measured another load than its profile, and its latencies are not judged (exit 3, saying how much
// fell short). A generator whose event loop was busy nearly all the time is named with its figure:
// it fires arrivals late, and the wait for its loop counts in every duration it times.
import type { LoadDelivery } from '../../core/formats.ts';
import { GENERATOR_BUSY } from './metrics.ts';
import type { ArtilleryPhase } from './script.ts';

/** More than this share of the asked arrivals dropped at the VU limit: not carried out. */
export const DROP_TOLERANCE = 0.01;
/** Fewer than this share of the asked arrivals started (dropped, or never fired by a late generator): not carried out. */
export const START_TOLERANCE = 0.05;
/** A worker's event loop busy this share of a period (its median second) or more: the generator saturated. */
export const SATURATED_BUSY_PCT = 90;

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
  intermediate?: { summaries?: Record<string, { p50?: number; max?: number }> }[];
}

export interface RunnerDelivery {
  /** 1-based. */
  runner: number;
  report: ArtilleryReport;
  phases: Pick<ArtilleryPhase, 'duration' | 'arrivalRate' | 'rampTo'>[];
  /** CPU seconds the runner's process used (user + system), where the platform says. */
  cpuSeconds?: number;
}

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

export function judgeDelivery(runners: RunnerDelivery[], requests: number): LoadDelivery {
  let asked = 0;
  let started = 0;
  let dropped = 0;
  const generators: LoadDelivery['generators'] = [];
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
  }
  const cpu = generators.reduce((s, g) => s + (g.cpuSeconds ?? 0), 0);
  const shortfall = asked > 0 ? Math.max(0, (asked - started) / asked) : 0;
  const dropShare = asked > 0 ? dropped / asked : 0;
  const ok = dropShare <= DROP_TOLERANCE && shortfall <= START_TOLERANCE;
  const saturated = generators.filter((g) => g.saturated);
  const named = saturated.map((g) => `${runners.length > 1 ? `runner ${g.runner}'s` : 'the'} generator's event loop was busy ${g.busyPct}% of a period`);
  let note: string;
  if (ok) note = `${started} of ${asked} arrivals started${dropped ? `, ${dropped} dropped at the VU limit (within ${pct(DROP_TOLERANCE)})` : ''}`;
  else {
    const why = [dropShare > DROP_TOLERANCE ? `${dropped} dropped at the VU limit (vusers.skipped, over ${pct(DROP_TOLERANCE)})` : ''];
    const unfired = asked - started - dropped;
    if (shortfall > START_TOLERANCE && unfired > 0) why.push(`${unfired} never fired by the generator`);
    note = `the load fell short: ${started} of ${asked} arrivals started (${pct(shortfall)} short, tolerance ${pct(START_TOLERANCE)}): ${why.filter(Boolean).join(', ') || `${dropped} dropped`}`;
  }
  if (named.length) note += `; ${named.join('; ')}`;
  return {
    asked,
    started,
    dropped,
    shortfall: Math.round(shortfall * 10000) / 10000,
    ok,
    note,
    generators,
    ...(cpu > 0 && requests > 0 ? { cpuMsPer1000Requests: Math.round((cpu * 1000 * 1000) / requests) } : {}),
  };
}
