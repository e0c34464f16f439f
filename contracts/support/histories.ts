// The verdict of a concurrent history (./linearizability.ts) as a check of one clause: linearizable
// passes, not linearizable fails the clause with the whole history as its message, and a history the
// checker could not decide in its budget leaves the clause unverifiable (never a pass).
import { expect, type T } from './suite-test.ts';
import type { HistoryOperation, LinearizabilityVerdict } from './linearizability.ts';

export async function judgeHistory<I, O>(
  t: T,
  clause: string,
  what: string,
  history: readonly HistoryOperation<I, O>[],
  verdict: LinearizabilityVerdict,
): Promise<void> {
  if (verdict.result === 'unknown')
    return t.uncovered(clause, `not verifiable: the history of ${history.length} ${what} was ${verdict.reason}`, 'unverifiable');
  await t.clause(clause, async () =>
    expect(
      verdict.result,
      `no order of the ${history.length} ${what} answered 2xx (sent at once, then the read-back) explains every answer: one was lost to an overlapping one. ` +
        history
          .map((o) => `sent ${JSON.stringify(o.input)} at ${Math.round(o.call)} ms, answered ${JSON.stringify(o.output)} at ${Math.round(o.ret)} ms`)
          .join('; '),
    ).toBe('linearizable'),
  );
}
