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

const tagged = (key: string, metric: string, tag: string) => new RegExp(`^${metric}\\{${tag}:([^}]+)\\}$`).exec(key)?.[1];

/**
 * The Artillery metrics of `records`. Setup's probes run before Artillery starts and are left out;
 * counters of zero are left out (Artillery would show them as a metric that never moved).
 */
export function artilleryMetrics(records: Records, o: { apdexMs?: number } = {}): ArtilleryMetric[] {
  const out: ArtilleryMetric[] = [];
  const count = (name: string, n: number) => {
    if (n > 0) out.push(['counter', name, n]);
  };
  for (const [key, r] of Object.entries(records.metrics)) {
    let endpoint = tagged(key, 'http_req_duration', 'endpoint');
    if (endpoint && endpoint !== 'setup' && r.type === 'trend') {
      for (const u of r.micros) out.push(['histogram', endpointMetric(endpoint), Math.round(u) / 1000]);
      count(requestsMetric(endpoint), r.micros.length);
      // Artillery's apdex plugin counts what its HTTP engine answers; these requests are the suite's
      // own, so they are counted here by its rule (within T satisfied, within 4T tolerated). The
      // calibration request is the suite's ruler, not a request of the API's users.
      if (o.apdexMs !== undefined && endpoint !== 'calibration')
        for (const u of r.micros) {
          const ms = u / 1000;
          out.push(['counter', ms <= o.apdexMs ? APDEX.satisfied : ms <= 4 * o.apdexMs ? APDEX.tolerated : APDEX.frustrated, 1]);
        }
      continue;
    }
    endpoint = tagged(key, 'http_req_failed', 'endpoint');
    if (endpoint && endpoint !== 'setup' && r.type === 'rate') {
      count(unexpectedMetric(endpoint), r.passes);
      continue;
    }
    endpoint = tagged(key, 'load_transport_failures', 'endpoint');
    if (endpoint && endpoint !== 'setup' && r.type === 'rate') {
      count(networkMetric(endpoint), r.passes);
      continue;
    }
    const level = tagged(key, 'checks', 'level');
    if (level && r.type === 'rate') {
      count(`${METRIC_PREFIX}checks.${level}.passed`, r.passes);
      count(`${METRIC_PREFIX}checks.${level}.failed`, r.fails);
      continue;
    }
    if (key === 'checks' && r.type === 'rate') {
      count(`${METRIC_PREFIX}checks.passed`, r.passes);
      count(`${METRIC_PREFIX}checks.failed`, r.fails);
      continue;
    }
    if (key === 'load_transport_failures' && r.type === 'rate') count(`${METRIC_PREFIX}network_failures`, r.passes);
    const kind = tagged(key, 'load_transport_failures', 'kind');
    if (kind && r.type === 'rate') count(`${METRIC_PREFIX}network_failures.${kind}`, r.passes);
  }
  return out;
}

/** Artillery's events emitter as a processor function receives it. */
export interface ArtilleryEvents {
  emit(kind: 'counter' | 'histogram', name: string, value: number): void;
}

export function emitMetrics(events: ArtilleryEvents, records: Records, o: { apdexMs?: number } = {}): void {
  for (const [kind, name, value] of artilleryMetrics(records, o)) events.emit(kind, name, value);
}
