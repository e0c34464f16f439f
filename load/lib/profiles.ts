// The three named load shapes : smoke (a few seconds, npm test), baseline (about a minute at
// a constant arrival rate), stress (a ramping arrival rate, to find where latency bends). All are
// bounded in time and in VUs and stop by themselves.
import { PROFILE } from './env.ts';

export interface Shape { rate: number; seconds: number; maxVUs: number }

/** A scenario at `rate` iterations/s: constant for smoke and baseline, ramping to `rate` x4 for stress. */
export function arrival(exec: string, rate: number, seconds: number, maxVUs: number, startTime = '0s'): Record<string, unknown> {
  if (PROFILE === 'stress') {
    const step = Math.max(10, Math.round(seconds / 4));
    return {
      executor: 'ramping-arrival-rate', exec, startTime, startRate: rate, timeUnit: '1s', preAllocatedVUs: Math.min(maxVUs, 4), maxVUs,
      stages: [1, 2, 4, 8].map((k) => ({ target: rate * k, duration: `${step}s` })),
    };
  }
  return { executor: 'constant-arrival-rate', exec, startTime, rate, timeUnit: '1s', duration: `${seconds}s`, preAllocatedVUs: Math.min(maxVUs, 2), maxVUs };
}

/** Seconds the arrival-rate scenarios run for, per profile (stress: four ramp steps of this / 4, min 10 s). */
export function profileSeconds(smoke: number, baseline: number, stress: number): number {
  return PROFILE === 'smoke' ? smoke : PROFILE === 'baseline' ? baseline : stress;
}

export function pick<T>(smoke: T, baseline: T, stress: T): T {
  return PROFILE === 'smoke' ? smoke : PROFILE === 'baseline' ? baseline : stress;
}
