// npm run bench:generator -- [--rate R] [--seconds S]
// What the load generator costs per request, side by side on one reference server: this suite's
// processor on Artillery (the paging profile: its mix of requests, each timed in µs, checked against
// status, envelope and schema, and given to Artillery as its metrics), Artillery's own HTTP engine
// (the same number of requests per arrival, each page 1 of the experiments, no checks), and autocannon
// (MIT; the same request at the same request rate, in this process). Each figure is the generator's CPU
// time over its load's span (Artillery's start-up left out) per request. Figures, not a test: on a
// machine other work shares they move with it; run it nice and read the three side by side.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ROOT } from '../../core/config.ts';
import { readRunSummary, type RunSummary } from '../../core/formats.ts';
import { startReference } from '../../core/reference.ts';
import { cpuBetween } from '../../load/artillery/delivery.ts';
import { ARTILLERY_BIN, cpuSecondsOf } from '../../load/artillery/run.ts';
import { spawnLoad } from '../../load/command/spawn-load.ts';

const { values } = parseArgs({ options: { rate: { type: 'string' }, seconds: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(`usage: npm run bench:generator -- [--rate ARRIVALS_PER_S (default 100)] [--seconds S (default 10)]

Starts a reference server on a free loopback port and drives it three ways, one after another: the
paging profile on Artillery (this suite), Artillery's own HTTP engine (as many requests per arrival as
the profile sent, page 1 of the experiments) and autocannon (the same request rate). Prints requests,
rate and the generator's CPU ms per request of each. Writes only to a temporary folder.`);
  process.exit(0);
}
const rate = Number(values.rate ?? 100);
const seconds = Number(values.seconds ?? 10);
if (!(rate > 0 && seconds >= 2)) {
  console.error('bench:generator: --rate must be positive and --seconds 2 or more (exit 3)');
  process.exit(3);
}

const work = mkdtempSync(join(tmpdir(), 'cc-bench-generator-'));
const server = await startReference({ stderr: 'ignore' });
const PATH = '/console/v1/experiments?page=1&limit=20';
const rows: { generator: string; requests: number; seconds: number; cpuMs: number }[] = [];
try {
  // 1. This suite: the paging profile at `rate` arrivals a second.
  const reports = join(work, 'ours');
  const shape = { config: { phases: [{ duration: seconds, arrivalRate: rate, maxVusers: rate * seconds }] } };
  const ours = await spawnLoad(['paging', '--overrides', JSON.stringify(shape)], reports, { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey });
  const s = readRunSummary(join(reports, 'load/paging/summary.json')) as RunSummary;
  const requests = Object.values(s.endpoints).reduce((n, e) => n + e.count, 0);
  if (!s.delivery?.cpuMsPer1000Requests) throw new Error(`the suite's run gave no CPU figure (exit ${ours.code})`);
  rows.push({ generator: `suite (paging profile, exit ${ours.code})`, requests, seconds: s.durationMs / 1000, cpuMs: s.delivery.cpuMsPer1000Requests / 1000 });
  const perArrival = Math.max(1, Math.round(requests / (s.delivery.started || rate * seconds)));

  // 2. Artillery's own HTTP engine: the same arrivals, each `perArrival` requests of page 1.
  const script = {
    config: { target: server.baseUrl, phases: [{ duration: seconds, arrivalRate: rate, rampTo: rate, maxVusers: rate * seconds }] },
    scenarios: [
      { flow: Array.from({ length: perArrival }, () => ({ get: { url: PATH, headers: { 'SERVICE-API-KEY': '{{ $processEnvironment.CONSOLE_API_KEY }}' } } })) },
    ],
  };
  writeFileSync(join(work, 'engine.json'), JSON.stringify(script));
  const out = join(work, 'engine-report.json');
  const child = spawn(process.execPath, [ARTILLERY_BIN, 'run', '--quiet', '--output', out, join(work, 'engine.json')], {
    cwd: ROOT,
    env: { ...process.env, CONSOLE_API_KEY: server.apiKey, ARTILLERY_DISABLE_TELEMETRY: 'true' },
    stdio: 'ignore',
  });
  const samples: [number, number][] = [];
  const poll = setInterval(() => {
    const used = cpuSecondsOf(child.pid);
    if (used !== undefined) samples.push([Date.now(), used]);
  }, 250);
  await new Promise((done) => child.on('close', done));
  clearInterval(poll);
  const report = JSON.parse(readFileSync(out, 'utf8')) as { aggregate: { counters: Record<string, number>; firstCounterAt: number; lastCounterAt: number } };
  const a = report.aggregate;
  const engineRequests = a.counters['http.requests'] ?? 0;
  const engineCpu = cpuBetween(samples, a.firstCounterAt, a.lastCounterAt) ?? 0;
  rows.push({
    generator: "Artillery's HTTP engine",
    requests: engineRequests,
    seconds: (a.lastCounterAt - a.firstCounterAt) / 1000,
    cpuMs: (engineCpu * 1000) / engineRequests,
  });

  // 3. autocannon in this process, at the same request rate.
  const before = process.cpuUsage();
  const t0 = Date.now();
  const result = await autocannon({
    url: server.baseUrl + PATH,
    headers: { 'SERVICE-API-KEY': server.apiKey },
    connections: 10,
    overallRate: Math.round((requests / (s.durationMs / 1000)) * 1),
    duration: seconds,
  });
  const used = process.cpuUsage(before);
  const total = result.requests.total;
  rows.push({ generator: 'autocannon', requests: total, seconds: (Date.now() - t0) / 1000, cpuMs: (used.user + used.system) / 1000 / total });
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(`bench:generator: ${rate} arrivals/s for ${seconds} s, reference on loopback`);
console.log(`  ${'generator'.padEnd(34)} ${'requests'.padStart(8)} ${'req/s'.padStart(7)} ${'CPU ms/req'.padStart(10)}`);
for (const r of rows)
  console.log(
    `  ${r.generator.padEnd(34)} ${String(r.requests).padStart(8)} ${(r.requests / r.seconds).toFixed(0).padStart(7)} ${r.cpuMs.toFixed(3).padStart(10)}`,
  );
