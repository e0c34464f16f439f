// One profile run on Artillery: the profile's setup once (load/artillery/setup.ts), then `runners`
// Artillery processes (`artillery run`, each with its own workers) sharing the profile's arrival rates,
// then every record their workers wrote merged exactly (all durations kept) into the run's summary.json,
// junit.xml and Artillery's own JSON report(s). This is the module other commands build on: give it a
// profile, a base URL and an environment holding the key, and it returns the exit code and the summary.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { ROOT } from '../../core/config.ts';
import type { LoadDelivery } from '../../core/formats.ts';
import { dependencyDir, dependencyVersion, TS_NODE_OPTIONS } from '../../core/package.ts';
import { histogramOf, type RunSamples } from '../compare/samples.ts';
import type { ProfileScenario } from '../lib/profiles.ts';
import { mergeRecords, newRecords, type Records } from '../lib/runtime.ts';
import { summaryData, type Thresholds } from '../lib/summary-data.ts';
import { summaryFiles } from '../lib/summary.ts';
import { cpuBetween, judgeDelivery, type ArtilleryReport } from './delivery.ts';
import { judgeMerged, type LimitVerdict } from './ensure.ts';
import { latencyPeriods } from './periods.ts';
import { type ArtilleryPhase, artilleryScript, phasesOf } from './script.ts';
import type { Shape } from './shape.ts';

// Found where Node finds packages: installed from npm, the suite's dependencies sit beside it, not inside it.
export const ARTILLERY_BIN = join(dependencyDir('artillery'), 'bin/run');

export interface ProfileRunOptions {
  script: 'paging' | 'mutation';
  profile: string;
  baseUrl: string;
  /** The environment of the setup and of Artillery: CONSOLE_API_KEY and the LOAD_* variables (load/lib/env.ts). */
  env: NodeJS.ProcessEnv;
  /** summary.json, junit.xml and artillery.json go here (runner i's Artillery report into runners/<i>/). */
  reportDir: string;
  /** The run's data folder (request bodies, the setup's answer, the workers' records). */
  dataDir: string;
  /** Where to write one row per request (writeRequestRows), when asked. */
  requestRows?: string;
  /** Artillery processes sharing the load (default 1). */
  runners?: number;
  /** The run's shape and limits in Artillery's config format (load/artillery/shape.ts): its phases instead of the profile's, shared among the runners. */
  shape?: Shape;
  requestTimeoutMs: number;
  label?: string;
}

export interface ProfileRunResult {
  /**
   * 0 every threshold held, 1 one crossed (summary.json says which: load/command/outcome.ts reads
   * from it whether the run's verdict is 1, 2 or 3), 3 the run could not be carried out.
   */
  exit: 0 | 1 | 3;
  summaryFile: string;
  /** The one-line reason when exit is 3. */
  reason?: string;
  /** Every record of the run, merged (absent when it was not carried out). */
  records?: Records;
  /** Whether the asked load was delivered (absent when it was not carried out). */
  delivery?: LoadDelivery;
}

function artilleryVersion(): string {
  return dependencyVersion('artillery');
}

/** CPU seconds (user + system, its threads and waited-for children) `pid` has used, from /proc; undefined where there is none. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The fields after the command's name, which may hold spaces: utime, stime, cutime, cstime are 14-17 of the whole line.
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.split(' ') ?? [];
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(rest[i]), 0);
    // Linux counts in USER_HZ, 100 a second on every architecture it runs on (Node has no sysconf).
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `args` with `env`, its output lines prefixed (or passed as they are); resolves to its exit code,
 * last stderr lines and its CPU seconds so far, sampled every quarter second while it runs (/proc
 * forgets a process once it is reaped), so that the load's share can be told from Artillery's start-up.
 */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, prefix: string): Promise<{ code: number; tail: string[]; cpu: [number, number][] }> {
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const cpu: [number, number][] = [];
  const poll = setInterval(() => {
    const used = cpuSecondsOf(child.pid);
    if (used !== undefined) cpu.push([Date.now(), used]);
  }, 250);
  const tail: string[] = [];
  const relay = (stream: NodeJS.ReadableStream, write: (l: string) => void, keep: boolean) =>
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      write(prefix ? `${prefix} ${line}` : line);
      if (keep) {
        tail.push(line);
        if (tail.length > 5) tail.shift();
      }
    });
  relay(child.stdout, (l) => console.log(l), false);
  relay(child.stderr, (l) => console.error(l), true);
  return new Promise((done) => {
    child.once('error', (err) => {
      clearInterval(poll);
      tail.push(err.message);
      done({ code: 3, tail, cpu });
    });
    child.once('close', (code, signal) => {
      clearInterval(poll);
      done({ code: code ?? (signal ? 3 : 0), tail, cpu });
    });
  });
}

/** What Artillery's ensure plugin concluded in one runner (written by the progress plugin); none when it judged nothing. */
function readEnsure(file: string): { check: string; strict: boolean; ok: boolean }[] {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { check: string; strict: boolean; ok: boolean }[];
  } catch {
    return [];
  }
}

/** A runner's Artillery report; empty when it wrote none that parses (the delivery then reads nothing started). */
function readArtilleryReport(file: string): ArtilleryReport {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ArtilleryReport;
  } catch {
    return {};
  }
}

/** Every record the setup and the workers wrote, merged. */
export function readRecords(samplesDir: string): Records {
  const all = newRecords();
  if (!existsSync(samplesDir)) return all;
  for (const name of readdirSync(samplesDir).sort()) {
    if (!name.endsWith('.ndjson')) continue;
    for (const line of readFileSync(join(samplesDir, name), 'utf8').split('\n')) if (line.trim()) mergeRecords(all, JSON.parse(line) as Records);
  }
  return all;
}

/** Requests the load sent (setup's probes left out): none means the workers recorded nothing, and nothing was measured. */
export function loadRequests(records: Records): number {
  let n = 0;
  for (const [endpoint, e] of Object.entries(records.endpoints)) if (endpoint !== 'setup') n += e.micros.length;
  return n;
}

/** Per-endpoint duration histograms (ms) of the expected answers, from the merged microsecond samples; setup's probes left out. */
export function histogramsOf(records: Records): RunSamples {
  const endpoints: RunSamples['endpoints'] = {};
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    if (endpoint === 'setup' || e.expectedMicros.length === 0) continue;
    endpoints[endpoint] = histogramOf(e.expectedMicros.map((u) => u / 1000));
  }
  return { format: 'console-conformance.duration-histograms/1', endpoints };
}

/**
 * One row per request (the time it began, epoch ms; its duration, ms; its endpoint), gzipped, in the
 * columns report/timeseries.ts reads: the throughput-over-time chart of verify's report.
 */
export function writeRequestRows(records: Records, file: string): void {
  const rows = ['metric_name,timestamp,metric_value,extra_tags'];
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    if (endpoint === 'setup') continue;
    for (let i = 0; i < e.micros.length; i++)
      rows.push(`http_req_duration,${e.at[i]},${(e.micros[i] / 1000).toFixed(3)},endpoint=${encodeURIComponent(endpoint)}`);
  }
  writeFileSync(file, gzipSync(`${rows.join('\n')}\n`));
}

export interface Plan {
  scenarios: Record<string, ProfileScenario>;
  thresholds: Thresholds;
  /** The endpoints the profile times (absent from cloud plans prepared before it was kept). */
  endpoints?: string[];
}

/** The profile's setup, once, in a process of its own with `env` (load/artillery/setup.ts); its plan, or why it could not run. */
export async function runSetup(script: string, dataDir: string, env: NodeJS.ProcessEnv): Promise<{ plan: Plan } | { reason: string }> {
  const setup = await run(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'load/artillery/setup.ts'), script], env, '');
  if (setup.code !== 0) return { reason: setup.tail.at(-1)?.replace(/^load: \w+: /, '') ?? `setup exited ${setup.code}` };
  return { plan: JSON.parse(readFileSync(join(dataDir, `plan-${script}.json`), 'utf8')) as Plan };
}

/**
 * The processor as one ES module (Artillery imports it in every worker): the profiles, their checks
 * and the validators of this run bundled, so that the workers need no TypeScript loader. `settings`
 * are environment variables written into it (a cloud run's: never the key).
 */
export async function bundleProcessor(outfile: string, settings: Record<string, string> = {}): Promise<void> {
  await build({
    entryPoints: [join(ROOT, 'load/artillery/processor.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    define: {
      ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`process.env.${k}`, JSON.stringify(v)])),
      // The profiles read their rates from their shape files (load/lib/profiles.ts): the bundle carries them.
      LOAD_SHAPES_BUNDLED: JSON.stringify(
        Object.fromEntries(
          readdirSync(join(ROOT, 'load/shapes'))
            .filter((f) => f.endsWith('.yml'))
            .map((f) => [f, parseYaml(readFileSync(join(ROOT, 'load/shapes', f), 'utf8'))]),
        ),
      ),
    },
  });
}

/**
 * The progress plugin (load/artillery/progress-plugin.ts) as a package Artillery finds by name in
 * `dir` (ARTILLERY_PLUGIN_PATH): a folder of its own, with a package.json that makes it ES.
 */
export async function bundleProgressPlugin(dir: string): Promise<void> {
  const pkg = join(dir, 'artillery-plugin-console-progress');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'artillery-plugin-console-progress', type: 'module', main: 'index.js' }));
  await build({
    entryPoints: [join(ROOT, 'load/artillery/progress-plugin.ts')],
    outfile: join(pkg, 'index.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
}

/** A shape's phases as Artillery takes them: a phase without its own VU limit gets the profile's, the bound every profile has. */
export function shapePhases(shape: Shape | undefined, plan: Plan): ArtilleryPhase[] | undefined {
  const vusers = Object.values(plan.scenarios).reduce((n, s) => n + (s.kind === 'sequence' ? 1 : s.maxVUs), 0);
  return shape?.phases?.map((p): ArtilleryPhase => ({ name: p.name ?? `${p.duration} s`, ...p, maxVusers: p.maxVusers ?? vusers }));
}

/**
 * What the processor takes of a shape, beside its data (removed when there is none): the profile's
 * mix only, not its timing, when the phases are the shape's; the apdex threshold when Artillery's apdex
 * plugin is to score the suite's requests; the metrics-by-endpoint plugin's prefix.
 */
export function writeShapeFile(file: string, shape: Shape | undefined, phases: ArtilleryPhase[] | undefined): void {
  if (!shape) return rmSync(file, { force: true });
  const byEndpoint = shape.plugins?.['metrics-by-endpoint'] as { metricsNamespace?: string } | undefined;
  writeFileSync(
    file,
    JSON.stringify({
      phases,
      apdexMs: shape.apdexMs,
      ...(byEndpoint ? { byEndpoint: { prefix: byEndpoint.metricsNamespace ?? 'plugins.metrics-by-endpoint' } } : {}),
    }),
  );
}

export async function runProfile(o: ProfileRunOptions): Promise<ProfileRunResult> {
  const runners = o.runners ?? 1;
  const label = o.label ?? `load: ${o.script}`;
  const samplesDir = join(o.dataDir, `samples-${o.script}`);
  rmSync(samplesDir, { recursive: true, force: true });
  mkdirSync(samplesDir, { recursive: true });
  mkdirSync(o.reportDir, { recursive: true });
  const summaryFile = join(o.reportDir, 'summary.json');
  const env: NodeJS.ProcessEnv = {
    ...o.env,
    LOAD_SCRIPT: o.script,
    LOAD_DATA_DIR: o.dataDir,
    LOAD_SAMPLES_DIR: samplesDir,
    // Artillery reports usage to its makers unless told not to; this suite sends nothing but to the target.
    ARTILLERY_DISABLE_TELEMETRY: 'true',
    ARTILLERY_PLUGIN_PATH: [join(o.dataDir, 'plugins'), o.env.ARTILLERY_PLUGIN_PATH].filter(Boolean).join(':'),
  };

  const setup = await runSetup(o.script, o.dataDir, env);
  if ('reason' in setup) return { exit: 3, summaryFile, reason: setup.reason };
  const plan = setup.plan;
  const processor = join(o.dataDir, `processor-${o.script}.mjs`);
  await bundleProcessor(processor);
  await bundleProgressPlugin(join(o.dataDir, 'plugins'));

  const t0 = Date.now();
  const phases = shapePhases(o.shape, plan);
  writeShapeFile(join(o.dataDir, `shape-${o.script}.json`), o.shape, phases);
  const ensureFile = (i: number) => join(o.dataDir, `ensure-${o.script}-${i + 1}.json`);
  const aggregateFile = (i: number) => join(o.dataDir, `aggregate-${o.script}-${i + 1}.json`);
  const mergedEnsure = runners > 1 && o.shape?.ensure !== undefined;
  for (let i = 0; i < runners; i++) rmSync(aggregateFile(i), { force: true });
  const scripts = Array.from({ length: runners }, (_, i) =>
    artilleryScript({
      scenarios: plan.scenarios,
      target: o.baseUrl,
      processor,
      requestTimeoutMs: o.requestTimeoutMs,
      runners,
      runner: i,
      phases,
      // Several runners: the limits are judged once, on their reports merged (mergedEnsure below), not by each on its share.
      ensure: mergedEnsure ? undefined : o.shape?.ensure,
      apdex: o.shape?.apdex,
      plugins: {
        ...o.shape?.plugins,
        // run() prefixes each runner's lines with its number already.
        'console-progress': { label, ensureFile: ensureFile(i), ...(mergedEnsure ? { aggregateFile: aggregateFile(i) } : {}) },
      },
    }),
  );
  const reportOf = (i: number) => join(runners > 1 ? join(o.reportDir, 'runners', String(i + 1)) : o.reportDir, 'artillery.json');
  const codes = await Promise.all(
    scripts.map((script, i) => {
      const dir = runners > 1 ? join(o.reportDir, 'runners', String(i + 1)) : o.reportDir;
      mkdirSync(dir, { recursive: true });
      const file = join(o.dataDir, `artillery-${o.script}-${i + 1}.json`);
      writeFileSync(file, JSON.stringify(script, null, 2));
      // --quiet: Artillery's own console block (every metric, each period) would bury the progress plugin's line.
      const args = [ARTILLERY_BIN, 'run', '--quiet', '--output', reportOf(i), file];
      return run(process.execPath, args, { ...env, LOAD_RUNNER: String(i + 1) }, runners > 1 ? `[runner ${i + 1}/${runners}]` : '');
    }),
  );
  // Artillery exits 1 when an ensure limit is broken, as when it fails: its plugin's verdict tells them apart.
  const own = scripts.map((_, i) => (mergedEnsure ? [] : readEnsure(ensureFile(i))));
  const failed = codes.findIndex((c, i) => c.code !== 0 && !(c.code === 1 && own[i].some((l) => l.strict && !l.ok)));
  if (failed >= 0)
    return {
      exit: 3,
      summaryFile,
      reason: `Artillery${runners > 1 ? ` (runner ${failed + 1})` : ''} exited ${codes[failed].code}: ${codes[failed].tail.at(-1) ?? 'no output'}`,
    };
  let limits: LimitVerdict[] = own.flat();
  if (mergedEnsure && o.shape?.ensure) {
    const missing = scripts.findIndex((_, i) => !existsSync(aggregateFile(i)));
    if (missing >= 0) return { exit: 3, summaryFile, reason: `Artillery (runner ${missing + 1}) wrote no final report to judge config.ensure on` };
    limits = await judgeMerged(
      o.shape.ensure,
      scripts.map((_, i) => aggregateFile(i)),
    );
  }

  const records = readRecords(samplesDir);
  // Thresholds of metrics without samples hold: a run whose workers recorded nothing must not pass.
  if (loadRequests(records) === 0) return { exit: 3, summaryFile, reason: `Artillery ran, but its workers recorded no request of the profile (${samplesDir})` };
  // The load's own span (first arrival to last answer), not Artillery's start-up around it.
  const durationMs = records.span ? records.span[1] - records.span[0] : Date.now() - t0;
  const data = summaryData(records, plan.thresholds, durationMs, plan.endpoints);
  const reports = scripts.map((_, i) => readArtilleryReport(reportOf(i)));
  const delivery = judgeDelivery(
    scripts.map((sc, i) => ({
      runner: i + 1,
      report: reports[i],
      phases: sc.config.phases,
      cpuSeconds: records.span ? cpuBetween(codes[i].cpu, records.span[0], records.span[1]) : undefined,
      times: records.arrivals?.[String(i + 1)],
    })),
    loadRequests(records),
  );
  const out = summaryFiles({
    delivery,
    periods: latencyPeriods(records),
    writes: records.writes?.current,
    ...(o.shape ? { shape: { source: o.shape.source, phases: phases ?? phasesOf(plan.scenarios), limits } } : {}),
    script: o.script,
    profile: o.profile,
    baseUrl: o.baseUrl,
    apiKey: o.env.CONSOLE_API_KEY ?? o.env.CONSOLE_CURRENT_API_KEY ?? '',
    data,
    samples: histogramsOf(records),
    runners,
    engine: { name: 'artillery', version: artilleryVersion() },
  });
  writeFileSync(summaryFile, out.summaryJson);
  writeFileSync(join(o.reportDir, 'junit.xml'), out.junit);
  process.stdout.write(out.console);
  if (o.requestRows) writeRequestRows(records, o.requestRows);
  const crossed = Object.values(data.metrics).some((m) => Object.values(m.thresholds ?? {}).some((t) => !t.ok));
  if (runners > 1) console.log(`${label}: ${runners} Artillery runners, every worker's records merged`);
  return { exit: crossed ? 1 : 0, summaryFile, records, delivery };
}
