// What a worker recorded, as Artillery counters, for runs whose workers' files cannot be read
// afterwards (Artillery's Fargate, Lambda and ACI runs: each container's disk goes with it). Counters
// are what Artillery's own merge adds exactly across workers and containers, so durations travel as
// per-endpoint histogram buckets (load/compare/samples.ts: 2% buckets, every request counted) and
// checks, counters, rates and the writes to the target as counts; the report's counters are read back
// into records here.
import type { LoadWrites, Side } from '../../core/formats.ts';
import { bucketOf, bucketValue } from '../compare/samples.ts';
import type { Records } from '../lib/runtime.ts';
import { PER_RESOURCE, type PerResource, sideWrites } from '../lib/writes.ts';

const PREFIX = 'console.';

/** The counters that stand for `records` (the rules a gate held are left out: they do not add). */
export function toCounters(records: Records): [string, number][] {
  const out: [string, number][] = [];
  for (const [key, r] of Object.entries(records.metrics)) {
    if (r.type === 'counter') out.push([`${PREFIX}counter ${key}`, r.sum]);
    else if (r.type === 'rate') {
      if (r.passes) out.push([`${PREFIX}rate+ ${key}`, r.passes]);
      if (r.fails) out.push([`${PREFIX}rate- ${key}`, r.fails]);
    } else if (r.type === 'trend') {
      const buckets = new Map<number, number>();
      for (const u of r.micros) {
        const b = bucketOf(u / 1000);
        buckets.set(b, (buckets.get(b) ?? 0) + 1);
      }
      for (const [b, n] of buckets) out.push([`${PREFIX}trend ${b} ${key}`, n]);
    }
  }
  for (const [name, c] of Object.entries(records.checks)) {
    if (c.passes) out.push([`${PREFIX}check+ ${name}`, c.passes]);
    if (c.fails) out.push([`${PREFIX}check- ${name}`, c.fails]);
  }
  for (const [side, w] of Object.entries(records.writes ?? {}) as [Side, LoadWrites][]) {
    for (const what of PER_RESOURCE) for (const [id, n] of Object.entries(w[what])) out.push([`${PREFIX}write ${side} ${what} ${id}`, n]);
    if (w.metricsCreated) out.push([`${PREFIX}write ${side} metricsCreated`, w.metricsCreated]);
    if (w.metricsUpdated) out.push([`${PREFIX}write ${side} metricsUpdated`, w.metricsUpdated]);
  }
  return out;
}

/** Records from an Artillery report's counters (each duration read as its bucket's middle, within 1%). */
export function fromCounters(counters: Record<string, number>): Records {
  const records: Records = { metrics: {}, checks: {} };
  for (const [name, n] of Object.entries(counters)) {
    if (!name.startsWith(PREFIX)) continue;
    const rest = name.slice(PREFIX.length);
    const space = rest.indexOf(' ');
    const kind = rest.slice(0, space);
    const tail = rest.slice(space + 1);
    if (kind === 'counter') records.metrics[tail] = { type: 'counter', sum: n };
    else if (kind === 'rate+' || kind === 'rate-') {
      const r = records.metrics[tail] ?? { type: 'rate', passes: 0, fails: 0 };
      if (r.type === 'rate' && kind === 'rate+') r.passes += n;
      if (r.type === 'rate' && kind === 'rate-') r.fails += n;
      records.metrics[tail] = r;
    } else if (kind === 'trend') {
      const cut = tail.indexOf(' ');
      const bucket = Number(tail.slice(0, cut));
      const key = tail.slice(cut + 1);
      const r = records.metrics[key] ?? { type: 'trend', micros: [] };
      if (r.type === 'trend') for (let i = 0; i < n; i++) r.micros.push(bucketValue(bucket) * 1000);
      records.metrics[key] = r;
    } else if (kind === 'check+' || kind === 'check-') {
      const c = records.checks[tail] ?? { passes: 0, fails: 0 };
      if (kind === 'check+') c.passes += n;
      else c.fails += n;
      records.checks[tail] = c;
    } else if (kind === 'write') {
      const [side, what, ...id] = tail.split(' ') as [Side, PerResource | 'metricsCreated' | 'metricsUpdated', ...string[]];
      const w = sideWrites(records, side);
      if (what === 'metricsCreated' || what === 'metricsUpdated') w[what] += n;
      else if (PER_RESOURCE.includes(what)) w[what][id.join(' ')] = (w[what][id.join(' ')] ?? 0) + n;
    }
  }
  return records;
}
