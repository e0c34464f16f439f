// The three named load shapes: smoke (a few seconds, npm test), baseline (about a minute at a
// constant arrival rate), stress (a ramping arrival rate, to find where latency bends). All are
// bounded in time and in VUs and stop by themselves. Each script keeps its own figures in a table
// keyed by profile name (`byProfile`); what both scripts share is in SHARED.
import { PROFILE, type ProfileName, SECONDS } from './env.ts';
import type { Limit } from './thresholds.ts';

/**
 * A scenario of a profile: `exec` started at `rate` per second for `seconds` (constant), or in four
 * steps of `rate` x1, x2, x4, x8 (ramp), at most `maxVUs` at once; or `iterations` runs of `exec` one
 * after another by a single user (sequence). load/artillery/config.ts makes Artillery's phases of them.
 */
export type ProfileScenario =
  | { kind: 'constant'; exec: string; rate: number; seconds: number; maxVUs: number }
  | { kind: 'ramp'; exec: string; rate: number; stepSeconds: number; maxVUs: number }
  | { kind: 'sequence'; exec: string; iterations: number };

/** An arrival-rate scenario's figures: iterations/s (the first step, for stress) and its VU bound. */
export interface ScenarioRate {
  rate: number;
  maxVUs: number;
}

export interface SharedProfile {
  /** Seconds the arrival-rate scenarios run for (stress: four ramp steps of a quarter of this, min 10 s). */
  seconds: number;
  /** The threshold on the share of passed checks. */
  checks: Limit;
  /** The highest failed-request rate per endpoint. */
  maxEndpointErrorRate: number;
}

/** Every profile's shared figures (the paired verdict reads the error rate of the profile it ran). */
export const SHARED_TABLE: Record<ProfileName, SharedProfile> = {
  smoke: { seconds: 4, checks: { stat: 'rate', op: '==', value: 1 }, maxEndpointErrorRate: 0 },
  baseline: { seconds: 60, checks: { stat: 'rate', op: '>', value: 0.999 }, maxEndpointErrorRate: 0.001 },
  stress: { seconds: 120, checks: { stat: 'rate', op: '>', value: 0.99 }, maxEndpointErrorRate: 0.01 },
};

/** The row of `table` for the profile of this run (LOAD_PROFILE). */
export function byProfile<T>(table: Record<ProfileName, T>): T {
  return table[PROFILE];
}

// LOAD_SECONDS shortens or lengthens the arrival-rate scenarios of a profile at its own rates: the
// power benchmark (harness/bench/power.ts) repeats runs many times and may not afford a minute each.
const row = byProfile(SHARED_TABLE);
export const SHARED: SharedProfile = SECONDS ? { ...row, seconds: SECONDS } : row;

/** A scenario of `exec` at `shape.rate` iterations/s: constant for smoke and baseline, ramping to x8 for stress. */
export function arrival(exec: string, shape: ScenarioRate, seconds = SHARED.seconds): ProfileScenario {
  const { rate, maxVUs } = shape;
  if (PROFILE === 'stress') return { kind: 'ramp', exec, rate, stepSeconds: Math.max(10, Math.round(seconds / 4)), maxVUs };
  return { kind: 'constant', exec, rate, seconds, maxVUs };
}
