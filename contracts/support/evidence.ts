// Every exchange a check makes is kept as evidence (method, path, body sent, status and body got,
// a curl line), with the key redacted, and attached to the test so the reporter can show it. What
// counts as a transport failure, and how often a request is tried, is ./transport.ts.
import type { TestInfo } from '@playwright/test';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { isCredentialHeader, KEY_HEADER, REDACTED, redactHeaders, redactText } from '../../core/keys.ts';
import {
  BACKOFF_MS,
  CUT_SHORT,
  RATE_LIMIT_RETRIES,
  READ_ATTEMPTS,
  RunStopped,
  TransportError,
  noAnswer,
  retryAfterMs,
  retryable,
  stopReason,
  noAnswerInTime,
  requestStop,
  silenceReason,
  paceUntil,
  pacedUntil,
  waitable,
} from './transport.ts';
import { MAX_BODY_BYTES, serverError, transportProblem } from '../../core/transport-rule.ts';
import { judgeServerError } from './findings.ts';
import type { Exchange } from '../../core/formats.ts';
import type { Json } from '../../core/json.ts';
import { fullExchangesFromEnv } from '../../core/config.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export type { Exchange } from '../../core/formats.ts';

export interface Reply {
  status: number;
  body: Json;
  /** The response's own headers and raw text (not kept in the evidence: checks on them say what they found). */
  headers: Record<string, string>;
  text: string;
  exchange: Exchange;
}

// Whole bodies when two deployments' answers are compared field by field (npm run candidate).
const MAX_SHOWN = fullExchangesFromEnv() ? Number.POSITIVE_INFINITY : 4000;

function shorten(value: unknown): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= MAX_SHOWN) return value;
  return `${text.slice(0, MAX_SHOWN)}... (${text.length} characters)`;
}

function curlLine(baseUrl: string, method: string, path: string, headers: Record<string, string>, body: unknown): string {
  const parts = [`curl -sS -X ${method} '${baseUrl}${path}'`];
  for (const [k, v] of Object.entries(headers))
    parts.push(
      k.toLowerCase() === KEY_HEADER.toLowerCase() ? `-H "${k}: $CONSOLE_API_KEY"` : isCredentialHeader(k) ? `-H '${k}: ${REDACTED}'` : `-H '${k}: ${v}'`,
    );
  if (body !== undefined) {
    const text = JSON.stringify(body);
    parts.push(text.length > MAX_SHOWN ? `--data '<${text.length} characters of JSON>'` : `--data '${text.replace(/'/g, `'\\''`)}'`);
  }
  return parts.join(' ');
}

/** What a recorded call sends besides its method and path: a JSON body, or a raw one, and headers. */
export interface EvidenceCallOptions {
  data?: unknown;
  headers?: Record<string, string>;
  rawBody?: string;
}

export interface CallContext {
  baseUrl: string;
  apiKey: string;
  requestTimeoutMs: number;
  reportsDir: string;
  /** The run's deadline (epoch ms): a Retry-After that would pass it is not waited for. */
  deadlineAt?: number;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  bytes: number;
}

// Requests go out through node:http(s), not Playwright's APIRequestContext: Playwright records each
// of its API calls as a report step, with the URL (a key sent in a query string, by the auth tests) and,
// for a call that fails, a call log listing every request header (the key): both would reach
// playwright-report/. Here nothing is recorded but the redacted exchange, and the client is ours to
// bound: a timeout on the whole exchange, no redirect followed, a body read only up to MAX_BODY_BYTES.
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/** How often a request in flight looks for the run's stop (another worker's request got no answer). */
const STOP_POLL_MS = 250;

/** One attempt: the answer, the one-line reason there was none, or the run's stop that ended it. */
function attempt(
  url: string,
  method: string,
  headers: Record<string, string>,
  data: string | undefined,
  timeout: number,
  reportsDir: string,
): Promise<Answer | { error: string } | { stopped: string }> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const done = (result: Answer | { error: string } | { stopped: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      resolve(result);
    };
    // A run stopped while this request waits (a dead target) ends it now, not at its own timeout.
    const poll = setInterval(() => {
      const stopped = stopReason(reportsDir);
      if (stopped === undefined) return;
      done({ stopped });
      req.destroy();
    }, STOP_POLL_MS);
    // Compressed answers are welcome and decoded: without Accept-Encoding a server may use any coding
    // (RFC 9110, 12.5.3), and a CDN in front of a real server often compresses.
    const all: Record<string, string | number> = {
      'user-agent': 'console-conformance',
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      ...headers,
    };
    if (data !== undefined) all['content-length'] = Buffer.byteLength(data);
    const req = send(target, { method, headers: all, agent: agents[target.protocol as 'http:' | 'https:'] }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      const flat = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      const body = decoded(res, flat['content-encoding']);
      body.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_BODY_BYTES) return void chunks.push(chunk);
        // Larger than any page of the API: stop reading (the answer is inconclusive whatever it holds).
        done({ status: res.statusCode ?? 0, headers: flat, text: '', bytes });
        req.destroy();
      });
      body.on('end', () => done({ status: res.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString('utf8'), bytes }));
      body.on('error', () => done({ error: body === res ? CUT_SHORT : `response body does not decode as ${flat['content-encoding']}` }));
      res.on('error', () => done({ error: CUT_SHORT }));
      // A complete answer ends through 'end' (after its decoding); a connection closed before that is cut short.
      res.on('close', () => {
        if (!res.complete) done({ error: CUT_SHORT });
      });
    });
    const timer = setTimeout(() => {
      done({ error: `no response: ETIMEDOUT (none within ${timeout / 1000} s)` });
      req.destroy();
    }, timeout);
    req.on('error', (err) => done({ error: noAnswer(err, timeout) }));
    req.end(data);
  });
}

/** The body stream, decoded when it carries a content coding this client asked for. */
function decoded(res: Readable, encoding: string | undefined): Readable {
  const coding = (encoding ?? '').trim().toLowerCase();
  if (coding === 'gzip' || coding === 'x-gzip') return res.pipe(createGunzip());
  if (coding === 'deflate') return res.pipe(createInflate());
  if (coding === 'br') return res.pipe(createBrotliDecompress());
  return res;
}

function parse(text: string): { body: unknown; json: boolean } {
  if (text === '') return { body: undefined, json: true };
  try {
    return { body: JSON.parse(text), json: true };
  } catch {
    // not JSON: kept as text, and checks on it fail with the text as evidence
    return { body: text, json: false };
  }
}

/**
 * One HTTP exchange, recorded on the test as evidence (also when it got no answer: status 0). A read
 * is tried again on a transport failure (READ_ATTEMPTS, with backoff); a write never is, since its
 * first attempt may have been carried out. A 429 is waited out when its Retry-After fits the budget.
 * A transport failure throws TransportError after its exchange is attached: the evidence of the
 * failure is the exchange that failed.
 */
export async function call(info: TestInfo, ctx: CallContext, method: string, path: string, opts: EvidenceCallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if ((opts.data !== undefined || opts.rawBody !== undefined) && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['Content-Type'] = 'application/json';
  const data = opts.rawBody ?? (opts.data === undefined ? undefined : JSON.stringify(opts.data));
  const attempts = method.toUpperCase() === 'GET' ? READ_ATTEMPTS : 1;
  let answer: Answer | { error: string };
  let problem: string | undefined;
  let tries = 0;
  let waits = 0;
  /** The first server error any attempt got (a read tried again may succeed the next time: the 5xx is still reported). */
  let failed: number | undefined;
  for (;;) {
    const stopped = stopReason(ctx.reportsDir);
    if (stopped) throw new RunStopped(stopped);
    // Held back while the target rate-limits this key (a 429 in any worker).
    const held = pacedUntil(ctx.reportsDir) - Date.now();
    if (held > 0) await sleep(held);
    tries++;
    const reply = await attempt(ctx.baseUrl + path, method, headers, data, ctx.requestTimeoutMs, ctx.reportsDir);
    if ('stopped' in reply) throw new RunStopped(reply.stopped);
    answer = reply;
    const json = 'error' in answer || parse(answer.text).json;
    problem = 'error' in answer ? answer.error : transportProblem(answer.status, answer.headers, answer.bytes, json);
    if (!('error' in answer) && failed === undefined && serverError(answer.status, json)) failed = answer.status;
    if (!problem) break;
    if (!('error' in answer) && answer.status === 429) {
      const wait = retryAfterMs(answer.headers['retry-after']) ?? BACKOFF_MS[0];
      // A 429 says the request was refused, not carried out: waiting and asking again is safe for writes too.
      if (waits < RATE_LIMIT_RETRIES && waitable(wait, ctx.deadlineAt)) {
        waits++;
        paceUntil(ctx.reportsDir, Date.now() + wait);
        continue;
      }
      break;
    }
    if (noAnswerInTime(problem)) {
      requestStop(ctx.reportsDir, silenceReason(problem));
      break;
    }
    if (tries >= attempts || !retryable(problem)) break;
    await sleep(BACKOFF_MS[tries - 1] ?? BACKOFF_MS.at(-1)!);
  }
  const got = 'error' in answer ? undefined : answer;
  const body = got && got.bytes <= MAX_BODY_BYTES ? parse(got.text).body : got ? `<${got.bytes} bytes>` : undefined;
  const exchange: Exchange = {
    method,
    path: redactText(path, ctx.apiKey),
    requestHeaders: redactHeaders(headers),
    requestBody: shorten(opts.data ?? opts.rawBody),
    status: got?.status ?? 0,
    responseBody: got ? shorten(body) : redactText(problem!, ctx.apiKey),
    curl: redactText(curlLine(ctx.baseUrl, method, path, headers, opts.data ?? opts.rawBody), ctx.apiKey),
    ...(tries > 1 ? { attempts: tries } : {}),
  };
  const json = redactText(JSON.stringify(exchange), ctx.apiKey);
  await info.attach('exchange', { body: json, contentType: 'application/json' });
  const recorded: Exchange = JSON.parse(json);
  judgeServerError(info, recorded, failed);
  if (problem) throw new TransportError(redactText(problem, ctx.apiKey), recorded);
  return { status: recorded.status, body, headers: got!.headers, text: got!.text, exchange: recorded };
}

export { REDACTED };
