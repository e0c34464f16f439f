// Inferred findings recorded from inside a test, without failing it: e.g. a listed response field that
// is absent (its presence is inferred, clause response.listedFieldsPresent). Each is a Playwright
// annotation `finding` that contracts/support/reporter.ts turns into its own inferred result: a warning
// by default, a failure that counts under --strict. A `checked` annotation names a clause the test
// checked on the way, so that the clause passes when nothing was found.
import { test } from '@playwright/test';
import type { Exchange } from './evidence.ts';

export interface Finding {
  clause: string;
  /** What was found, one line: "<operationId>: listed field /data/*\/layerID is absent". */
  message: string;
  /** The exchange that shows it (already redacted by evidence.ts). */
  exchange?: Exchange;
  /** Findings of a test with the same clause and key are one: e.g. one per operation and field pattern, not one per list item or page. */
  key: string;
}

export const FINDING = 'finding';
export const CHECKED = 'checked';

/** Records `finding` on the running test, once per clause and key. */
export function recordFinding(finding: Omit<Finding, 'key'> & { key?: string }): void {
  const info = test.info();
  const key = finding.key ?? finding.message;
  const same = (a: { type: string; description?: string }) => {
    if (a.type !== FINDING) return false;
    const f = JSON.parse(a.description ?? '{}') as Finding;
    return f.clause === finding.clause && f.key === key;
  };
  if (info.annotations.some(same)) return;
  info.annotations.push({ type: FINDING, description: JSON.stringify({ ...finding, key } satisfies Finding) });
}

/** Notes that the running test checked `clause` (once per test), whether or not it found anything. */
export function markChecked(clause: string): void {
  const info = test.info();
  if (!info.annotations.some((a) => a.type === CHECKED && a.description === clause)) info.annotations.push({ type: CHECKED, description: clause });
}
