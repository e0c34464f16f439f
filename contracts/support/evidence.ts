// Every exchange a check makes is kept as evidence (method, path, body sent, status and body got,
// a curl line), with the key redacted, and attached to the test so the reporter can show it.
import type { APIRequestContext, TestInfo } from '@playwright/test';
import { KEY_HEADER, REDACTED, redactHeaders, redactText } from './redact.ts';

export interface Exchange {
  method: string;
  path: string;
  requestHeaders: Record<string, string>;
  requestBody?: unknown;
  status: number;
  responseBody: unknown;
  curl: string;
}

export interface Reply {
  status: number;
  body: any;
  /** The response's own headers and raw text (not kept in the evidence: checks on them say what they found). */
  headers: Record<string, string>;
  text: string;
  exchange: Exchange;
}

const MAX_SHOWN = 4000;

function shorten(value: unknown): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= MAX_SHOWN) return value;
  return `${text.slice(0, MAX_SHOWN)}... (${text.length} characters)`;
}

function curlLine(baseUrl: string, method: string, path: string, headers: Record<string, string>, body: unknown): string {
  const parts = [`curl -sS -X ${method} '${baseUrl}${path}'`];
  for (const [k, v] of Object.entries(headers)) parts.push(k.toLowerCase() === KEY_HEADER.toLowerCase() ? `-H "${k}: $CONSOLE_API_KEY"` : `-H '${k}: ${v}'`);
  if (body !== undefined) {
    const text = JSON.stringify(body);
    parts.push(text.length > MAX_SHOWN ? `--data '<${text.length} characters of JSON>'` : `--data '${text.replace(/'/g, `'\\''`)}'`);
  }
  return parts.join(' ');
}

export interface CallOptions { data?: unknown; headers?: Record<string, string>; rawBody?: string }

/** One HTTP exchange, recorded on the test as evidence. */
export async function call(request: APIRequestContext, info: TestInfo, ctx: { baseUrl: string; apiKey: string }, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if ((opts.data !== undefined || opts.rawBody !== undefined) && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await request.fetch(ctx.baseUrl + path, {
      method,
      headers,
      data: opts.rawBody ?? (opts.data === undefined ? undefined : JSON.stringify(opts.data)),
      failOnStatusCode: false,
      maxRedirects: 0,
    });
  } catch (err) {
    // Playwright's network errors carry a call log that lists the request headers, key included:
    // only a redacted copy may reach the reports.
    throw new Error(redactText(`${method} ${path}: ${(err as Error).message}`, ctx.apiKey));
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: kept as text, and checks on it fail with the text as evidence
  }
  const exchange: Exchange = {
    method,
    path: redactText(path, ctx.apiKey),
    requestHeaders: redactHeaders(headers),
    requestBody: shorten(opts.data ?? opts.rawBody),
    status: response.status(),
    responseBody: shorten(body),
    curl: redactText(curlLine(ctx.baseUrl, method, path, headers, opts.data ?? opts.rawBody), ctx.apiKey),
  };
  const json = redactText(JSON.stringify(exchange), ctx.apiKey);
  await info.attach('exchange', { body: json, contentType: 'application/json' });
  return { status: exchange.status, body, headers: response.headers(), text, exchange: JSON.parse(json) };
}

export { REDACTED };
