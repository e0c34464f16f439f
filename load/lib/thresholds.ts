// Thresholds per endpoint tag, so a failed threshold reads e.g.
// `http_req_duration{endpoint:listExperiments.deep} p(95)<300`, naming the endpoint.
export interface Limits {
  p95: number;
  p99: number;
}

export function endpointThresholds(endpoints: Record<string, Limits>, maxErrorRate: number): Record<string, string[]> {
  const t: Record<string, string[]> = {};
  for (const name of Object.keys(endpoints)) {
    t[`http_req_duration{endpoint:${name}}`] = [`p(95)<${endpoints[name].p95}`, `p(99)<${endpoints[name].p99}`];
    t[`http_req_failed{endpoint:${name}}`] = [`rate<=${maxErrorRate}`];
  }
  return t;
}

/** Stats every Trend reports; compare reads p(50), p(95), p(99) and count from the summary. */
export const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(95)', 'p(99)', 'count'];
