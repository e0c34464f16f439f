// Requests to the target: the key in the SERVICE-API-KEY header only (spec 5), the endpoint tag on
// every request so thresholds and the baseline compare name the endpoint.
import http from 'k6/http';
import type { RefinedResponse, ResponseType } from 'k6/http';
import { API_KEY, BASE_URL, KEY_HEADER, REQUEST_TIMEOUT } from './env.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json', [KEY_HEADER]: API_KEY };
const KEY_ONLY = { [KEY_HEADER]: API_KEY };

// A trigger refuses a phase that is not its current one; the failure status is not shown (spec 7: the
// reference answers 409, another server may answer 400), so any 4xx is an expected answer while the load
// tracks a trigger's state, not a failed request.
export const SUCCESS_OR_REFUSED = http.expectedStatuses({ min: 200, max: 299 }, { min: 400, max: 499 });
/** Probes whose every answer is information (setup's questions to the target). */
export const ANY_STATUS = http.expectedStatuses({ min: 0, max: 599 });

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
    timeout: REQUEST_TIMEOUT,
  });
}

export function query(params: Record<string, string | number | undefined>): string {
  const parts = Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(String(params[k]))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
