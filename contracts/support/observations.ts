// reports/observations.json: what the target did for each open clause ("not shown" in the spec), as
// {clauseId: {value, evidence}}. `value` maps each aspect of the clause to what was seen (one value,
// or {"varies": [...]} when tests saw several); drift is any difference in `value` from a previous run.
import { readObservationsFile, type Drift, type Observation, type Observations } from '../../core/formats.ts';

export type { Drift, Observations } from '../../core/formats.ts';

/** Groups the run's observations by clause and aspect, with one piece of evidence per aspect. */
export function summarize(seen: (Observation & { test: string })[]): Observations {
  const out: Observations = {};
  for (const clause of [...new Set(seen.map((o) => o.clause))].sort()) {
    const mine = seen.filter((o) => o.clause === clause);
    const value: Record<string, unknown> = {};
    const evidence: Observations[string]['evidence'] = [];
    for (const aspect of [...new Set(mine.map((o) => o.aspect))].sort()) {
      const of = mine.filter((o) => o.aspect === aspect);
      const distinct = [...new Set(of.map((o) => JSON.stringify(o.value)))].sort();
      value[aspect] = distinct.length === 1 ? JSON.parse(distinct[0]) : { varies: distinct.map((v) => JSON.parse(v)) };
      const first = of.find((o) => o.evidence);
      if (first?.evidence) evidence.push({ aspect, test: first.test, ...first.evidence });
    }
    out[clause] = { value, evidence };
  }
  return out;
}

/** A previous run's observations.json; a file that cannot be read is reported and treated as empty. */
export function readObservations(path: string): Observations {
  try {
    return readObservationsFile(path) ?? {};
  } catch (err) {
    console.error(`conformance: cannot read the previous observations ${path}: ${(err as Error).message}`);
    return {};
  }
}

/**
 * Every aspect this run observed whose value differs from the previous run's. Only what this run
 * observed: a filtered run (--grep, --shard) says nothing about the rest.
 */
export function compareObservations(before: Observations, now: Observations): Drift[] {
  const drift: Drift[] = [];
  for (const [clause, { value }] of Object.entries(now)) {
    for (const [aspect, v] of Object.entries(value)) {
      const old = before[clause]?.value?.[aspect];
      if (JSON.stringify(old ?? null) !== JSON.stringify(v ?? null)) drift.push({ clause, aspect, before: old ?? null, now: v });
    }
  }
  return drift;
}
