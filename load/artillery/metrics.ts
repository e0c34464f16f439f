// What one arrival recorded (load/lib/runtime.ts), as Artillery's own custom metrics: so that its
// periodic reports, the merge of its workers, its report file and its plugins (ensure, apdex,
// publish-metrics) carry our timings. Each timed request is a histogram value of `console.<endpoint>`
// in milliseconds with microsecond decimals (Artillery's http.response_time is whole milliseconds),
// and a count of `console.<endpoint>.requests`; each check, unexpected answer and answer that was the
// network's is a counter. The exact samples the
// statistical compare reads still travel in the workers' files (load/artillery/processor.ts):
// Artillery's histograms are sketches with 1% relative accuracy.
import type { Records } from '../lib/runtime.ts';

export const METRIC_PREFIX = 'console.';
/** A worker's event loop busy share (percent) over each second: a generator near 100% cannot keep its arrival times. */
export const GENERATOR_BUSY = `${METRIC_PREFIX}generator.event_loop_busy`;

export type ArtilleryMetric = ['histogram' | 'counter' | 'rate', string, number];

/** The settings of Artillery's metrics-by-endpoint plugin the suite's requests are counted for: its namespace. */
export interface ByEndpoint {
  prefix: string;
}

/** The counters Artillery's apdex plugin scores at the end of a run (artillery-plugin-apdex). */
export const APDEX = { satisfied: 'apdex.satisfied', tolerated: 'apdex.tolerated', frustrated: 'apdex.frustrated' };

/** The histogram of an endpoint's request durations. */
export const endpointMetric = (endpoint: string) => `${METRIC_PREFIX}${endpoint}`;
/** Requests of an endpoint, as a counter: exact where its histogram's summaries are exported as gauges (publish-metrics). */
export const requestsMetric = (endpoint: string) => `${METRIC_PREFIX}${endpoint}.requests`;
/** Answers of an endpoint that were not of the status it expects. */
export const unexpectedMetric = (endpoint: string) => `${METRIC_PREFIX}${endpoint}.unexpected`;
/** Answers of an endpoint that were the network's, not the target's (core/transport-rule.ts). */
export const networkMetric = (endpoint: string) => `${METRIC_PREFIX}${endpoint}.network_failures`;

/**
 * Each request as Artillery's HTTP engine counts its own (lib/core/engine_http.ts): `http.requests`
 * and the `http.request_rate`; an answer `http.codes.<status>`, `http.responses` and its time in
 * `http.response_time` and `http.response_time.<class>xx` (ms; the engine's is its time to the first
 * byte in whole ms, the suite's the whole exchange in µs); and, with the metrics-by-endpoint plugin,
 * the plugin's own names per endpoint (the endpoint tag as the request's name: its paths carry ids).
 * A failed request is `errors.<code>`, as the engine counts a failed one, except the one code the
 * arrival fails its virtual user with (`failure`), which Artillery counts itself.
 */
function httpMetrics(out: ArtilleryMetric[], endpoint: string, e: Records['endpoints'][string], byEndpoint?: ByEndpoint): void {
  const statuses = e.statuses ?? [];
  for (let i = 0; i < e.micros.length; i++) {
    out.push(['counter', 'http.requests', 1], ['rate', 'http.request_rate', 1]);
    const status = statuses[i] ?? 0;
    if (status === 0) continue;
    const ms = Math.round(e.micros[i]) / 1000;
    out.push(
      ['counter', `http.codes.${status}`, 1],
      ['counter', 'http.responses', 1],
      ['histogram', 'http.response_time', ms],
      ['histogram', `http.response_time.${Math.floor(status / 100)}xx`, ms],
    );
    if (byEndpoint)
      out.push(['counter', `${byEndpoint.prefix}.${endpoint}.codes.${status}`, 1], ['histogram', `${byEndpoint.prefix}.response_time.${endpoint}`, ms]);
  }
  if (byEndpoint) for (const [code, n] of Object.entries(e.errors ?? {})) out.push(['counter', `${byEndpoint.prefix}.${endpoint}.errors.${code}`, n]);
}

/** The code an arrival's virtual user fails with: its first failed request's; none when every request was answered as expected. */
export function failureOf(records: Records): string | undefined {
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    if (endpoint === 'setup') continue;
    const code = Object.keys(e.errors ?? {})[0];
    if (code !== undefined) return code;
  }
  return undefined;
}

/**
 * The Artillery metrics of `records`. Setup's probes run before Artillery starts and are left out;
 * counters of zero are left out (Artillery would show them as a metric that never moved).
 */
export function artilleryMetrics(records: Records, o: { apdexMs?: number; byEndpoint?: ByEndpoint } = {}): ArtilleryMetric[] {
  const out: ArtilleryMetric[] = [];
  const count = (name: string, n: number) => {
    if (n > 0) out.push(['counter', name, n]);
  };
  let network = 0;
  const kinds: Record<string, number> = {};
  const errors: Record<string, number> = {};
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    if (endpoint === 'setup') continue;
    httpMetrics(out, endpoint, e, o.byEndpoint);
    for (const [code, n] of Object.entries(e.errors ?? {})) errors[code] = (errors[code] ?? 0) + n;
    for (const u of e.micros) out.push(['histogram', endpointMetric(endpoint), Math.round(u) / 1000]);
    count(requestsMetric(endpoint), e.micros.length);
    // Artillery's apdex plugin counts what its HTTP engine answers; these requests are the suite's
    // own, so they are counted here by its rule (within T satisfied, within 4T tolerated). The
    // calibration request is the suite's ruler, not a request of the API's users.
    if (o.apdexMs !== undefined && endpoint !== 'calibration')
      for (const u of e.micros) {
        const ms = u / 1000;
        out.push(['counter', ms <= o.apdexMs ? APDEX.satisfied : ms <= 4 * o.apdexMs ? APDEX.tolerated : APDEX.frustrated, 1]);
      }
    count(unexpectedMetric(endpoint), e.unexpected);
    let n = 0;
    for (const [kind, k] of Object.entries(e.network)) {
      n += k;
      kinds[kind] = (kinds[kind] ?? 0) + k;
    }
    count(networkMetric(endpoint), n);
    network += n;
  }
  const levels: Record<string, { passes: number; fails: number }> = {};
  let passes = 0;
  let fails = 0;
  for (const c of Object.values(records.checks)) {
    levels[c.level] ??= { passes: 0, fails: 0 };
    const l = levels[c.level];
    l.passes += c.passes;
    l.fails += c.fails;
    passes += c.passes;
    fails += c.fails;
  }
  for (const [level, l] of Object.entries(levels)) {
    count(`${METRIC_PREFIX}checks.${level}.passed`, l.passes);
    count(`${METRIC_PREFIX}checks.${level}.failed`, l.fails);
  }
  count(`${METRIC_PREFIX}checks.passed`, passes);
  count(`${METRIC_PREFIX}checks.failed`, fails);
  count(`${METRIC_PREFIX}network_failures`, network);
  for (const [kind, n] of Object.entries(kinds)) count(`${METRIC_PREFIX}network_failures.${kind}`, n);
  // The virtual user's failure is counted by Artillery (errors.<code>, vusers.failed) when the arrival throws it.
  const failure = failureOf(records);
  if (failure !== undefined) errors[failure]--;
  for (const [code, n] of Object.entries(errors)) count(`errors.${code}`, n);
  return out;
}

/** Artillery's events emitter as a processor function receives it. */
export interface ArtilleryEvents {
  emit(kind: 'counter' | 'histogram' | 'rate', name: string, value?: number): void;
}

export function emitMetrics(events: ArtilleryEvents, records: Records, o: { apdexMs?: number; byEndpoint?: ByEndpoint } = {}): void {
  for (const [kind, name, value] of artilleryMetrics(records, o)) {
    if (kind === 'rate') events.emit('rate', name);
    else events.emit(kind, name, value);
  }
}

/** An arrival whose requests failed, thrown to Artillery so that it counts the virtual user failed (vusers.failed, errors.<code>). */
export class ArrivalFailed extends Error {
  readonly code: string;
  constructor(code: string) {
    super(`a request failed: ${code}`);
    this.code = code;
  }
}
