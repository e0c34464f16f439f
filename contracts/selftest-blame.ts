// The blame table of `conformance:selftest --blame` (npm run selftest:blame): for each injected fault,
// the clauses its run failed (status fail in conformance.json), whether the fault's own clause is one of
// them, and the clauses a stopped test did not reach. Each fault changes one behaviour, named by one
// clause: a run that fails many more than that blames collateral, not the cause (docs/blame.md).

import { median } from '../core/quantile.ts';

export interface BlameRow {
  fault: string;
  /** The clause the fault names (reference/faults.ts). */
  clause: string;
  caught: boolean;
  failed: string[];
  unreached: string[];
}

export interface BlameFigures {
  faults: number;
  median: number;
  max: number;
  /** Faults whose run failed exactly one clause, at most three, and those whose own clause is among the failed. */
  exactlyOne: number;
  atMostThree: number;
  ownClauseFailed: number;
}

export function blameFigures(rows: BlameRow[]): BlameFigures {
  const counts = rows.map((r) => r.failed.length);
  return {
    faults: rows.length,
    // The median of no fault is 0: a run that measured none.
    median: counts.length ? median(counts) : 0,
    max: counts.length ? Math.max(...counts) : 0,
    exactlyOne: counts.filter((n) => n === 1).length,
    atMostThree: counts.filter((n) => n <= 3).length,
    ownClauseFailed: rows.filter((r) => r.failed.includes(r.clause)).length,
  };
}

/** The table as printed: one line per fault, then the figures. */
export function blameTable(rows: BlameRow[]): string {
  const width = Math.max(5, ...rows.map((r) => r.fault.length));
  const cwidth = Math.max(6, ...rows.map((r) => r.clause.length));
  const out = [`${'fault'.padEnd(width)}  ${'clause'.padEnd(cwidth)}  failed  own  unreached  other clauses failed`];
  for (const r of rows) {
    const others = r.failed.filter((c) => c !== r.clause);
    const shown = others.length > 4 ? `${others.slice(0, 4).join(', ')} and ${others.length - 4} more` : others.join(', ');
    out.push(
      `${r.fault.padEnd(width)}  ${r.clause.padEnd(cwidth)}  ${String(r.failed.length).padStart(6)}  ${(r.failed.includes(r.clause) ? 'yes' : 'no').padEnd(3)}  ${String(r.unreached.length).padStart(9)}  ${r.caught ? shown : 'NOT CAUGHT'}`,
    );
  }
  const f = blameFigures(rows);
  out.push(
    '',
    `blame: ${f.faults} faults; clauses failed per fault: median ${f.median}, max ${f.max}; exactly 1: ${f.exactlyOne}, at most 3: ${f.atMostThree}; the fault's own clause failed: ${f.ownClauseFailed} of ${f.faults}`,
  );
  return out.join('\n');
}
