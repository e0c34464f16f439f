// npm run bench:scale -- [--scales 200,50000] [--rounds 1] [--variant NAME]...
// The conformance suite's cost against the reference seeded small and large, side by side in one run:
// requests (counted by a faithful proxy in front of each reference), wall time, and requests per test
// and per clause checked, with the ratio of the largest scale to the smallest. The list budget
// (CONSOLE_LIST_BUDGET, core/config.ts) is what should bound the cost, not the target's size: the
// target figure is a ratio within 1.5. Loopback only; each run is one bounded suite run.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fail, integerOption, parseCommand } from '../../core/command.ts';
import { ROOT } from '../../core/config.ts';
import { readConformance } from '../../core/formats.ts';
import { median } from '../../core/quantile.ts';
import { startReference } from '../../core/reference.ts';
import { startProxy } from '../transport/proxy.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';

const HELP = `usage: npm run bench:scale -- [--scales 200,50000] [--rounds 1] [--variant NAME]...

  --scales A,B,...  experiments to seed, one reference each (default 200,50000)
  --rounds N        suite runs per scale, taking turns; the median run is reported (default 1)
  --variant NAME    a legal variant every reference runs with (page-cap:50, say); repeatable
  -h, --help        this text

Environment: CONSOLE_LIST_BUDGET is passed on to the suite (default of core/config.ts); nothing else read.
Exit 0 measured (the figures are printed, not judged), 3 bad arguments or a reference that does not start.`;

const { values } = parseCommand({
  name: 'bench:scale',
  help: HELP,
  options: { scales: { type: 'string' }, rounds: { type: 'string' }, variant: { type: 'string', multiple: true } },
});
const scales = (values.scales ?? '200,50000').split(',').map((s) => integerOption('bench:scale', '--scales', s, { min: 0, fallback: 200 }));
if (scales.length < 2) fail('bench:scale', '--scales needs at least two scales to compare');
const rounds = integerOption('bench:scale', '--rounds', values.rounds, { min: 1, fallback: 1 });
const variants = (values.variant as string[] | undefined) ?? [];

interface Run {
  requests: number;
  seconds: number;
  tests: number;
  checked: number;
  verdict: string;
}

async function runOnce(scale: number): Promise<Run> {
  const server = await startReference({ scale, variants, stderr: 'ignore', timeoutMs: 300_000 });
  const proxy = await startProxy({ upstream: server.baseUrl, scenario: 'hang', after: Number.MAX_SAFE_INTEGER });
  const reports = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  try {
    const t0 = Date.now();
    // Asynchronous: the counting proxy answers from this process's event loop.
    const child = spawn(process.execPath, [...TS_NODE_OPTIONS, resolve(ROOT, 'contracts/conformance.ts')], {
      cwd: ROOT,
      env: { ...process.env, CONSOLE_BASE_URL: proxy.baseUrl, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: reports },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
    });
    const status = await new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const r = { status, stderr };
    const seconds = (Date.now() - t0) / 1000;
    const summary = readConformance(reports)?.summary;
    if (!summary) fail('bench:scale', `the suite against ${scale} experiments wrote no report: ${r.stderr.trim().split('\n').at(-1)}`);
    const c = summary.clauses;
    return {
      requests: proxy.stats.requests,
      seconds,
      tests: summary.tests.total,
      checked: c.pass + c.fail + c.warn,
      verdict: `${summary.verdict} (exit ${r.status})`,
    };
  } finally {
    await proxy.stop();
    await server.stop();
    rmSync(reports, { recursive: true, force: true });
  }
}

const runs = new Map<number, Run[]>(scales.map((s) => [s, []]));
for (let round = 1; round <= rounds; round++)
  for (const scale of scales) {
    process.stderr.write(`bench:scale: round ${round}/${rounds}, ${scale} experiments...\n`);
    runs.get(scale)!.push(await runOnce(scale));
  }

const rows = scales.map((scale) => {
  const rs = runs.get(scale)!;
  // A whole run is reported, so the one nearest the median time (core/quantile.ts); with an even
  // count the two middle runs are equally near and the faster is taken.
  const m = median(rs.map((x) => x.seconds));
  const mid = [...rs].sort((a, b) => a.seconds - b.seconds).reduce((best, r) => (Math.abs(r.seconds - m) < Math.abs(best.seconds - m) ? r : best));
  return { scale, ...mid };
});
const base = rows[0];
console.log(`bench:scale: the suite against the reference${variants.length ? ` with ${variants.join(', ')}` : ''}, median of ${rounds} run(s) per scale`);
console.log('experiments  requests  seconds  tests  clauses checked  requests/test  requests/clause  verdict                 ratio (requests, time)');
for (const r of rows)
  console.log(
    `${String(r.scale).padStart(11)}  ${String(r.requests).padStart(8)}  ${r.seconds.toFixed(1).padStart(7)}  ${String(r.tests).padStart(5)}  ${String(r.checked).padStart(15)}  ${(r.requests / r.tests).toFixed(1).padStart(13)}  ${(r.requests / Math.max(1, r.checked)).toFixed(2).padStart(15)}  ${r.verdict.padEnd(22)}  ${(r.requests / base.requests).toFixed(2)}x, ${(r.seconds / base.seconds).toFixed(2)}x`,
  );
