// Per-clause blame. Every assertion of a test belongs to one clause, so that a failed test fails only the
// clauses whose assertions failed, not every clause it names (docs/blame.md):
// - a failing check run by `checkAs(clause, check)` (synchronous: the shared checks of checks.ts) or by
//   `t.clause(clause, body)` (a boxed test.step titled `clause <id>`, suite-test.ts) carries its clause in its
//   error object (a symbol-keyed property: the message stays the assertion's). The innermost claim wins:
//   a field clause that expectSuccess blames inside a test's `t.clause('metrics.create.message', ...)`
//   stays the field's. When the test ends, the clauses of each error it failed with are one annotation
//   `blamed` (flushBlame), which the reporter reads: an error a test caught and handled blames nothing;
// - a check that completes notes its clause as held; when the test ends, the clauses it names that held
//   are one annotation `held` (flushBlame, from the `t` fixture). In a test that failed, a held clause
//   passed, and a clause the test names that neither held nor was blamed was not reached (status
//   `unreached` in conformance.json);
// - a failure that no clause claims falls on the test's clauses that did not hold (as before blame).
import { createHash } from 'node:crypto';
import { test, type TestInfo } from '@playwright/test';
import type { Exchange } from '../../core/formats.ts';

export const HELD = 'held';
/** The clauses each of a failed test's errors was blamed on (a JSON list of lists, one per error in order). */
export const BLAMED = 'blamed';
/** The exchange a failed shared check judged (annotation: its digest, exchangeDigest): the reporter shows it as the failure's evidence. */
export const FAILED_EXCHANGE = 'failed-exchange';

/** A short digest of an exchange as recorded (its JSON), to name it among the test's exchanges without copying it. */
export const exchangeDigest = (exchange: Exchange) => createHash('sha256').update(JSON.stringify(exchange)).digest('hex').slice(0, 16);
const CLAIMED = Symbol('blamed clauses');
/** What each running test's checks held: clauses, or how to work them out when the test fails (flushBlame). */
const heldIn = new WeakMap<object, (readonly string[] | (() => readonly string[]))[]>();
/** The errors each running test's checks claimed: matched at its end against the errors it failed with. */
const claimedIn = new WeakMap<object, Error[]>();

/** The clauses `err` was blamed on (claim), [] when none claimed it. */
export function blamedOn(err: unknown): string[] {
  return err instanceof Error ? [...((err as { [CLAIMED]?: string[] })[CLAIMED] ?? [])] : [];
}

/** Notes that the running test's failure is about `exchange` (one it recorded, evidence.ts). */
export function failedExchange(exchange: Exchange | undefined): void {
  if (exchange) test.info().annotations.push({ type: FAILED_EXCHANGE, description: exchangeDigest(exchange) });
}

/**
 * Notes `clauses` as checked and held in the running test; given as a function, they are worked out only
 * if the test fails (the clauses a response schema holds: on a passing test nobody asks).
 */
export function markHeld(clauses: readonly string[] | (() => readonly string[])): void {
  const info = test.info();
  const held = heldIn.get(info) ?? [];
  heldIn.set(info, held);
  held.push(clauses);
}

/**
 * Writes what a failed test's checks found as annotations: the clauses of `named` that held (`held`, a
 * JSON list: the shared checks hold dozens of field clauses a test does not name, which say nothing of
 * it) and the clauses each of its errors was blamed on (`blamed`, one list per error, [] for one no check
 * claimed). The runner hands the reporter its errors as text; the clauses travel beside them as data.
 */
export function flushBlame(info: TestInfo, named: readonly string[]): void {
  // Only a test that did not pass has clauses that are not reached.
  if (info.status === 'passed' || info.status === 'skipped') return;
  const seen = new Set((heldIn.get(info) ?? []).flatMap((h) => (typeof h === 'function' ? h() : h)));
  const held = named.filter((c) => seen.has(c));
  if (held.length > 0) info.annotations.push({ type: HELD, description: JSON.stringify(held) });
  const claimed = claimedIn.get(info) ?? [];
  const blamed = info.errors.map((e) => blamedOn([...claimed].reverse().find((c) => sameError(e.message, c))));
  if (blamed.some((b) => b.length > 0)) info.annotations.push({ type: BLAMED, description: JSON.stringify(blamed) });
}

/** Whether the runner's text of an error (`Name: message`) is `err`'s. */
function sameError(reported: string | undefined, err: Error): boolean {
  return reported !== undefined && (reported === err.message || reported === `${err.name}: ${err.message}`);
}

/**
 * Blames `err` on `clauses` unless a clause inside already claimed it, then returns it for rethrowing.
 * A skip (a transport failure, a refused resource, a read-only write) is no failure: left as it is.
 */
export function claim(err: unknown, clauses: readonly string[]): unknown {
  if (clauses.length === 0 || !(err instanceof Error) || (err as { [CLAIMED]?: string[] })[CLAIMED]) return err;
  const info = running();
  if (info?.expectedStatus === 'skipped') return err;
  (err as { [CLAIMED]?: string[] })[CLAIMED] = [...clauses];
  if (info) claimedIn.set(info, [...(claimedIn.get(info) ?? []), err]);
  return err;
}

/** The running test's info (testInfo.skip throws, and that is no failure); undefined outside a test. */
function running(): TestInfo | undefined {
  try {
    return test.info();
  } catch {
    return undefined;
  }
}

/** Runs `check` as the check of `clause` (or of each of several): a failure in it is blamed on them, completion holds them. */
export function checkAs<R>(clause: string | readonly string[], check: () => R): R {
  const clauses = typeof clause === 'string' ? [clause] : clause;
  let out: R;
  try {
    out = check();
  } catch (err) {
    throw claim(err, clauses);
  }
  markHeld(clauses);
  return out;
}

/**
 * The async form, as a boxed test.step titled `clause <id>` (the report shows it; the error points at
 * the test's line). Several clauses where one answer cannot tell which of them it breaks.
 */
export function clauseStep<R>(clause: string | readonly string[], body: () => Promise<R>): Promise<R> {
  const clauses = typeof clause === 'string' ? [clause] : clause;
  return test.step(
    `clause ${clauses.join(', ')}`,
    async () => {
      let out: R;
      try {
        out = await body();
      } catch (err) {
        throw claim(err, clauses);
      }
      markHeld(clauses);
      return out;
    },
    { box: true },
  );
}

/** What a failed test says of each clause: blamed (its assertion failed), held before, or not reached. */
export interface TestBlame {
  blamed: string[];
  unreached: string[];
}

/**
 * The blame of a failed test that names `clauses`, whose checks held `held` and which ended with errors
 * blamed on `errors` (per error, the clauses a check claimed it for; [] for none). A failure no clause
 * claimed falls on the named clauses that did not hold (on all of them when all held: the failure came
 * after the last), so that a failed test always fails a clause.
 */
export function blameOf(clauses: readonly string[], held: readonly string[], errors: readonly (readonly string[])[]): TestBlame {
  const claimed = [...new Set(errors.flat())];
  const claimedAll = errors.length > 0 && errors.every((e) => e.length > 0);
  const fallback = clauses.filter((c) => !held.includes(c));
  const blamed = claimedAll ? claimed : [...new Set([...claimed, ...(fallback.length > 0 ? fallback : clauses)])];
  return { blamed, unreached: clauses.filter((c) => !blamed.includes(c) && !held.includes(c)) };
}
