// npm run bench:export -- [--prometheus PATH] [--keep DIR]
// The load's numbers exported through Artillery's publish-metrics plugin to a real receiver: a
// Prometheus server (built from its Go module: go install github.com/prometheus/prometheus/cmd/prometheus)
// with its OTLP receiver on a free loopback port, fed by `load:paging --profile smoke` with a
// publish-metrics `open-telemetry` reporter in --overrides. Then Prometheus is asked what it stored:
// every endpoint's `console.<endpoint>` summaries must be there and its `console.<endpoint>.requests`
// counts, period by period, add up to summary.json's; the API key must be in none of it, nor in its storage.
// A check run by hand or by CI where Prometheus is installed; not in npm test, which installs nothing
// outside npm.
import { spawn } from 'node:child_process';
import { spawnLoad } from '../../load/command/spawn-load.ts';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommand, runCommand } from '../../core/command.ts';
import { ConfigError, ROOT, targetSetInEnv } from '../../core/config.ts';
import { readRunSummary } from '../../core/formats.ts';
import { randomApiKey } from '../../core/reference.ts';

const NAME = 'bench:export';

const HELP = `usage: npm run bench:export -- [--prometheus PATH] [--keep DIR]

Runs load:paging --profile smoke against a reference server with Artillery's publish-metrics plugin
(open-telemetry, otlp-http) sending to a Prometheus server started on a free loopback port with its
OTLP receiver, then asks Prometheus what it stored: each endpoint's console.<endpoint> summaries,
their request counts adding up to summary.json's, and the API key nowhere in its series or storage.

  --prometheus PATH  the prometheus binary (default: prometheus on PATH); build it with
                     go install github.com/prometheus/prometheus/cmd/prometheus@latest
  --keep DIR         keep the reports and Prometheus's storage in DIR (default: a temporary folder, removed)

Environment: CONSOLE_BASE_URL must be unset (it starts its own reference server).
Exit 0 every endpoint exported and no key found, 1 one missing or the key found, 3 not carried out
(no Prometheus, it did not start, the load did not run).`;

/** A free loopback port, for a program that cannot be told to pick one and say which. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

async function waitReady(url: string, child: { exitCode: number | null }): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if (child.exitCode !== null) throw new ConfigError(`prometheus exited ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new ConfigError('prometheus was not ready within 30 s');
}

/** Every file under `dir` holds neither `key` nor its URL-encoded form: the names of those that do. */
function filesHolding(dir: string, key: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const f = join(dir, name);
    if (statSync(f).isDirectory()) out.push(...filesHolding(f, key));
    else {
      const text = readFileSync(f, 'latin1');
      if (text.includes(key) || text.includes(encodeURIComponent(key))) out.push(f);
    }
  }
  return out;
}

async function query(base: string, path: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; data: unknown; error?: string };
  if (body.status !== 'success') throw new ConfigError(`prometheus ${path}: ${body.error ?? res.status}`);
  return body.data;
}

async function main(): Promise<number> {
  const { values } = parseCommand({ name: NAME, help: HELP, options: { prometheus: { type: 'string' }, keep: { type: 'string' } } });
  if (targetSetInEnv()) throw new ConfigError('CONSOLE_BASE_URL is set: the export check starts its own reference server');
  const bin = values.prometheus ?? 'prometheus';
  const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'cc-export-'));
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, 'prometheus.yml'), 'global: {}\n');
  const prom = spawn(
    bin,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-otlp-receiver',
      // The reporter sends each period as its own delta; Prometheus keeps deltas only when told to.
      '--enable-feature=otlp-deltatocumulative',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let promLog = '';
  prom.stderr.on('data', (d) => (promLog = (promLog + d).slice(-4000)));
  const started = new Promise<void>((done, fail) => {
    prom.once('error', (err) =>
      fail(new ConfigError(`cannot run ${bin}: ${err.message} (build it: go install github.com/prometheus/prometheus/cmd/prometheus@latest)`)),
    );
    prom.once('spawn', () => done());
  });
  try {
    await started;
    await waitReady(base, prom);
    const key = randomApiKey();
    const reports = join(dir, 'reports');
    const publish = {
      config: {
        plugins: {
          'publish-metrics': [{ type: 'open-telemetry', metrics: { exporter: 'otlp-http', endpoint: `${base}/api/v1/otlp/v1/metrics` } }],
        },
      },
    };
    const load = await spawnLoad(['paging', '--profile', 'smoke', '--overrides', JSON.stringify(publish)], reports, { CONSOLE_API_KEY: key });
    if (load.code !== 0) throw new ConfigError(`load:paging exited ${load.code}: ${load.out.trim().split('\n').at(-1)}`);
    const summary = readRunSummary(join(reports, 'load/paging/summary.json'));
    if (!summary) throw new ConfigError('load:paging wrote no summary.json');
    const names = (await query(base, '/api/v1/label/__name__/values')) as string[];
    let failures = 0;
    console.log(`${NAME}: Prometheus ${base} holds ${names.filter((n) => n.startsWith('console')).length} console metrics`);
    console.log(`  ${'endpoint'.padEnd(32)} ${'summary.json'.padStart(12)} ${'Prometheus'.padStart(10)}  metric`);
    for (const [endpoint, figures] of Object.entries(summary.endpoints).sort()) {
      // OTLP names are escaped into Prometheus's: dots become underscores, a counter ends in _total. The
      // request count is a counter: a histogram's summaries are gauges, and a gauge is sent again, with
      // the next period's labels, in a period that had no request of it (OpenTelemetry's last value).
      const metric = `console_${endpoint.replace(/[^A-Za-z0-9_]/g, '_')}_requests_total`;
      const found = names.find((n) => n === metric);
      let stored = Number.NaN;
      if (found) {
        // One series per period (labelled with its start and end), each cumulative from its delta: its largest value.
        const r = (await query(base, `/api/v1/query?query=${encodeURIComponent(`sum(max_over_time(${found}[1h]))`)}`)) as {
          result: { value: [number, string] }[];
        };
        stored = Number(r.result[0]?.value[1] ?? Number.NaN);
      }
      const p95 = names.includes(`console_${endpoint.replace(/[^A-Za-z0-9_]/g, '_')}_p95`);
      if (!p95) failures++;
      const ok = stored === figures.count;
      if (!ok) failures++;
      console.log(
        `  ${endpoint.padEnd(32)} ${String(figures.count).padStart(12)} ${String(stored).padStart(10)}  ${found ?? `(no ${metric})`}${ok ? '' : '  MISMATCH'}`,
      );
    }
    // The counters travel as deltas: Prometheus keeps them with otlp-deltatocumulative, else refuses them.
    const checks = (await query(base, `/api/v1/query?query=${encodeURIComponent('sum(max_over_time(console_checks_passed_total[1h]))')}`)) as {
      result: { value: [number, string] }[];
    };
    const checksPassed = Number(checks.result[0]?.value[1] ?? Number.NaN);
    const ours = summary.checks?.passes ?? 0;
    // summary.json counts setup's checks too, which run before Artillery starts.
    if (!(checksPassed > 0 && checksPassed <= ours)) failures++;
    console.log(`  console.checks.passed: ${checksPassed} in Prometheus, ${ours} in summary.json (setup's included)${checksPassed > 0 ? '' : '  MISSING'}`);
    const series = JSON.stringify(await query(base, `/api/v1/series?${encodeURIComponent('match[]')}=${encodeURIComponent('{__name__=~".+"}')}`));
    const inSeries = series.includes(key) || series.includes(encodeURIComponent(key));
    // Prometheus writes what it received to its write-ahead log at once: the key would be there.
    const inStorage = filesHolding(join(dir, 'tsdb'), key);
    if (inSeries || inStorage.length) {
      failures++;
      console.log(`  THE API KEY reached Prometheus: ${inSeries ? 'in its series' : ''} ${inStorage.join(', ')}`);
    } else console.log(`  the API key: in none of its ${series.length} bytes of series, nor in its storage`);
    console.log(`${NAME}: ${failures ? `${failures} problem(s)` : 'every endpoint exported, no key'}`);
    return failures ? 1 : 0;
  } catch (err) {
    // Prometheus's own last words, when it is what stopped.
    if (promLog && prom.exitCode !== null) console.error(promLog.trim().split('\n').slice(-3).join('\n'));
    throw err;
  } finally {
    prom.kill('SIGTERM');
    await new Promise((r) => (prom.exitCode === null ? prom.once('close', r) : r(null)));
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

runCommand(NAME, main);
