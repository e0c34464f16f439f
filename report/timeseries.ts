// Throughput over time of a load run. Its summary keeps totals only, so verify asks the run for
// one row per request (LOAD_REQUESTS_CSV: load/artillery/run.ts writes them) and this module folds the request
// samples into buckets: requests per endpoint per bucket and the p95 latency of each bucket. The CSV
// is deleted afterwards: it is compressed, so the secret scan could not read it, and the buckets are
// all the report needs.
import { createReadStream, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { splitCsvLine } from '../core/csv.ts';
import { quantile } from '../core/quantile.ts';

export interface Bucket {
  /** Milliseconds since the first sample. */
  t: number;
  /** Requests per endpoint tag in this bucket. */
  requests: Record<string, number>;
  /** p95 of http_req_duration over every request of the bucket, in ms (null when none), as summary.json reads its p95 (core/quantile.ts). */
  p95: number | null;
}

export interface TimeSeries {
  format: 'console-conformance.timeseries/1';
  script: string;
  bucketMs: number;
  durationMs: number;
  endpoints: string[];
  buckets: Bucket[];
}

/** The `endpoint` tag from the extra_tags column (`endpoint=x&other=y`); untagged requests are "other". */
function endpointOf(extraTags: string): string {
  for (const pair of extraTags.split('&')) {
    const [k, v] = pair.split('=');
    if (k === 'endpoint' && v) return decodeURIComponent(v);
  }
  return 'other';
}

/** A bucket size that gives a chart of about 30 to 60 points whatever the run's length. */
export function bucketFor(durationMs: number): number {
  for (const ms of [250, 500, 1000, 2000, 5000, 10000, 30000]) if (durationMs / ms <= 60) return ms;
  return 60000;
}

export interface Sample {
  time: number;
  endpoint: string;
  duration: number;
}

/** Folds request samples (one per request: its time, endpoint tag and duration) into buckets. */
export function bucketize(script: string, samples: Sample[]): TimeSeries {
  if (samples.length === 0) return { format: 'console-conformance.timeseries/1', script, bucketMs: 1000, durationMs: 0, endpoints: [], buckets: [] };
  // A loop, not Math.min(...): a baseline run has more samples than a call has room for arguments.
  let start = Infinity;
  let end = -Infinity;
  for (const s of samples) {
    start = Math.min(start, s.time);
    end = Math.max(end, s.time);
  }
  const bucketMs = bucketFor(end - start);
  const n = Math.floor((end - start) / bucketMs) + 1;
  const buckets: Bucket[] = Array.from({ length: n }, (_, i) => ({ t: i * bucketMs, requests: {}, p95: null }));
  const durations: number[][] = Array.from({ length: n }, () => []);
  for (const s of samples) {
    const i = Math.floor((s.time - start) / bucketMs);
    buckets[i].requests[s.endpoint] = (buckets[i].requests[s.endpoint] ?? 0) + 1;
    durations[i].push(s.duration);
  }
  buckets.forEach((b, i) => {
    // The project's one p95 (type 7), so a bucket's p95 and summary.json's agree on the same requests.
    b.p95 = durations[i].length === 0 ? null : Math.round(quantile(durations[i], 0.95) * 1000) / 1000;
  });
  const endpoints = [...new Set(samples.map((s) => s.endpoint))].sort();
  return { format: 'console-conformance.timeseries/1', script, bucketMs, durationMs: end - start, endpoints, buckets };
}

/** Reads the request rows (gzipped when the name ends in .gz) and keeps one sample per request. */
export async function readK6Csv(file: string): Promise<Sample[]> {
  const raw = createReadStream(file);
  const input = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let header: string[] | undefined;
  let col = { name: 0, time: 1, value: 2, tags: -1 };
  const samples: Sample[] = [];
  for await (const line of lines) {
    if (!line) continue;
    if (!header) {
      header = splitCsvLine(line);
      col = {
        name: header.indexOf('metric_name'),
        time: header.indexOf('timestamp'),
        value: header.indexOf('metric_value'),
        tags: header.indexOf('extra_tags'),
      };
      if (col.name < 0 || col.time < 0 || col.value < 0)
        throw new Error(`${file}: not a load run's request rows (no metric_name/timestamp/metric_value header)`);
      continue;
    }
    // http_req_duration has one row per request, with the request's tags: enough for both counts and latency.
    if (!line.startsWith('http_req_duration,')) continue;
    const f = splitCsvLine(line);
    samples.push({ time: Number(f[col.time]), endpoint: col.tags >= 0 ? endpointOf(f[col.tags] ?? '') : 'other', duration: Number(f[col.value]) });
  }
  return samples;
}

/** CSV in, timeseries.json out. */
export async function writeTimeSeries(script: string, csvFile: string, outFile: string): Promise<TimeSeries> {
  const series = bucketize(script, await readK6Csv(csvFile));
  writeFileSync(outFile, JSON.stringify(series) + '\n');
  return series;
}
