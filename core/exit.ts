// The exit codes of the commands and the one rule that combines them (README, "Exit codes"): a
// contract failure says the most about the target, a run not carried out says the verdict is
// incomplete, a load regression matters only when the rest held.
export const EXIT = { pass: 0, contract: 1, regression: 2, notCarriedOut: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const RANK: Record<number, number> = { 1: 3, 3: 2, 2: 1, 0: 0 };

/** The code a run ends with when several apply: 1 before 3 before 2 before 0. An unknown code counts as 3. */
export function worst(codes: Iterable<number | null | undefined>): ExitCode {
  let out: ExitCode = 0;
  for (const c of codes) {
    if (c === null || c === undefined) continue;
    const code = (c in RANK ? c : 3) as ExitCode;
    if (RANK[code] > RANK[out]) out = code;
  }
  return out;
}
