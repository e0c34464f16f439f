// The arithmetic of the power benchmark (power.ts): one run judged against the benchmark's own
// baseline by the compare as it is (statistical rule where the counts allow, ratio tolerances
// elsewhere) and by the ratio tolerances alone (the rule before it), then the tally and its table.
import { compareSummary, DEFAULT_TOLERANCE } from '../../load/compare/baseline.ts';
import type { ProfileResult, RunSummary } from '../../core/formats.ts';
import { median } from '../../core/quantile.ts';

/**
 * Where a slowdown was made: in the operation's handler (the reference's slow: fault, which requests
 * refused by the key check do not reach), or in front of its route (a proxy slowing every request on
 * the operation's path, with or without the key, as a gateway rule or a route middleware would).
 */
export type Where = 'handler' | 'route';

/** One condition of the benchmark: a change of `change` percent made `where` (change 0: unchanged). */
export interface Condition {
  change: number;
  where: Where;
}

export interface Judgement {
  /** Percent the operation was slowed by (0: unchanged). */
  change: number;
  where: Where;
  /** The compare with request samples: what `baseline:compare` says today. */
  flaggedNew: boolean;
  /** The same compare with the samples dropped from both sides: the ratio tolerances alone. */
  flaggedOld: boolean;
  /** The endpoints each rule flagged, with their reason's start. */
  newEndpoints: string[];
  oldEndpoints: string[];
  /** The largest calibrated median ratio the statistical rule measured over the endpoints (null: none judged). */
  largestEffect: number | null;
  /** Endpoints judged by the statistical rule. */
  statistical: number;
}

const withoutSamples = (s: RunSummary): RunSummary => {
  const { samples: _dropped, ...rest } = s;
  return rest;
};

const flagged = (p: ProfileResult) => p.endpoints.filter((e) => e.regression).map((e) => e.endpoint);

export function judgeRun(change: number, run: RunSummary, baseline: RunSummary, baselineFile = 'the benchmark baseline', where: Where = 'handler'): Judgement {
  const now = compareSummary(run, baseline, baselineFile, DEFAULT_TOLERANCE);
  const before = compareSummary(withoutSamples(run), withoutSamples(baseline), baselineFile, DEFAULT_TOLERANCE);
  const effects = now.endpoints.filter((e) => e.rule === 'statistical' && e.statistical).map((e) => e.statistical!.effect);
  return {
    change,
    where,
    flaggedNew: now.verdict === 'regression',
    flaggedOld: before.verdict === 'regression',
    newEndpoints: flagged(now),
    oldEndpoints: flagged(before),
    largestEffect: effects.length ? Math.max(...effects) : null,
    statistical: now.endpoints.filter((e) => e.rule === 'statistical').length,
  };
}

export interface Row {
  change: number;
  where: Where;
  runs: number;
  flaggedNew: number;
  flaggedOld: number;
  /** Median over the runs of the largest measured effect. */
  medianEffect: number | null;
}

const asCondition = (c: number | Condition): Condition => (typeof c === 'number' ? { change: c, where: 'handler' } : c);

/** A row per condition (a bare number is a change in the handler); the unchanged runs are one row wherever they were counted. */
export function tallyJudgements(judgements: Judgement[], conditions: (number | Condition)[]): Row[] {
  return conditions.map(asCondition).map(({ change, where }) => {
    const js = judgements.filter((j) => j.change === change && (change === 0 || j.where === where));
    const effects = js.map((j) => j.largestEffect).filter((e): e is number => e !== null);
    const mid = effects.length === 0 ? null : median(effects);
    return {
      change,
      where,
      runs: js.length,
      flaggedNew: js.filter((j) => j.flaggedNew).length,
      flaggedOld: js.filter((j) => j.flaggedOld).length,
      medianEffect: mid,
    };
  });
}

/** The table as Markdown: what the benchmark prints and docs/load.md quotes. */
export function table(rows: Row[], operation: string): string {
  const lines = [
    `| change to ${operation} | runs | flagged by new rule | flagged by old rule | median of the largest effect measured |`,
    '|---|---|---|---|---|',
  ];
  // Where the change was made is said only when the table has both kinds.
  const both = rows.some((r) => r.change > 0 && r.where === 'route');
  for (const r of rows) {
    const place = !both ? '' : r.where === 'route' ? ' in front of its route (requests without the key too)' : ' in its handler';
    const what = r.change === 0 ? 'none (false alarms)' : `+${r.change}%${place}`;
    lines.push(`| ${what} | ${r.runs} | ${r.flaggedNew} | ${r.flaggedOld} | ${r.medianEffect === null ? '-' : `${r.medianEffect.toFixed(2)}x`} |`);
  }
  return lines.join('\n');
}
