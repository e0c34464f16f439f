// What a worker recorded, as Artillery counters, for runs whose workers' files cannot be read
// afterwards (Artillery's Fargate, Lambda and ACI runs: each container's disk goes with it). Counters
// are what Artillery's own merge adds exactly across workers and containers, so durations travel as
// per-endpoint histogram buckets (load/compare/samples.ts: 2% buckets, every request counted) and
// the answers per endpoint, checks, counters and the writes to the target as counts; the report's counters are read back
// into records here.
import type { LoadWrites, Side } from '../../core/formats.ts';
import { bucketOf, bucketValue } from '../compare/samples.ts';
import type { TransportKind } from '../../core/transport-rule.ts';
import { type CheckLevel, endpointOf, newRecords, type Records } from '../lib/runtime.ts';
import { PER_RESOURCE, type PerResource, sideWrites } from '../lib/writes.ts';

const PREFIX = 'console.';

const buckets = (micros: number[]): Map<number, number> => {
  const out = new Map<number, number>();
  for (const u of micros) {
    const b = bucketOf(u / 1000);
    out.set(b, (out.get(b) ?? 0) + 1);
  }
  return out;
};

/** The counters that stand for `records` (the rules a gate held are left out: they do not add; so are the candidate's answers, a paired run's only). */
export function toCounters(records: Records): [string, number][] {
  const out: [string, number][] = [];
  const add = (name: string, n: number) => {
    if (n) out.push([`${PREFIX}${name}`, n]);
  };
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    for (const [b, n] of buckets(e.micros)) add(`duration ${b} ${endpoint}`, n);
    for (const [b, n] of buckets(e.expectedMicros)) add(`expected ${b} ${endpoint}`, n);
    add(`unexpected ${endpoint}`, e.unexpected);
    add(`looked ${endpoint}`, e.looked);
    for (const [kind, n] of Object.entries(e.network)) add(`network ${kind} ${endpoint}`, n);
  }
  for (const [name, c] of Object.entries(records.checks)) {
    add(`check+ ${c.level} ${c.endpoint} ${name}`, c.passes);
    add(`check- ${c.level} ${c.endpoint} ${name}`, c.fails);
  }
  for (const [name, n] of Object.entries(records.counters)) add(`counter ${name}`, n);
  for (const [side, w] of Object.entries(records.writes ?? {}) as [Side, LoadWrites][]) {
    for (const what of PER_RESOURCE) for (const [id, n] of Object.entries(w[what])) add(`write ${side} ${what} ${id}`, n);
    add(`write ${side} metricsCreated`, w.metricsCreated);
    add(`write ${side} metricsUpdated`, w.metricsUpdated);
  }
  return out;
}

/** `a b rest` split at its first space: `[a, 'b rest']`. */
const cut = (text: string): [string, string] => {
  const i = text.indexOf(' ');
  return i < 0 ? [text, ''] : [text.slice(0, i), text.slice(i + 1)];
};

/** Records from an Artillery report's counters (each duration read as its bucket's middle, within 1%). */
export function fromCounters(counters: Record<string, number>): Records {
  const records = newRecords();
  for (const [name, n] of Object.entries(counters)) {
    if (!name.startsWith(PREFIX)) continue;
    const [kind, tail] = cut(name.slice(PREFIX.length));
    if (kind === 'duration' || kind === 'expected') {
      const [bucket, endpoint] = cut(tail);
      const e = endpointOf(endpoint, records);
      const into = kind === 'duration' ? e.micros : e.expectedMicros;
      for (let i = 0; i < n; i++) into.push(bucketValue(Number(bucket)) * 1000);
    } else if (kind === 'unexpected') endpointOf(tail, records).unexpected += n;
    else if (kind === 'looked') endpointOf(tail, records).looked += n;
    else if (kind === 'network') {
      const [k, endpoint] = cut(tail) as [TransportKind, string];
      const e = endpointOf(endpoint, records);
      e.network[k] = (e.network[k] ?? 0) + n;
    } else if (kind === 'counter') records.counters[tail] = (records.counters[tail] ?? 0) + n;
    else if (kind === 'check+' || kind === 'check-') {
      const [level, rest] = cut(tail) as [CheckLevel, string];
      const [endpoint, check] = cut(rest);
      const c = records.checks[check] ?? { level, endpoint, passes: 0, fails: 0 };
      if (kind === 'check+') c.passes += n;
      else c.fails += n;
      records.checks[check] = c;
    } else if (kind === 'write') {
      const [side, what, ...id] = tail.split(' ') as [Side, PerResource | 'metricsCreated' | 'metricsUpdated', ...string[]];
      const w = sideWrites(records, side);
      if (what === 'metricsCreated' || what === 'metricsUpdated') w[what] += n;
      else if (PER_RESOURCE.includes(what)) w[what][id.join(' ')] = (w[what][id.join(' ')] ?? 0) + n;
    }
  }
  return records;
}
