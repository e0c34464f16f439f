// Is the target the Console API, and does it take the key? One list call before anything else runs:
// a login page, a proxy's error page or a redirect is a target that cannot be tested (exit 3, one
// line), not a contract failure. Used by the conformance run and by manifest:check.
import { redactText } from './keys.ts';

export const PREFLIGHT_TIMEOUT_MS = 15_000;

/** "ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT"... from a fetch error (its cause), not undici's "fetch failed". */
export function fetchErrorCode(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; cause?: { code?: string; name?: string; message?: string }; message?: string };
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError') return `ETIMEDOUT (no answer within ${Math.round(timeoutMs / 1000)} s)`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/**
 * Is the target the Console API, and does it take the key? One list call, redirects not followed (the
 * key must go to the configured origin only), and the answer must be the Console envelope in JSON: a
 * login page or a proxy's error page is a target that cannot be tested (exit 3), not a contract failure.
 * Returns why the run cannot be carried out, or undefined.
 */
export async function preflight(baseUrl: string, apiKey: string, timeoutMs: number): Promise<string | undefined> {
  let r: Response;
  try {
    r = await fetch(`${baseUrl}/console/v1/release_pipelines?limit=1`, {
      headers: { 'SERVICE-API-KEY': apiKey },
      redirect: 'manual',
      // A timeout computed from what is left of a deadline has a fraction: the timer takes whole milliseconds.
      signal: AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs))),
    });
  } catch (err) {
    return `target ${baseUrl} unreachable: ${fetchErrorCode(err, timeoutMs)}`;
  }
  if (r.status === 401 || r.status === 403) return `target ${baseUrl} rejected the key (HTTP ${r.status}): check CONSOLE_API_KEY`;
  if (r.status >= 300 && r.status < 400) {
    const location = r.headers.get('location');
    let to = location ?? '';
    try {
      to = location ? new URL(location, baseUrl).href : '';
    } catch {
      // not a URL: named as given
    }
    return `target ${baseUrl} redirects (HTTP ${r.status}${to ? ` to ${redactText(to, apiKey)}` : ''}): not followed, the key was sent nowhere else; set CONSOLE_BASE_URL to the API's own address`;
  }
  let text: string;
  try {
    text = await r.text();
  } catch (err) {
    return `target ${baseUrl}: the answer broke off (${fetchErrorCode(err, timeoutMs)})`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const type = r.headers.get('content-type')?.split(';')[0].trim() || 'no content type';
    return `target ${baseUrl} answered HTTP ${r.status} ${type}, not the Console API (GET /console/v1/release_pipelines)`;
  }
  const isEnvelope = typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
  // Any success with the envelope is the Console API: one answering 202 where the spec shows 200 is a
  // server to test (the suite fails its status clause, exit 1), not one that cannot be tested.
  if (r.status < 200 || r.status > 299 || !isEnvelope)
    return `target ${baseUrl} answered HTTP ${r.status} without the Console envelope ({"data": [...]}) to GET /console/v1/release_pipelines: not the Console API, or not working`;
  return undefined;
}
