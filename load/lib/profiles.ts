// The three named load shapes: smoke (a few seconds, npm test), baseline (about a minute at a
// constant arrival rate), stress (a ramping arrival rate, to find where latency bends). All are
// bounded in time and in VUs and stop by themselves. A profile's rate, VU bound and length are in its
// shape file only (load/shapes/<script>.<profile>.yml, Artillery's format, which `--config NAME` runs
// as it is): the profile gives the mix of its jobs by weight (ownArrivals), and keeps its other figures
// in a table keyed by profile name (`byProfile`); what both scripts share is in SHARED.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PROFILE, type ProfileName, SECONDS } from './env.ts';
import type { Limit } from './thresholds.ts';

/**
 * A scenario of a profile: `exec` started at `rate` per second for `seconds` (constant), or in four
 * steps of `rate` x1, x2, x4, x8 (ramp), at most `maxVUs` at once; or `iterations` runs of `exec` one
 * after another by a single user (sequence). load/artillery/script.ts makes Artillery's phases of them.
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

/** The calibration request alone (load/lib/calibration.ts): part of every shape file's first rate and VU bound. */
export const RULER: ScenarioRate = { rate: 5, maxVUs: 4 };

/** The shape files, parsed into the processor's bundle when it is built (load/artillery/run.ts), which runs where load/shapes/ is not. */
declare const LOAD_SHAPES_BUNDLED: Record<string, unknown> | undefined;

type ShapeFile = { config?: { phases?: { duration: number; arrivalRate: number; maxVusers?: number }[] } } | null;

/** A profile's own shape, from its file: the first phase's arrival rate and VU bound, the phases' length (or LOAD_SECONDS). */
export function ownShape(script: string, profile: ProfileName = PROFILE): { rate: number; maxVusers: number; seconds: number } {
  const file = `${script}.${profile}.yml`;
  // Read where the sources are: the yaml package, loaded only then, stays out of the bundle (its Node build does not bundle as ES).
  const doc = (
    typeof LOAD_SHAPES_BUNDLED === 'undefined'
      ? createRequire(import.meta.url)('yaml').parse(readFileSync(new URL(`../shapes/${file}`, import.meta.url), 'utf8'))
      : LOAD_SHAPES_BUNDLED[file]
  ) as ShapeFile;
  const phases = doc?.config?.phases;
  if (!phases?.length || phases[0].maxVusers === undefined)
    throw new Error(`load/shapes/${file}: the profile's own shape needs config.phases, the first with its maxVusers`);
  return { rate: phases[0].arrivalRate, maxVusers: phases[0].maxVusers, seconds: SECONDS ?? phases.reduce((n, p) => n + p.duration, 0) };
}

/** `total` shared by `weights`, as integers adding up to it (largest remainders first). */
function shares(total: number, weights: number[]): number[] {
  const sum = weights.reduce((n, w) => n + w, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((n, x) => n + x, 0);
  for (const i of exact.map((_, k) => k).sort((a, b) => exact[b] - out[b] - (exact[a] - out[a]))) if (left-- > 0) out[i]++;
  return out;
}

/**
 * A profile's arrival-rate scenarios at its own shape: the first phase's rate less the ruler's, and its
 * VU bound less the ruler's and one per sequence scenario, shared among `jobs` by weight; the phases'
 * length. Constant, or ramping x1 to x8 for stress, as the shape file's phases say.
 */
export function ownArrivals(
  script: string,
  jobs: Record<string, { exec: string; weight: number }>,
  sequences: number,
): { seconds: number; scenarios: Record<string, ProfileScenario> } {
  const own = ownShape(script);
  const list = Object.entries(jobs);
  const weights = list.reduce((n, [, j]) => n + j.weight, 0);
  const vus = shares(
    own.maxVusers - RULER.maxVUs - sequences,
    list.map(([, j]) => j.weight),
  );
  const scenarios = Object.fromEntries(
    list.map(([name, j], i) => [name, arrival(j.exec, { rate: ((own.rate - RULER.rate) * j.weight) / weights, maxVUs: Math.max(1, vus[i]) }, own.seconds)]),
  );
  return { seconds: own.seconds, scenarios };
}

export interface SharedProfile {
  /** The threshold on the share of passed checks. */
  checks: Limit;
  /** The highest failed-request rate per endpoint. */
  maxEndpointErrorRate: number;
}

/** Every profile's shared figures (the paired verdict reads the error rate of the profile it ran). */
export const SHARED_TABLE: Record<ProfileName, SharedProfile> = {
  smoke: { checks: { stat: 'rate', op: '==', value: 1 }, maxEndpointErrorRate: 0 },
  baseline: { checks: { stat: 'rate', op: '>', value: 0.999 }, maxEndpointErrorRate: 0.001 },
  stress: { checks: { stat: 'rate', op: '>', value: 0.99 }, maxEndpointErrorRate: 0.01 },
};

/** The row of `table` for the profile of this run (LOAD_PROFILE). */
export function byProfile<T>(table: Record<ProfileName, T>): T {
  return table[PROFILE];
}

export const SHARED: SharedProfile = byProfile(SHARED_TABLE);

/**
 * A scenario of `exec` at `shape.rate` iterations/s for `seconds` (LOAD_SECONDS shortens or lengthens it
 * at the same rates: the power benchmark repeats runs many times and may not afford a minute each):
 * constant for smoke and baseline, ramping to x8 for stress (four steps of a quarter of it, min 10 s).
 */
export function arrival(exec: string, shape: ScenarioRate, seconds: number): ProfileScenario {
  const { rate, maxVUs } = shape;
  if (PROFILE === 'stress') return { kind: 'ramp', exec, rate, stepSeconds: Math.max(10, Math.round(seconds / 4)), maxVUs };
  return { kind: 'constant', exec, rate, seconds, maxVUs };
}
