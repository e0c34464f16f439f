// Requests to the target: the key in the SERVICE-API-KEY header only (spec 5), every request recorded
// under its endpoint (load/lib/runtime.ts) so thresholds and the baseline compare name the endpoint. Each request is timed here
// with process.hrtime from the call until the whole body is read (microseconds): Artillery's own
// response_time is whole milliseconds, too coarse for a target on this machine.
import { KEY_HEADER } from '../../core/keys.ts';
import { API_KEY, BASE_URL, CANDIDATE_API_KEY, CANDIDATE_BASE_URL, PAIRED, REQUEST_TIMEOUT_MS } from './env.ts';
import { candidateOf, count, endpointOf, failed } from './runtime.ts';
import { transportKind, transportProblem } from '../../core/transport-rule.ts';

/** Statuses that count as an expected answer, as inclusive ranges. */
export type Expected = { min: number; max: number }[];

const SUCCESS: Expected = [{ min: 200, max: 399 }];
// A trigger refuses a phase that is not its current one; the failure status is not shown (spec 7: the
// reference answers 409, another server may answer 400), so any 4xx is an expected answer while the load
// tracks a trigger's state, not a failed request.
export const SUCCESS_OR_REFUSED: Expected = [
  { min: 200, max: 299 },
  { min: 400, max: 499 },
];
/** Probes whose every answer is information (setup's questions to the target). */
export const ANY_STATUS: Expected = [{ min: 0, max: 599 }];
export const REFUSED: Expected = [{ min: 400, max: 499 }];

/** An answer, or its absence (status 0 and `error`), as the checks read it. */
export interface Response {
  status: number;
  body: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  url: string;
  request: { method: string };
  error: string;
  /** No answer: the error's code, as Artillery names a failed request (ETIMEDOUT, ECONNREFUSED, ...). */
  code?: string;
  /** From the call until the body was read, in microseconds. */
  micros: number;
  /** The request already counted as failed (EndpointRecord.errors): a check that finds it the network's counts it no more. */
  failedAs?: string;
  /** The body parsed once, for every reader of the answer (`parsedBody`). */
  parsed?: { value: unknown } | null;
}

/** The body of `res` as JSON, parsed at most once per answer; undefined when it is not JSON. */
export function parsedBody(res: Response): unknown {
  if (res.parsed === undefined) {
    try {
      res.parsed = typeof res.body === 'string' ? { value: JSON.parse(res.body) } : null;
    } catch {
      res.parsed = null;
    }
  }
  return res.parsed?.value;
}

/** Errors of a reused connection that the server had closed (undici's codes). */
const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

export interface TimedCallOptions {
  body?: unknown;
  endpoint: string;
  expected?: Expected;
  /** Sent without the key (the calibration request). */
  anonymous?: boolean;
  /** Headers besides the key's. */
  headers?: Record<string, string>;
}

/** One request to `base + path` with `key` (none: anonymous), timed from the call until the body is read; never throws. */
async function send(base: string, key: string | undefined, method: string, path: string, opts: TimedCallOptions): Promise<Response> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = { ...(key === undefined ? {} : { [KEY_HEADER]: key }), ...(opts.headers ?? {}) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const url = base + path;
  const out: Response = { status: 0, body: '', headers: {}, url, request: { method }, error: '', micros: 0 };
  const t0 = process.hrtime.bigint();
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  for (let attempt = 1; ; attempt++) {
    try {
      // A redirect is never followed: it would take the key header to wherever it points (docs/transport.md).
      const res = await fetch(url, { method, headers, body, redirect: 'manual', signal });
      out.body = await res.text();
      out.status = res.status;
      res.headers.forEach((v, k) => {
        out.headers[k.toLowerCase()] = v;
      });
      out.error = '';
      break;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      out.error = e.name === 'TimeoutError' ? `request timeout (${REQUEST_TIMEOUT_MS / 1000} s)` : (e.cause?.code ?? e.cause?.message ?? e.message);
      out.code = e.name === 'TimeoutError' ? 'ETIMEDOUT' : (e.cause?.code ?? 'ENORESPONSE');
      // A kept-alive connection the server closed as it was reused fails at once, before any answer: a
      // GET is sent again once on a new one, as Go's and browsers' clients do. Anything else is the answer.
      if (attempt > 1 || method !== 'GET' || !STALE_CONNECTION.has(e.cause?.code ?? '')) break;
    }
  }
  out.micros = Number(process.hrtime.bigint() - t0) / 1000;
  return out;
}

const asExpectedBy = (expected: Expected, status: number) => expected.some((r) => status >= r.min && status <= r.max);

/** One side's request of a pair: its path and body (ids and names of that side). */
export interface SideRequest {
  path: string;
  body?: unknown;
}

/** The two answers of a paired request; `candidate` absent when it went to the current only. */
export interface PairAnswers {
  current: Response;
  candidate?: Response;
}

const statusClass = (status: number) => Math.floor(status / 100);

/** The error text without a request line it may start with (`Get "http://...": `): the kind of failure only. */
function shortError(error: string): string {
  return (error || 'no answer').replace(/^[A-Z][a-z]+ "[^"]*": /, '').slice(0, 120);
}

/** Why `res` is the network's doing rather than the target's answer (core/transport-rule.ts), or undefined. */
export function transportReason(res: Response): string | undefined {
  if (res.status === 0) return `no response: ${shortError(res.error)}`;
  const headers: Record<string, string> = {};
  for (const name of Object.keys(res.headers ?? {})) headers[name.toLowerCase()] = res.headers[name];
  const body = typeof res.body === 'string' ? res.body : '';
  return transportProblem(res.status, headers, body.length, body.trim() === '' || parsedBody(res) !== undefined);
}

/** Counts `res`, an answer of `endpoint`, as a failed request once: no answer by its code, the network's by its kind, else unexpected. */
export function countFailure(endpoint: string, res: Response): void {
  if (res.failedAs !== undefined || endpoint === 'setup') return;
  const reason = transportReason(res);
  res.failedAs = res.status === 0 ? (res.code ?? 'ENORESPONSE') : reason ? `console.${transportKind(reason)}` : 'console.unexpected';
  failed(endpoint, res.failedAs);
}

/** Counts the candidate's answer of `endpoint`: unexpected, or the network's by kind (a candidate whose network fails cannot be timed). */
function countCandidate(res: Response, endpoint: string, expected: Expected): void {
  const c = candidateOf(endpoint);
  c.answers++;
  if (!asExpectedBy(expected, res.status)) c.unexpected++;
  const reason = transportReason(res);
  if (reason === undefined) return;
  const kind = transportKind(reason);
  c.network[kind] = (c.network[kind] ?? 0) + 1;
}

/**
 * One request to each side, timed and recorded under its endpoint; never throws. The current gets
 * `cur`; in paired mode (env.ts PAIRED) the candidate gets `cand` (its own ids and names), the order of
 * the two drawn at random for each request so that neither side is always the one a warm connection or
 * a busy moment favours. The current's answer is what the profile reads and checks; the candidate's is
 * timed apart, and the two make a pair only when both are expected answers of the same status class
 * (a 409 beside a 200 is another piece of work, not the same one slower). `cand` null: the current only
 * (the candidate has no counterpart to this request, e.g. an update of a metric its create refused).
 */
export async function callPair(method: string, cur: SideRequest, cand: SideRequest | null, opts: TimedCallOptions): Promise<PairAnswers> {
  const at = Date.now();
  const paired = PAIRED && opts.endpoint !== 'setup' && cand !== null;
  const candidateFirst = paired && Math.random() < 0.5;
  const toCandidate = () => send(CANDIDATE_BASE_URL, opts.anonymous ? undefined : CANDIDATE_API_KEY, method, cand!.path, { ...opts, body: cand!.body });
  const early = candidateFirst ? await toCandidate() : undefined;
  const out = await send(BASE_URL, opts.anonymous ? undefined : API_KEY, method, cur.path, { ...opts, body: cur.body });
  const other = paired ? (early ?? (await toCandidate())) : undefined;
  const expected = opts.expected ?? SUCCESS;
  const e = endpointOf(opts.endpoint);
  e.micros.push(out.micros);
  e.at.push(at);
  e.statuses ??= [];
  e.statuses.push(out.status);
  const asExpected = asExpectedBy(expected, out.status);
  if (asExpected) e.expectedMicros.push(out.micros);
  else {
    e.unexpected++;
    countFailure(opts.endpoint, out);
  }
  if (PAIRED && opts.endpoint !== 'setup' && cand === null) e.alone++;
  if (other) {
    count('load_paired_reqs');
    if (candidateFirst) count('load_candidate_first');
    countCandidate(other, opts.endpoint, expected);
    const ok = asExpectedBy(expected, other.status);
    const c = candidateOf(opts.endpoint);
    if (ok && asExpected && statusClass(out.status) === statusClass(other.status)) {
      c.pairCurrent.push(out.micros);
      c.pairCandidate.push(other.micros);
    } else if (ok && asExpected) c.mismatched++;
  }
  return { current: out, candidate: other };
}

/**
 * One request to `BASE_URL + path` (and in paired mode the same request to the candidate), timed and
 * recorded under its endpoint; never throws. The paging profile sends no ids, so both sides get it as it is.
 */
export async function timedCall(method: string, path: string, opts: TimedCallOptions): Promise<Response> {
  const req = { path, body: opts.body };
  return (await callPair(method, req, req, opts)).current;
}

/**
 * One request to the candidate alone, with its key: a setup probe (recorded nothing, as setup's
 * probes to the current are not compared), or a write of the candidate's that has no counterpart on
 * the current at that moment (recorded as unpaired, its unexpected answers counted).
 */
export async function callCandidate(method: string, req: SideRequest, opts: TimedCallOptions): Promise<Response> {
  const res = await send(CANDIDATE_BASE_URL, opts.anonymous ? undefined : CANDIDATE_API_KEY, method, req.path, { ...opts, body: req.body });
  if (opts.endpoint !== 'setup') {
    candidateOf(opts.endpoint).alone++;
    countCandidate(res, opts.endpoint, opts.expected ?? SUCCESS);
  }
  return res;
}

export function query(params: Record<string, string | number | undefined>): string {
  const parts = Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(String(params[k]))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
