// The end-of-test data k6 passes to handleSummary (its JSON summary format), as far as this suite
// reads it; @types/k6 does not declare it.
export interface MetricData {
  type: 'counter' | 'gauge' | 'rate' | 'trend';
  /** e.g. count and rate for a counter; avg, max, 'p(95)', count for a trend; rate, passes, fails for a rate. */
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface CheckData {
  name: string;
  passes: number;
  fails: number;
}

export interface GroupData {
  name?: string;
  checks?: CheckData[];
  groups?: GroupData[];
}

export interface SummaryData {
  metrics: Record<string, MetricData>;
  root_group?: GroupData;
  state?: { testRunDurationMs?: number };
}
