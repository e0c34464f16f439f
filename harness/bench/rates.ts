// npm run bench:rates -- [--scripts paging,mutation] [--rates 100,200,400,800] [--seconds S]
// Each load profile stepped up in rate against one reference server run apart (as a staging is: the
// manifest's budget bounds the writes, so past it the mutation profile's arrivals update the same
// metrics at once): one short phase per rate, each run's delivery against its schedule, the generator's
// CPU per request and the exit code. Figures, not a test: on a shared machine they move with its load.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readRunSummary, type RunSummary } from '../../core/formats.ts';
import { startReference } from '../../core/reference.ts';
import { spawnLoad } from '../../load/command/spawn-load.ts';

const HELP = `usage: npm run bench:rates -- [--scripts paging,mutation] [--rates 100,200,400,800] [--seconds 5]

Starts a reference server on a free loopback port and runs each profile once per rate, a phase of
--seconds at that many arrivals a second (VUs to spare: a generator behind shows as late, not
dropped), against it as against a target. Prints per run: arrivals asked and started, the rate
started over the phases' time and the seconds the arrivals took, the generator's busiest period,
its CPU per request, the exit code and its reason. Writes only to a temporary folder.`;

const { values } = parseArgs({
  options: { scripts: { type: 'string' }, rates: { type: 'string' }, seconds: { type: 'string' }, help: { type: 'boolean' } },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const scripts = (values.scripts ?? 'paging,mutation').split(',');
const rates = (values.rates ?? '100,200,400,800').split(',').map(Number);
const seconds = Number(values.seconds ?? 5);
if (!scripts.every((s) => s === 'paging' || s === 'mutation') || !rates.every((r) => r > 0) || !(seconds >= 2)) {
  console.error('bench:rates: --scripts paging,mutation; --rates positive numbers; --seconds 2 or more (exit 3)');
  process.exit(3);
}

const work = mkdtempSync(join(tmpdir(), 'cc-bench-rates-'));
const server = await startReference({ stderr: 'ignore' });
const rows: string[] = ['script    rate/s  asked  started  started/s  took s  busy%  CPU ms/req  exit  reason'];
try {
  for (const script of scripts)
    for (const rate of rates) {
      const reports = join(work, `${script}-${rate}`);
      const shape = { config: { phases: [{ duration: seconds, arrivalRate: rate, maxVusers: rate * seconds }] } };
      const r = await spawnLoad([script, '--overrides', JSON.stringify(shape)], reports, { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey });
      let s: RunSummary | undefined;
      try {
        s = readRunSummary(join(reports, 'load', script, 'summary.json')) as RunSummary;
      } catch {
        s = undefined;
      }
      const d = s?.delivery;
      const sched = d?.schedule?.[0];
      const startedInPhases = sched ? sched.periods.reduce((n, p) => n + p.started, 0) : undefined;
      const busy = d?.generators?.[0]?.busyPct;
      const reason = (s?.verdict?.note ?? r.out.trim().split('\n').at(-1) ?? '').slice(0, 160);
      const row = [
        script.padEnd(9),
        String(rate).padStart(6),
        String(d?.asked ?? '-').padStart(6),
        String(d?.started ?? '-').padStart(8),
        (startedInPhases === undefined ? '-' : (startedInPhases / seconds).toFixed(0)).padStart(10),
        String(sched?.tookSeconds ?? '-').padStart(7),
        String(busy ?? '-').padStart(6),
        (d?.cpuMsPer1000Requests === undefined ? '-' : (d.cpuMsPer1000Requests / 1000).toFixed(2)).padStart(11),
        String(r.code).padStart(5),
        ` ${reason}`,
      ].join(' ');
      console.log(row);
      rows.push(row);
    }
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(rows.join('\n'));
