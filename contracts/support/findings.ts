// Inferred findings recorded from inside a test, without failing it: e.g. a listed response field that
// is absent (its presence is inferred, clause response.listedFieldsPresent). Each is a Playwright
// annotation `finding` that contracts/support/reporter.ts turns into its own inferred result: a warning
// by default, a failure that counts under --strict. A `checked` annotation names a clause the test
// checked on the way, so that the clause passes when nothing was found.
import { test, type TestInfo } from '@playwright/test';
import type { Exchange } from '../../core/formats.ts';

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

/** Records `finding` on the running test (or on `info`), once per clause and key. */
export function recordFinding(finding: Omit<Finding, 'key'> & { key?: string }, info: TestInfo = test.info()): void {
  const key = finding.key ?? finding.message;
  const same = (a: { type: string; description?: string }) => {
    if (a.type !== FINDING) return false;
    const f = JSON.parse(a.description ?? '{}') as Finding;
    return f.clause === finding.clause && f.key === key;
  };
  if (info.annotations.some(same)) return;
  info.annotations.push({ type: FINDING, description: JSON.stringify({ ...finding, key } satisfies Finding) });
}

/** Notes that the running test (or `info`) checked `clause` (once per test), whether or not it found anything. */
export function markChecked(clause: string, info: TestInfo = test.info()): void {
  if (!info.annotations.some((a) => a.type === CHECKED && a.description === clause)) info.annotations.push({ type: CHECKED, description: clause });
}

/** The clause every answer the suite gets is held to: no request it sends is answered with a server error. */
export const NO_SERVER_ERROR = 'errors.no5xx';

/**
 * The one rule of the suite's client (evidence.ts) for server errors: every answer checks
 * errors.no5xx, and a 5xx that is the server's answer (`status`, seen on any attempt of the request)
 * is an inferred finding naming the request, whatever the request was for: a check, a probe or an
 * observation. A gateway's page (a 502, 503 or 504 that is not JSON) is the network's doing
 * (core/transport-rule.ts) and is not passed here.
 */
export function judgeServerError(info: TestInfo, exchange: Exchange, status: number | undefined): void {
  markChecked(NO_SERVER_ERROR, info);
  if (status === undefined) return;
  const request = `${exchange.method} ${exchange.path.split('?')[0]}`;
  const last = exchange.status === status ? '' : ` (then HTTP ${exchange.status} when tried again)`;
  recordFinding({ clause: NO_SERVER_ERROR, message: `${request} answered HTTP ${status}${last}`, exchange, key: `${request} ${status}` }, info);
}
