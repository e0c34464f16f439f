// What the network did, as opposed to what the target's API said. An exchange that never got an
// answer (reset, refused, timed out), or one core/transport-rule.ts says is the network's (a redirect,
// a rate limit outlasting its budget, an answer that is not JSON or too large) proves nothing about
// the contract: the test that met it is "inconclusive: transport", kept out of the clause matrix and
// listed apart (docs/transport.md). Here: retries, the Retry-After budget and the run's stop signal.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** GETs are tried this many times in all on a transport failure (writes once: never blindly repeated). */
export const READ_ATTEMPTS = 3;
/** Backoff before the 2nd and 3rd attempt of a read. */
export const BACKOFF_MS = [300, 1000];
/** A request answered 429 is asked again at most this many times in a row (each after its Retry-After). */
export const RATE_LIMIT_RETRIES = 5;
/** A Retry-After longer than this is not waited for: the exchange is inconclusive (a limit that long is an outage). */
export const RETRY_AFTER_CAP_MS = 30_000;
/** The run stops (exit 3) after this many tests in a row ended inconclusive. */
export const STOP_AFTER_CONSECUTIVE = 5;

/** An exchange that checked nothing: `reason` is one line, e.g. "no response: ECONNRESET". */
export class TransportError extends Error {
  readonly reason: string;
  readonly exchange?: unknown;
  constructor(reason: string, exchange?: unknown) {
    super(`inconclusive: transport: ${reason}`);
    this.reason = reason;
    this.exchange = exchange;
    this.name = 'TransportError';
  }
}

/** The run was stopped (deadline or too many transport failures) before this exchange was made. */
export class RunStopped extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`not run: ${reason}`);
    this.reason = reason;
    this.name = 'RunStopped';
  }
}

/** An answer whose connection closed before the body it announced was complete. */
export const CUT_SHORT = 'response cut short mid-body';

/**
 * The one-line reason of a request that threw: "no response: ECONNRESET", "no response: ETIMEDOUT
 * (none within 15 s)", "response cut short mid-body". Read from the error's first line only: the
 * rest of Playwright's message is a call log that lists the request headers, key included.
 */
export function noAnswer(err: unknown, timeoutMs: number): string {
  const e = err as { code?: string; cause?: { code?: string }; message?: string };
  const first = String(e?.message ?? err).split('\n')[0];
  if (/Timeout \d+ms exceeded|ETIMEDOUT/.test(first) || e?.code === 'ETIMEDOUT') return `no response: ETIMEDOUT (none within ${timeoutMs / 1000} s)`;
  const code = e?.cause?.code ?? (e?.code && /^E[A-Z_]+$/.test(e.code) ? e.code : undefined) ?? /\b(E[A-Z][A-Z_]{2,})\b/.exec(first)?.[1];
  if (code) return `no response: ${code}`;
  if (/\baborted\b|premature close/i.test(first)) return CUT_SHORT;
  return `no response: ${first.replace(/^apiRequestContext\.fetch: /, '').slice(0, 120)}`;
}

/**
 * A request that got no answer in time: the target stopped answering. Unlike a reset or a refusal,
 * which fail at once, each such request costs a whole request timeout, so the first one stops the
 * run's suite (no retry, no other test sent): a dead target costs one timeout, not one per test.
 */
export const noAnswerInTime = (reason: string) => /^no response: ETIMEDOUT/.test(reason);

/** The stop's reason after a request got no answer in time. */
export const silenceReason = (reason: string) => `a request got no answer (${reason.replace(/^no response: /, '')}): the target stopped answering`;

/** A transport failure worth trying again, for a read: no answer, or a 5xx/2xx that is not JSON (a proxy's page). */
export const retryable = (reason: string) => !/^HTTP 3\d\d|^HTTP 429|MB limit$/.test(reason);

/** Seconds or an HTTP date (RFC 9110, 10.2.3) to milliseconds; undefined when unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

// Pacing across workers: a 429 says the target wants fewer requests from this key, so every worker
// holds back until its Retry-After has passed, not only the one that was refused. The time is kept in
// a file of the reports folder (the workers are processes); a wait that would pass the run's deadline
// is not taken: the exchange is inconclusive and the deadline stops the run as it would anyway.
export const paceFile = (reportsDir: string) => join(reportsDir, '.paced-until');

/** When every worker may send again (epoch ms), 0 when not held back. */
export function pacedUntil(reportsDir: string): number {
  try {
    return Number(readFileSync(paceFile(reportsDir), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** Holds every worker back until `until` (epoch ms), unless a later time is already set. */
export function paceUntil(reportsDir: string, until: number): void {
  if (until <= pacedUntil(reportsDir)) return;
  mkdirSync(dirname(paceFile(reportsDir)), { recursive: true });
  writeFileSync(paceFile(reportsDir), String(Math.round(until)));
}

/**
 * Whether a 429 with Retry-After `wait` is waited out: it is short enough to be a rate limit, not an
 * outage, and the wait ends before the run's deadline (epoch ms; none: no bound but the cap).
 */
export function waitable(wait: number, deadlineAt: number | undefined, now = Date.now()): boolean {
  return wait <= RETRY_AFTER_CAP_MS && (deadlineAt === undefined || now + wait < deadlineAt);
}

// The stop signal between the reporter (which sees every test end, in the main process) and the
// workers (which make the calls): a file in the reports folder, written once, read before each call.
export const stopFile = (reportsDir: string) => join(reportsDir, '.run-stopped');

export function requestStop(reportsDir: string, reason: string): void {
  mkdirSync(dirname(stopFile(reportsDir)), { recursive: true });
  writeFileSync(stopFile(reportsDir), reason);
}

export function stopReason(reportsDir: string): string | undefined {
  const file = stopFile(reportsDir);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export function clearStop(reportsDir: string): void {
  rmSync(stopFile(reportsDir), { force: true });
  rmSync(paceFile(reportsDir), { force: true });
}
