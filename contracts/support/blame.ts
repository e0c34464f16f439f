// Per-clause blame. Every assertion of a test belongs to one clause, so that a failed test fails only the
// clauses whose assertions failed, not every clause it names (docs/blame.md):
// - a failing check run by `holds(clause, check)` (synchronous: the shared checks of checks.ts) or by
//   `t.clause(clause, body)` (a boxed test.step titled `clause <id>`, target.ts) carries its clause in its
//   error message, as `[blame <id>, ...] `. The innermost claim wins: a field clause that expectSuccess
//   blames inside a test's `t.clause('metrics.create.message', ...)` stays the field's. The reporter reads
//   the tag from the test's errors, so an error a test caught and handled blames nothing;
// - a check that completes notes its clause as held; when the test ends, the clauses it names that held
//   are one annotation `held` (flushHeld, from the `t` fixture). In a test that failed, a held clause
//   passed, and a clause the test names that neither held nor was blamed was not reached (status
//   `unreached` in conformance.json);
// - a failure that no clause claims falls on the test's clauses that did not hold (as before blame).
import { createHash } from 'node:crypto';
import { test, type TestInfo } from '@playwright/test';
import type { Exchange } from '../../core/formats.ts';

export const HELD = 'held';
/** The exchange a failed shared check judged (annotation: its digest, exchangeDigest): the reporter shows it as the failure's evidence. */
export const FAILED_EXCHANGE = 'failed-exchange';

/** A short digest of an exchange as recorded (its JSON), to name it among the test's exchanges without copying it. */
export const exchangeDigest = (exchange: Exchange) => createHash('sha256').update(JSON.stringify(exchange)).digest('hex').slice(0, 16);
const TAG = /\[blame ([^\]]+)\] /;
const CLAIMED = Symbol('blamed clauses');
/** What each running test's checks held: clauses, or how to work them out when the test fails (flushHeld). */
const heldIn = new WeakMap<object, (readonly string[] | (() => readonly string[]))[]>();

/** The clauses a failure message was blamed on (its `[blame ...]` tag), [] when none claimed it. */
export function blamedIn(message: string | undefined): string[] {
  const m = message ? TAG.exec(message) : null;
  return m ? m[1].split(', ').filter(Boolean) : [];
}

/** `message` with the tag that blames `clauses`. */
export const tagged = (clauses: string[], message: string) => `[blame ${clauses.join(', ')}] ${message}`;

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
 * Writes the clauses of `named` that held in the test of `info` as one annotation `held` (a JSON list):
 * the shared checks hold dozens of field clauses a test does not name, which say nothing of it.
 */
export function flushHeld(info: TestInfo, named: readonly string[]): void {
  // Only a test that did not pass has clauses that are not reached.
  if (info.status === 'passed' || info.status === 'skipped') return;
  const seen = new Set((heldIn.get(info) ?? []).flatMap((h) => (typeof h === 'function' ? h() : h)));
  const held = named.filter((c) => seen.has(c));
  if (held.length > 0) info.annotations.push({ type: HELD, description: JSON.stringify(held) });
}

/**
 * Blames `err` on `clauses` unless a clause inside already claimed it, then returns it for rethrowing.
 * A skip (a transport failure, a refused resource, a read-only write) is no failure: left as it is.
 */
export function claim(err: unknown, clauses: readonly string[]): unknown {
  if (clauses.length === 0 || !(err instanceof Error) || (err as { [CLAIMED]?: string[] })[CLAIMED]) return err;
  if (skipping()) return err;
  (err as { [CLAIMED]?: string[] })[CLAIMED] = [...clauses];
  const before = err.message;
  err.message = tagged([...clauses], before);
  if (err.stack?.includes(before)) err.stack = err.stack.replace(before, err.message);
  return err;
}

/** Whether the running test is being skipped (testInfo.skip throws, and that is no failure); false outside a test. */
function skipping(): boolean {
  try {
    return test.info().expectedStatus === 'skipped';
  } catch {
    return false;
  }
}

/** Runs `check` as the check of `clause` (or of each of several): a failure in it is blamed on them, completion holds them. */
export function holds<R>(clause: string | readonly string[], check: () => R): R {
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
 * whose messages are `messages`. A failure no clause claimed falls on the named clauses that did not
 * hold (on all of them when all held: the failure came after the last), so that a failed test always
 * fails a clause.
 */
export function blameOf(clauses: readonly string[], held: readonly string[], messages: readonly (string | undefined)[]): TestBlame {
  const claimed = [...new Set(messages.flatMap(blamedIn))];
  const claimedAll = messages.length > 0 && messages.every((m) => blamedIn(m).length > 0);
  const fallback = clauses.filter((c) => !held.includes(c));
  const blamed = claimedAll ? claimed : [...new Set([...claimed, ...(fallback.length > 0 ? fallback : clauses)])];
  return { blamed, unreached: clauses.filter((c) => !blamed.includes(c) && !held.includes(c)) };
}

/** A failure message without its blame tag (the clauses are shown beside it). */
export const untagged = (message: string) => message.replace(TAG, '');
