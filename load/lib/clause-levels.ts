// The level of a load check is its clause's in contracts/clauses.yaml, looked up by id rather than
// typed beside the check, so a clause the catalogue re-levels moves the load's verdict with it.
// Artillery's workers read no YAML: load/lib/build-validators.ts writes the catalogue's levels into
// load/data/validators.js at the start of every run, as it writes the response validators.
import type { Level } from '../../core/formats.ts';

/** The level of a check under load: what the spec leaves open is not checked here at all. */
export type CheckLevel = Exclude<Level, 'open'>;

/** Each clause id of the catalogue with its level. */
export type ClauseLevels = Readonly<Record<string, Level>>;

/** The catalogue's levels by clause id, as build-validators.ts writes them for the workers. */
export function clauseLevels(catalogue: readonly { id: string; level: Level }[]): Record<string, Level> {
  return Object.fromEntries(catalogue.map((c) => [c.id, c.level]));
}

/**
 * The level a check of `clause` is held to. A clause the catalogue does not hold (a typo, a clause
 * renamed) or one it leaves open throws: a check must not run at a level nobody wrote down.
 */
export function clauseLevel(levels: ClauseLevels, clause: string): CheckLevel {
  const level = Object.hasOwn(levels, clause) ? levels[clause] : undefined;
  if (level === undefined) throw new Error(`load check names clause ${JSON.stringify(clause)}, which contracts/clauses.yaml does not hold`);
  if (level === 'open') throw new Error(`load check names clause ${JSON.stringify(clause)}, which contracts/clauses.yaml leaves open: nothing to check`);
  return level;
}
