// npm run reliability:memory -- [--minutes N] [--paging-seconds N] [--scale N] [--limit-mb N]
// A long benchmark (not part of npm test): the reference server's resident memory under load.
//  1. Mutation load for --minutes (default 5) on a database file: RSS sampled every 10 s; it must level
//     off (the highest sample of the last 40% of the run at most 10% + 16 MB above the highest before).
//  2. Paging load on a server seeded with --scale experiments (default 100,000): RSS sampled every 2 s;
//     it must stay under --limit-mb (default 300).
// Prints every sample. Exit 0 both hold, 1 one does not, 3 bad options or the server would not start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail as failCommand, parseCommand } from '../../core/command.ts';
import { callServer, startServer, type Server } from './server.ts';
import { EXPERIMENT_STATUSES, SPEC_LIMITS } from '../../contracts/index.ts';

const HELP = `usage: npm run reliability:memory -- [options]

Resident memory (RSS) of the reference server under load, sampled and printed.

  --minutes N         mutation load duration (default 5)
  --paging-seconds N  paging load duration at scale (default 60)
  --scale N           experiments seeded for the paging phase (default 100000)
  --limit-mb N        RSS limit of the paging phase in MB (default 300)
  --workers N         concurrent clients (default 8)
  --help              this text

Environment: none read (it starts its own reference server on a free loopback port).
Exit 0 memory levels off and stays under the limit, 1 it does not, 3 bad options or no server.`;

const NAME = 'reliability:memory';
function fail(reason: string): never {
  return failCommand(NAME, reason);
}

const { values } = parseCommand({
  name: NAME,
  help: HELP,
  options: {
    minutes: { type: 'string' },
    'paging-seconds': { type: 'string' },
    scale: { type: 'string' },
    'limit-mb': { type: 'string' },
    workers: { type: 'string' },
  },
});
const num = (v: string | undefined, name: string, fallback: number, min: number) => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) fail(`${name} must be a number of at least ${min}, got ${JSON.stringify(v)}`);
  return n;
};
const minutes = num(values.minutes, '--minutes', 5, 0.1);
const pagingSeconds = num(values['paging-seconds'], '--paging-seconds', 60, 1);
const scale = Math.round(num(values.scale, '--scale', 100_000, 1));
const limitMb = num(values['limit-mb'], '--limit-mb', 300, 1);
const workers = Math.round(num(values.workers, '--workers', 8, 1));

const MB = 1024 * 1024;
const mb = (b: number) => (b / MB).toFixed(1);

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
}

/** Runs `one` in `workers` loops until `until`, sampling RSS every `everyMs`. */
async function load(
  server: Server,
  seconds: number,
  everyMs: number,
  one: (w: number, i: number) => Promise<number>,
): Promise<{ samples: { t: number; rss: number; rps: number }[]; tally: Tally }> {
  const tally: Tally = { requests: 0, byStatus: new Map() };
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  const samples: { t: number; rss: number; rps: number }[] = [{ t: 0, rss: server.rss(), rps: 0 }];
  let lastCount = 0;
  let lastT = started;
  const timer = setInterval(() => {
    const now = Date.now();
    samples.push({ t: (now - started) / 1000, rss: server.rss(), rps: ((tally.requests - lastCount) * 1000) / (now - lastT) });
    lastCount = tally.requests;
    lastT = now;
  }, everyMs);
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; Date.now() < until; i++) {
        const status = await one(w, i);
        tally.requests++;
        tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
      }
    }),
  );
  clearInterval(timer);
  samples.push({ t: (Date.now() - started) / 1000, rss: server.rss(), rps: 0 });
  return { samples, tally };
}

function printSamples(samples: { t: number; rss: number; rps: number }[]): void {
  for (const s of samples) console.log(`  t=${s.t.toFixed(0).padStart(4)} s  rss ${mb(s.rss).padStart(7)} MB${s.rps ? `  ${Math.round(s.rps)} req/s` : ''}`);
}

const statusLine = (t: Tally) =>
  [...t.byStatus.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}=${n}`)
    .join(' ');

const dir = mkdtempSync(join(tmpdir(), 'cc-memory-'));
let ok = true;
try {
  // Phase 1: mutation load.
  let server: Server;
  try {
    server = await startServer({ db: join(dir, 'mutation.db') });
  } catch (err) {
    fail(`cannot start the reference server: ${(err as Error).message}`);
  }
  const gates = ['gate_cc_alpha', 'gate_cc_beta', 'gate_cc_gamma', 'gate_cc_delta', ...Array.from({ length: 8 }, (_, i) => `gate_seed_${i + 1}`)];
  const pool = 50;
  for (let i = 0; i < pool; i++) await callServer(server, 'POST', '/console/v1/metrics', { name: `cc_mem_pool_${i}`, type: 'sum' });
  console.log(`mutation load: ${workers} clients for ${minutes} min on a database file; RSS every 10 s`);
  const mutation = await load(server, minutes * 60, 10_000, async (w, i) => {
    const pick = i % 10;
    let r;
    if (pick < 3)
      r = await callServer(server, 'POST', `/console/v1/metrics/cc_mem_pool_${(w * 7 + i) % pool}::sum`, { description: `d ${w} ${i}`, tags: [`t${i % 13}`] });
    else if (pick < 5)
      r = await callServer(server, 'POST', '/console/v1/metrics', {
        name: `cc_mem_${w}_${i}`,
        type: 'mean',
        description: 'x'.repeat(SPEC_LIMITS.createMetric.description.maxLength),
      });
    else if (pick < 7)
      r = await callServer(server, 'PATCH', `/console/v1/experiments/exp_cc_overrides_${1 + (i % 3)}/overrides`, {
        overrides: [{ type: 'gate', id: `g${i}`, groupID: 'control' }],
        userIDOverrides: [{ groupID: 'test', ids: [`u${w}`, `u${i}`] }],
      });
    else if (pick < 9) r = await callServer(server, 'PUT', `/console/v1/gates/${gates[(w + i) % gates.length]}/${i % 2 ? 'enable' : 'disable'}`);
    else
      r = await callServer(server, 'POST', `/console/v1/gates/${gates[(w + i) % gates.length]}/rules`, {
        rules: [{ name: `r ${w} ${i}`, passPercentage: i % 100 }],
      });
    return r.status;
  });
  await server.stop();
  printSamples(mutation.samples);
  const rss = mutation.samples.map((s) => s.rss);
  const cut = Math.floor(rss.length * 0.6);
  const early = Math.max(...rss.slice(0, cut));
  const late = Math.max(...rss.slice(cut));
  const levels = late <= early * 1.1 + 16 * MB;
  console.log(
    `mutation load: ${mutation.tally.requests} requests (${statusLine(mutation.tally)}); RSS peak ${mb(early)} MB in the first 60%, ${mb(late)} MB after: ${levels ? 'levels off' : 'STILL GROWING'}`,
  );
  const fivexx = [...mutation.tally.byStatus.keys()].filter((s) => s >= 500 || s < 200);
  if (!levels || fivexx.length > 0) ok = false;

  // Phase 2: paging load at scale.
  const t0 = Date.now();
  try {
    server = await startServer({ db: join(dir, 'paging.db'), scale, timeoutMs: 600_000 });
  } catch (err) {
    fail(`cannot start the reference server at scale ${scale}: ${(err as Error).message}`);
  }
  console.log(`\npaging load: scale ${scale} (seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s), ${workers} clients for ${pagingSeconds} s; RSS every 2 s`);
  const pages = Math.ceil(scale / 100);
  const statuses = EXPERIMENT_STATUSES;
  const paging = await load(server, pagingSeconds, 2000, async (w, i) => {
    const page = 1 + ((w * 7919 + i * 104_729) % pages);
    const q =
      i % 4 === 0
        ? `status=${statuses[i % statuses.length]}&limit=100&page=${1 + (page % 50)}`
        : i % 4 === 1
          ? `limit=20&page=${1 + ((page * 5) % (pages * 5))}`
          : `limit=100&page=${page}`;
    const r = await callServer(server, 'GET', i % 25 === 0 ? '/console/v1/release_pipelines?limit=10' : `/console/v1/experiments?${q}`);
    return r.status;
  });
  await server.stop();
  printSamples(paging.samples);
  const peak = Math.max(...paging.samples.map((s) => s.rss));
  const under = peak < limitMb * MB;
  console.log(
    `paging load: ${paging.tally.requests} requests (${statusLine(paging.tally)}); RSS peak ${mb(peak)} MB, limit ${limitMb} MB: ${under ? 'under' : 'OVER'}`,
  );
  if (!under || [...paging.tally.byStatus.keys()].some((s) => s !== 200)) ok = false;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(ok ? 'reliability:memory: memory levels off under mutation load and stays under the limit at scale' : 'reliability:memory: FAILED (see above)');
process.exit(ok ? 0 : 1);
