// Requests to the target: the key in the SERVICE-API-KEY header only (spec 5), the endpoint tag on
// every request so thresholds and the baseline compare name the endpoint.
import http from 'k6/http';
import type { RefinedResponse, ResponseType } from 'k6/http';
import { API_KEY, BASE_URL, KEY_HEADER } from './env.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json', [KEY_HEADER]: API_KEY };
const KEY_ONLY = { [KEY_HEADER]: API_KEY };

// Trigger operations answer 409 when the phase is not current (reference decision, docs/development.md);
// that is an expected answer while the load tracks a trigger's state, not a failed request.
export const SUCCESS_OR_CONFLICT = http.expectedStatuses({ min: 200, max: 299 }, 409);

export interface CallOptions {
  body?: unknown;
  endpoint: string;
  expected?: ReturnType<typeof http.expectedStatuses>;
}

export function call(method: string, path: string, opts: CallOptions): RefinedResponse<ResponseType> {
  const body = opts.body === undefined ? null : JSON.stringify(opts.body);
  return http.request(method, BASE_URL + path, body, {
    headers: body === null ? KEY_ONLY : JSON_HEADERS,
    tags: { endpoint: opts.endpoint, name: opts.endpoint },
    responseCallback: opts.expected,
  });
}

export function query(params: Record<string, string | number | undefined>): string {
  const parts = Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(String(params[k]))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
