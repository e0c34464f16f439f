// The manifest's waivers (core/config.ts, Waiver): clauses a user leaves out on purpose, each with a
// reason. A waived clause is listed as waived in every report, never as passed, and a test whose
// clauses are all waived does not run (it would only spend the target's resources).
import type { Waiver } from './config.ts';

/** A clause-id glob as a RegExp: `*` any characters, everything else literal. */
export function globRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** The first waiver that covers `clause`, if any. */
export function waiverOf(waive: Waiver[] | undefined, clause: string): Waiver | undefined {
  return waive?.find((w) => globRegExp(w.clauses).test(clause));
}

/** Waivers that cover none of `ids`: a typo the run refuses rather than silently ignores. */
export function unmatchedWaivers(waive: Waiver[] | undefined, ids: string[]): Waiver[] {
  return (waive ?? []).filter((w) => !ids.some((id) => globRegExp(w.clauses).test(id)));
}
