// setup()'s first step: the target answers and the key is accepted, or the run stops at once with a
// clear reason (exec.test.abort), instead of a minute of failed requests.
import exec from 'k6/execution';
import http from 'k6/http';
import { transportReason } from './checks.ts';
import { API_KEY, BASE_URL, KEY_HEADER, REQUEST_TIMEOUT } from './env.ts';

/** Stops the whole run with `reason`. exec.test.abort throws, but its declared type is void, not never. */
export function abort(reason: string): never {
  exec.test.abort(reason);
  throw new Error(reason);
}

export function checkTarget(): void {
  const url = `${BASE_URL}/console/v1/release_pipelines?limit=1`;
  // Tagged apart so that these probes stay out of every endpoint's figures.
  const tags = { endpoint: 'setup', name: 'setup' };
  const params = { tags, responseCallback: http.expectedStatuses({ min: 0, max: 599 }), timeout: REQUEST_TIMEOUT };
  const anonymous = http.get(url, params);
  if (anonymous.status === 0) abort(`target ${BASE_URL} does not answer: ${anonymous.error}`);
  if (!API_KEY) abort('CONSOLE_API_KEY is empty: the SERVICE-API-KEY header needs a key (spec 5)');
  const keyed = http.get(url, { ...params, headers: { [KEY_HEADER]: API_KEY } });
  const network = transportReason(keyed);
  if (network) abort(`target ${BASE_URL} gives no usable answer to list release pipelines: ${network}`);
  if (keyed.status === 401 || keyed.status === 403) abort(`target ${BASE_URL} rejects the key (HTTP ${keyed.status}): check CONSOLE_API_KEY`);
  if (keyed.status !== 200) abort(`target ${BASE_URL} answers list release pipelines with HTTP ${keyed.status}, not 200 (spec 4.5)`);
}
