// setup()'s first step: the target answers and the key is accepted, or the run stops at once with a
// clear reason (exec.test.abort), instead of a minute of failed requests.
import { transportReason } from './checks.ts';
import { ALLOW_REMOTE_LOAD, API_KEY, BASE_URL, CANDIDATE_BASE_URL, PAIRED } from './env.ts';
import { ANY_STATUS, timedCall } from './http.ts';
import { abort } from './runtime.ts';

export { abort } from './runtime.ts';

/** The host of a base URL when it is not this machine (loopback), else undefined: as core/config.ts isLoopback. */
export function remoteHost(baseUrl: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(baseUrl);
  const host = (m ? m[1] : '').replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) ? undefined : host || baseUrl;
}

export async function checkTarget(): Promise<void> {
  // The rule of load:* (a target that is not loopback needs CONSOLE_ALLOW_REMOTE_LOAD=1) holds in the
  // profile too, so that a run elsewhere (Artillery's own distributed runs, npm run load:cloud) keeps it.
  for (const url of PAIRED ? [BASE_URL, CANDIDATE_BASE_URL] : [BASE_URL]) {
    const remote = remoteHost(url);
    if (remote !== undefined && !ALLOW_REMOTE_LOAD) abort(`refusing to load ${remote}: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);
  }
  const path = '/console/v1/release_pipelines?limit=1';
  // Tagged apart so that these probes stay out of every endpoint's figures.
  const anonymous = await timedCall('GET', path, { endpoint: 'setup', expected: ANY_STATUS, anonymous: true });
  if (anonymous.status === 0) abort(`target ${BASE_URL} does not answer: ${anonymous.error}`);
  if (!API_KEY) abort(`${PAIRED ? 'CONSOLE_CURRENT_API_KEY' : 'CONSOLE_API_KEY'} is empty: the SERVICE-API-KEY header needs a key (spec 5)`);
  const keyed = await timedCall('GET', path, { endpoint: 'setup', expected: ANY_STATUS });
  const network = transportReason(keyed);
  if (network) abort(`target ${BASE_URL} gives no usable answer to list release pipelines: ${network}`);
  if (keyed.status === 401 || keyed.status === 403) abort(`target ${BASE_URL} rejects the key (HTTP ${keyed.status}): check CONSOLE_API_KEY`);
  if (keyed.status !== 200) abort(`target ${BASE_URL} answers list release pipelines with HTTP ${keyed.status}, not 200 (spec 4.5)`);
}
