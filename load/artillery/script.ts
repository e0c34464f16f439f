// The Artillery test script of a profile run: the profile's scenarios as one arrival process
// (Artillery's phases: the sum of the scenarios' rates at each moment; load/artillery/processor.ts
// shares the arrivals out by rate), one scenario whose single step is the processor's `arrive`.
// With several runners each gets an equal integer share of every rate, as Artillery shares a phase
// among its own workers. The key is not in it: the workers read it from their environment.
import type { ProfileScenario } from '../lib/profiles.ts';

export interface ArtilleryPhase {
  name: string;
  duration: number;
  arrivalRate: number;
  rampTo?: number;
  maxVusers: number;
}

export interface ArtilleryScript {
  config: {
    target: string;
    phases: ArtilleryPhase[];
    processor: string;
    http: { timeout: number };
    plugins?: Record<string, Record<string, unknown> | Record<string, unknown>[]>;
    ensure?: Record<string, unknown>;
    apdex?: { threshold: number };
  };
  scenarios: { name: string; flow: { function: string }[] }[];
}

/** `total` shared among `n` as integers that differ by at most one; share `i` (0-based). */
export function share(total: number, n: number, i: number): number {
  const base = Math.floor(total / n);
  return base + (i < total - base * n ? 1 : 0);
}

/** The moments at which some scenario's rate changes course: phase boundaries. */
function boundaries(scenarios: ProfileScenario[]): number[] {
  const b = new Set<number>([0]);
  for (const s of scenarios) {
    if (s.kind === 'constant') b.add(s.seconds);
    if (s.kind === 'ramp') for (let k = 1; k <= 4; k++) b.add(k * s.stepSeconds);
  }
  return [...b].sort((x, y) => x - y);
}

function totalRate(scenarios: ProfileScenario[], t: number, end: boolean): number {
  let sum = 0;
  for (const s of scenarios) {
    if (s.kind === 'constant' && (end ? t <= s.seconds : t < s.seconds)) sum += s.rate;
    if (s.kind === 'ramp') {
      const k = end ? Math.ceil(t / s.stepSeconds) - 1 : Math.floor(t / s.stepSeconds);
      if (k < 0 || k >= 4) continue;
      const from = [1, 1, 2, 4][k];
      const to = [1, 2, 4, 8][k];
      sum += s.rate * (from + ((to - from) * (t - k * s.stepSeconds)) / s.stepSeconds);
    }
  }
  return sum;
}

/**
 * The phases of runner `runner` (0-based) of `runners`; a sequence scenario adds one arrival at the start.
 * A constant rate is given as a ramp to itself: Artillery times a phase of arrivalRate alone with a
 * timer that spins (nanotimer, through the arrivals package: the last 25 ms of every gap between two
 * arrivals, all of it at 40 a second or more), which took up to a core of the generator's and so of the
 * machine the servers share; a ramp's arrivals are timed by setTimeout (driftless), at the same integer
 * rate each second. A 1-second phase stays as it is: Artillery's ramp of one second has no tick.
 */
export function phasesOf(scenarios: Record<string, ProfileScenario>, runners = 1, runner = 0): ArtilleryPhase[] {
  const list = Object.values(scenarios);
  const times = boundaries(list);
  const maxVUs = list.reduce((n, s) => n + (s.kind === 'sequence' ? 1 : s.maxVUs), 0);
  const phases: ArtilleryPhase[] = [];
  for (let k = 0; k + 1 < times.length; k++) {
    const [from, to] = [times[k], times[k + 1]];
    const start = Math.round(totalRate(list, from, false));
    const end = Math.round(totalRate(list, to, true));
    const phase: ArtilleryPhase = {
      name: `${from}-${to} s`,
      duration: to - from,
      arrivalRate: share(start, runners, runner),
      maxVusers: Math.max(1, share(maxVUs, runners, runner)),
    };
    if (end !== start || phase.duration > 1) phase.rampTo = share(end, runners, runner);
    phases.push(phase);
  }
  return phases;
}

/**
 * Phases of the whole run (a shape given as data) shared among runners as the profile's are. A phase
 * of arrivalRate alone is given to Artillery as a ramp to itself, as the profile's own constant rates
 * are (phasesOf): the same arrivals each second, timed by sleeping timers instead of a spinning one,
 * so that a user's phase costs the generator what the profiles' phases cost, whatever its form.
 */
export function sharePhases(phases: ArtilleryPhase[], runners = 1, runner = 0): ArtilleryPhase[] {
  return phases.map((p) => {
    const rampTo = p.rampTo ?? (p.duration > 1 && p.arrivalRate > 0 ? p.arrivalRate : undefined);
    return {
      ...p,
      arrivalRate: share(p.arrivalRate, runners, runner),
      ...(rampTo === undefined ? {} : { rampTo: share(rampTo, runners, runner) }),
      maxVusers: Math.max(1, share(p.maxVusers, runners, runner)),
    };
  });
}

export function artilleryScript(o: {
  scenarios: Record<string, ProfileScenario>;
  target: string;
  processor: string;
  requestTimeoutMs: number;
  runners?: number;
  runner?: number;
  /** The run's shape instead of the profile's (its scenarios then give only the mix). */
  phases?: ArtilleryPhase[];
  plugins?: Record<string, Record<string, unknown> | Record<string, unknown>[]>;
  /** Limits for Artillery's ensure plugin (loaded with them). */
  ensure?: Record<string, unknown>;
  /** Artillery's apdex plugin's threshold (loaded with it). */
  apdex?: { threshold: number };
}): ArtilleryScript {
  return {
    config: {
      target: o.target.replace(/\/\/[^@/]*@/, '//'),
      phases: o.phases ? sharePhases(o.phases, o.runners, o.runner) : phasesOf(o.scenarios, o.runners, o.runner),
      processor: o.processor,
      http: { timeout: Math.ceil(o.requestTimeoutMs / 1000) },
      ...(o.plugins || o.ensure || o.apdex ? { plugins: { ...(o.ensure ? { ensure: {} } : {}), ...(o.apdex ? { apdex: {} } : {}), ...o.plugins } } : {}),
      ...(o.ensure ? { ensure: o.ensure } : {}),
      ...(o.apdex ? { apdex: o.apdex } : {}),
    },
    scenarios: [{ name: 'arrive', flow: [{ function: 'arrive' }] }],
  };
}
