// What a conformance run wrote to the target, from the exchanges its tests recorded (core/ledger.ts):
// no test can forget to record a write.
import { emptyState, noteState, writeOf } from '../../core/ledger.ts';
import type { LedgerWrite, ManifestState } from '../../core/formats.ts';
import type { Ran } from './verdict.ts';

/** The writes the tests' exchanges made, and the state they leave the target in. */
export function ledgerOfRun(ran: readonly Ran[]): { writes: LedgerWrite[]; state: ManifestState } {
  const state = emptyState();
  const writes: LedgerWrite[] = [];
  // An exchange a test shows as evidence of another's request (the envelope test, of the create that
  // made its worker's metric) is one request: it is counted once.
  const counted = new Set<string>();
  for (const r of ran)
    for (const e of r.exchanges) {
      const same = JSON.stringify(e);
      if (counted.has(same)) continue;
      counted.add(same);
      const w = writeOf(e);
      if (w) writes.push(w);
      noteState(state, e);
    }
  return { writes, state };
}
