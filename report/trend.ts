// The trends of the run history (core/history.ts): each endpoint's p50 run after run and the clause
// pass rate, each with its change-points (./changepoints.ts), so that a slow drift over nights is
// reported with the run where it started. Only like runs are compared: the same target and manifest,
// and for latency the same load profile; a --grep or stopped run has no pass rate (it ran a part).
import type { HistoryRun } from '../core/history.ts';
import { coverageRate, passRate } from '../core/history.ts';
import { changePoints, type ChangePoint } from './changepoints.ts';

/** How many of the last runs the trends look at: three months of nights. */
export const TREND_WINDOW = 90;
/** Latency shifts below 10% are not reported (the load compare's default smallest effect, docs/load.md). */
export const LATENCY_MIN_EFFECT = 0.1;

export interface TrendPoint {
  startedAt: string;
  version: string | null;
  value: number;
}

export interface TrendChange {
  /** The first run at the new level. */
  at: TrendPoint;
  index: number;
  before: number;
  after: number;
  /** after / before for latency; after - before (a share) for the pass rate. */
  size: number;
  p: number;
}

export interface Trend {
  key: string;
  label: string;
  kind: 'latency' | 'pass-rate' | 'coverage';
  /** Latency divided by the run's calibration scale (the machine's speed against the baseline's). */
  calibrated: boolean;
  points: TrendPoint[];
  changes: TrendChange[];
}

export interface Trends {
  target: string | null;
  profile: string | null;
  runs: number;
  passRate: Trend;
  /** The share of stated clauses in scope the run checked: a drop is a manifest running out or a target refusing. */
  coverage: Trend;
  latency: Trend[];
}

function changesOf(points: TrendPoint[], found: ChangePoint[], kind: Trend['kind']): TrendChange[] {
  return found.map((c) => ({
    at: points[c.index],
    index: c.index,
    // Latency is searched on its logarithm (a slowdown is a ratio): back to ms, geometric means.
    before: kind === 'latency' ? Math.exp(c.before) : c.before,
    after: kind === 'latency' ? Math.exp(c.after) : c.after,
    size: kind === 'latency' ? Math.exp(c.size) : c.size,
    p: c.p,
  }));
}

/**
 * The trends of the runs like the last one (or like `like`): same target; latency of the profile of
 * the last run that ran load (a --skip-load run has no latency of its own to compare).
 */
export function trendsOf(all: HistoryRun[], like?: { target: string; profile: string | null }): Trends {
  const target = like?.target ?? all.at(-1)?.target;
  const runs = target === undefined ? [] : all.filter((r) => r.target === target).slice(-TREND_WINDOW);
  const profile = like ? like.profile : (runs.filter((r) => r.profile !== null).at(-1)?.profile ?? null);
  const point = (r: HistoryRun, value: number): TrendPoint => ({ startedAt: r.startedAt, version: r.version, value });

  const rates = runs
    .filter((r) => !r.partial)
    .flatMap((r) => {
      const rate = passRate(r.clauses);
      return rate === null ? [] : [point(r, rate)];
    });
  const passRateTrend: Trend = {
    key: 'pass-rate',
    label: 'clause pass rate',
    kind: 'pass-rate',
    calibrated: false,
    points: rates,
    changes: changesOf(rates, changePoints(rates.map((p) => p.value)), 'pass-rate'),
  };

  const covered = runs
    .filter((r) => !r.partial)
    .flatMap((r) => {
      const rate = coverageRate(r);
      return rate === null ? [] : [point(r, rate)];
    });
  const coverageTrend: Trend = {
    key: 'coverage',
    label: 'stated clauses checked',
    kind: 'coverage',
    calibrated: false,
    points: covered,
    changes: changesOf(covered, changePoints(covered.map((p) => p.value)), 'coverage'),
  };

  const byEndpoint = new Map<string, { r: HistoryRun; e: HistoryRun['endpoints'][number] }[]>();
  for (const r of runs.filter((x) => x.profile !== null && x.profile === profile))
    for (const e of r.endpoints) {
      const key = `${e.script} ${e.endpoint}`;
      byEndpoint.set(key, [...(byEndpoint.get(key) ?? []), { r, e }]);
    }
  const latency = [...byEndpoint.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, rows]): Trend => {
      // The calibration request is the ruler itself: divided by its own scale it would be flat.
      const calibrated = !key.endsWith(' calibration') && rows.every(({ e }) => e.scale !== null && e.scale > 0);
      const points = rows.filter(({ e }) => e.p50 > 0).map(({ r, e }) => point(r, calibrated ? e.p50 / e.scale! : e.p50));
      return {
        key,
        label: `${key} p50`,
        kind: 'latency',
        calibrated,
        points,
        changes: changesOf(
          points,
          changePoints(
            points.map((p) => Math.log(p.value)),
            { minEffect: Math.log(1 + LATENCY_MIN_EFFECT) },
          ),
          'latency',
        ),
      };
    });
  return { target: target ?? null, profile, runs: runs.length, passRate: passRateTrend, coverage: coverageTrend, latency };
}

/** One line for a change: what moved, by how much, from which run. */
export function describeChange(t: Trend, c: TrendChange): string {
  const when = `${c.at.startedAt.slice(0, 16).replace('T', ' ')} UTC${c.at.version ? `, ${c.at.version}` : ''}`;
  if (t.kind === 'latency')
    return `${t.label}${t.calibrated ? ' (calibrated)' : ''} ${c.size.toFixed(2)}x (${c.before.toFixed(2)} to ${c.after.toFixed(2)} ms) from the run of ${when}`;
  const pts = (x: number) => `${(x * 100).toFixed(1)}%`;
  return `${t.label} ${c.size > 0 ? '+' : ''}${(c.size * 100).toFixed(1)} points (${pts(c.before)} to ${pts(c.after)}) from the run of ${when}`;
}
