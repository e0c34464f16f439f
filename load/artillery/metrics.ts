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

export type ArtilleryMetric = ['histogram' | 'counter', string, number];

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
 * The Artillery metrics of `records`. Setup's probes run before Artillery starts and are left out;
 * counters of zero are left out (Artillery would show them as a metric that never moved).
 */
export function artilleryMetrics(records: Records, o: { apdexMs?: number } = {}): ArtilleryMetric[] {
  const out: ArtilleryMetric[] = [];
  const count = (name: string, n: number) => {
    if (n > 0) out.push(['counter', name, n]);
  };
  let network = 0;
  const kinds: Record<string, number> = {};
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    if (endpoint === 'setup') continue;
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
  return out;
}

/** Artillery's events emitter as a processor function receives it. */
export interface ArtilleryEvents {
  emit(kind: 'counter' | 'histogram', name: string, value: number): void;
}

export function emitMetrics(events: ArtilleryEvents, records: Records, o: { apdexMs?: number } = {}): void {
  for (const [kind, name, value] of artilleryMetrics(records, o)) events.emit(kind, name, value);
}
