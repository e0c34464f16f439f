// The one rule that tells the network's doing from the target's word, for the conformance suite
// (contracts/support/transport.ts) and the load profiles (load/lib/checks.ts) alike: a redirect, a rate
// limit, an oversized answer, or a 2xx/5xx that is not JSON where the Console API always answers JSON
// (a proxy's HTML 502, a login page, a truncated body) proves nothing about the contract. A 4xx, or a
// 5xx in JSON, is the target's own answer and stays the contract's business (docs/transport.md).
// The load profiles' processor bundles this file for Artillery's workers, so it imports nothing.

/** An answer larger than this is not a page of the Console API (a proxy or a runaway server). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Why a completed answer is a transport failure rather than the target's word, or undefined when it
 * is the target's word. `headers` have lower-case names; `json` says whether the body parsed (an
 * empty body counts as parsed).
 */
export function transportProblem(status: number, headers: Record<string, string>, bytes: number, json: boolean): string | undefined {
  const type = (headers['content-type'] ?? 'no content type').split(';')[0].trim();
  if (status >= 300 && status < 400) return `HTTP ${status} redirect${headers.location ? ` to ${originOf(headers.location)}` : ''}, not followed`;
  if (status === 429) return `HTTP 429 rate limited${headers['retry-after'] ? ` (Retry-After ${headers['retry-after']})` : ''}`;
  if (bytes > MAX_BODY_BYTES) return `HTTP ${status} with a body over the ${Math.round(MAX_BODY_BYTES / 1024 / 1024)} MB limit`;
  if (!json && ((status >= 200 && status < 300) || status >= 500)) return `HTTP ${status} ${type}, not JSON`;
  return undefined;
}

/**
 * Whether a 5xx is the server's own answer rather than a gateway's page: any 5xx in JSON, and any other
 * than 502, 503 and 504 (the statuses a proxy or load balancer answers for a server it cannot reach,
 * RFC 9110 15.6) whatever its body. A server's 500 is reported even when its body is not JSON.
 */
export function serverError(status: number, json: boolean): boolean {
  return status >= 500 && status < 600 && (json || ![502, 503, 504].includes(status));
}

/** The kinds a transport failure falls into, for counting: the reason's words decide. */
export const TRANSPORT_KINDS = ['no-response', 'redirect', 'rate-limited', 'too-large', 'not-json'] as const;
export type TransportKind = (typeof TRANSPORT_KINDS)[number];

export function transportKind(reason: string): TransportKind {
  if (/^HTTP 3\d\d /.test(reason)) return 'redirect';
  if (/^HTTP 429 /.test(reason)) return 'rate-limited';
  if (/ MB limit$/.test(reason)) return 'too-large';
  if (/not JSON$/.test(reason)) return 'not-json';
  return 'no-response';
}

/**
 * Where a redirect points, by origin only (scheme, host, port): its path and query may carry anything
 * (a key in a query string), and so may user information before the host.
 */
export function originOf(location: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(?:[^/?#@]*@)?([^/?#@]+)/i.exec(location.trim());
  return m ? `${m[1].toLowerCase()}://${m[2].toLowerCase()}` : 'a path on the same origin';
}
