// npm run verify -- [--strict] [--skip-load] [--profile smoke|baseline|stress] [...] [--help]
// The main job (architecture guide, section 3): the conformance suite against the target (a reference
// server it starts when none is configured), the k6 paging and mutation profiles compared with the
// baselines, reports/ (index.html and the machine-readable files), the secret scan, and a verdict that
// fits on one screen. Exit codes: 0 pass, 1 contract failure, 2 performance regression, 3 the run
// could not be carried out; when several apply, 1 before 3 before 2 (a contract failure is a fact
// whatever else happened; a run with a stage missing cannot be called a regression).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { compareRun, printCompare, type CompareResult } from './baseline.ts';
import { ConfigError, ROOT, isLoopback, loadConfig, seconds, type Config } from '../core/config.ts';
import { loadFailureKind } from './lib/load-outcome.ts';
import { prepareReports } from './lib/previous-run.ts';
import { readTestLine, Ticker, type TestProgress } from './lib/progress.ts';
import { randomApiKey, referenceUnlessTarget } from '../core/reference.ts';
import { renderPage } from './report/html.ts';
import { readInputs, type StageResult, type VerifyRun } from './report/inputs.ts';
import { writeTimeSeries } from './report/timeseries.ts';
import { worst } from '../core/exit.ts';
import { keyForms } from '../core/keys.ts';
import { scan } from './scan-secrets.ts';
import type { ConformanceSummary } from '../contracts/support/reporter.ts';

const HELP = `usage: npm run verify -- [options]

The main job. Runs, against CONSOLE_BASE_URL (or a reference server it starts on a free loopback port):
  1. the conformance suite (Playwright),
  2. the k6 paging and mutation load profiles, compared with load/baselines/ (calibrated per machine),
then writes reports/ (index.html: one page for a release manager; conformance.json, observations.json,
junit.xml, verify.json, load/), scans reports/ for the API key and prints a one-screen verdict.

  --strict                      inferred clauses fail instead of warn (also CONSOLE_STRICT=1)
  --skip-load                   do not run the load profiles (k6 is then not needed)
  --profile smoke|baseline|stress
                                size of the load profiles (default smoke, a few seconds each; the
                                committed baselines are smoke: another profile compares as no-baseline)
  --baselines DIR               compare with the baselines in DIR instead of load/baselines/
  --observations-baseline FILE  report drift against this observations.json (default:
                                CONSOLE_OBSERVATIONS_BASELINE, else the previous run's when it was of
                                the whole suite against the same target)
  --grep PATTERN                only the conformance tests whose title matches (passed to Playwright)
  --deadline SECONDS            the whole run's deadline (also CONSOLE_DEADLINE; default 600): past it
                                the running stage stops, later ones do not start, and verify exits 3
                                with the reports written so far, marked partial (docs/transport.md)
  --help                        this text

k6: when neither K6_BIN nor .tools/bin/k6 exists, verify builds it first (npm run k6:install, Go
needed, about two minutes); when it cannot, it exits 3 before running anything.
Environment: CONSOLE_BASE_URL, CONSOLE_API_KEY, CONSOLE_FIXTURES, CONSOLE_STRICT, CONSOLE_ALLOW_REMOTE_LOAD,
CONSOLE_DEADLINE, CONSOLE_REQUEST_TIMEOUT, K6_BIN (README, "Pointing it at a real server").

exit codes: 0 pass; 1 contract failure (or a failed load check, or the key found in reports/);
2 performance regression against the baseline (or a k6 latency threshold crossed); 3 the run could
not be carried out or was cut short (deadline, transport failures, inconclusive tests). When several
apply: 1, then 3, then 2.`;

const SCRIPTS = ['paging', 'mutation'] as const;
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

interface Options { strict: boolean; skipLoad: boolean; profile: string; baselines: string | undefined; observationsBaseline: string | undefined; grep: string | undefined; deadline: string | undefined }

function fail3(reason: string): never {
  console.error(`verify: ${reason}`);
  process.exit(3);
}

function parse(argv: string[]): Options | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv, strict: true,
      options: { strict: { type: 'boolean' }, 'skip-load': { type: 'boolean' }, profile: { type: 'string' }, baselines: { type: 'string' }, 'observations-baseline': { type: 'string' }, grep: { type: 'string' }, deadline: { type: 'string' }, help: { type: 'boolean' } },
    }));
  } catch (err) {
    const m = /Unknown option '([^']+)'/.exec((err as Error).message);
    throw new ConfigError(m ? `unknown option ${m[1]} (see --help)` : (err as Error).message.split('\n')[0]);
  }
  if (values.help) return 'help';
  const profile = values.profile ?? 'smoke';
  if (!['smoke', 'baseline', 'stress'].includes(profile)) throw new ConfigError(`--profile must be smoke, baseline or stress, got ${JSON.stringify(profile)}`);
  const baselines = values.baselines === undefined ? undefined : resolve(values.baselines);
  if (baselines !== undefined && !(existsSync(baselines) && statSync(baselines).isDirectory())) throw new ConfigError(`--baselines: no folder ${values.baselines}`);
  const observationsBaseline = values['observations-baseline'] === undefined ? undefined : resolve(values['observations-baseline']);
  if (observationsBaseline !== undefined && !existsSync(observationsBaseline)) throw new ConfigError(`--observations-baseline: no file ${values['observations-baseline']}`);
  if (values.grep !== undefined && values.grep === '') throw new ConfigError('--grep needs a pattern');
  if (values.deadline !== undefined) seconds(values.deadline, '--deadline', 0);
  return { strict: values.strict ?? false, skipLoad: values['skip-load'] ?? false, profile, baselines, observationsBaseline, grep: values.grep, deadline: values.deadline };
}

/** The k6 to use, built first when missing; a ConfigError (exit 3) when it cannot be had. */
function ensureK6(): string {
  const which = () => spawnSync('bash', [join(ROOT, 'scripts/install-k6'), '--which'], { encoding: 'utf8' });
  let w = which();
  if (w.status !== 0) {
    console.log('verify: k6 is not installed: building it now (npm run k6:install, about two minutes with Go)');
    const install = spawnSync('bash', [join(ROOT, 'scripts/install-k6')], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
    const reason = install.stderr.trim().split('\n').pop()?.replace(/^install-k6: /, '') ?? '';
    if (install.status !== 0) throw new ConfigError(`k6 is missing and cannot be installed: ${reason || `install-k6 exit ${install.status}`} (or run with --skip-load)`);
    w = which();
    if (w.status !== 0) throw new ConfigError(`k6 is missing after npm run k6:install: ${w.stderr.trim()}`);
  }
  return w.stdout.trim();
}

const firstLine = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: ROOT });
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : undefined;
};

function versions(k6: string | undefined): Record<string, string> {
  const pkg = (p: string) => JSON.parse(readFileSync(join(ROOT, p), 'utf8')).version as string;
  const commit = firstLine('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = commit && firstLine('git', ['status', '--porcelain', '--untracked-files=no']) ? '+changes' : '';
  const out: Record<string, string> = { 'console-conformance': `${pkg('package.json')}${commit ? ` (${commit}${dirty})` : ''}`, node: process.version, playwright: pkg('node_modules/@playwright/test/package.json') };
  const k6v = k6 && firstLine(k6, ['version']);
  if (k6v) out.k6 = k6v.replace(/^k6 /, '').split(' ')[0];
  return out;
}

/** The stage's child process now running, to be stopped with verify. */
let running: ChildProcess | undefined;

/** Runs a node script with tsx, its stdout read line by line (for progress), stderr passed through. */
function runTsx(script: string, args: string[], env: NodeJS.ProcessEnv, onLine: (line: string) => void): Promise<number> {
  const child = spawn(process.execPath, [TSX, join(ROOT, script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  running = child;
  createInterface({ input: child.stdout! }).on('line', onLine);
  return new Promise((done) => child.on('close', (code, signal) => {
    running = undefined;
    done(code ?? (signal ? 3 : 0));
  }));
}

function readSummary(reportsDir: string, script: string) {
  try {
    return JSON.parse(readFileSync(join(reportsDir, 'load', script, 'summary.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** A path relative to the repository when inside it: a report shows no home folders. */
const shortPath = (p: string) => (relative(ROOT, p).startsWith('..') ? p : relative(ROOT, p));

const secs = (t0: number) => (Date.now() - t0) / 1000;

async function main(): Promise<number> {
  const opts = parse(process.argv.slice(2));
  if (opts === 'help') {
    console.log(HELP);
    return 0;
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (opts.strict) env.CONSOLE_STRICT = '1';
  if (opts.deadline !== undefined) env.CONSOLE_DEADLINE = opts.deadline;
  // One key for every server this run starts (the conformance suite's and the load runs'), so that
  // one scan covers everything written. It travels in the environment only.
  if (!env.CONSOLE_BASE_URL?.trim() && !env.CONSOLE_API_KEY) env.CONSOLE_API_KEY = randomApiKey();
  const config: Config = loadConfig(env);
  if (!opts.observationsBaseline && config.observationsBaseline && !existsSync(config.observationsBaseline)) throw new ConfigError(`CONSOLE_OBSERVATIONS_BASELINE: no file ${config.observationsBaseline}`);
  const key = config.apiKey!;
  // Checked before anything runs: load.ts would refuse the target only after the whole suite.
  if (!opts.skipLoad && config.baseUrl && !isLoopback(config.baseUrl) && !config.allowRemoteLoad) {
    throw new ConfigError(`load against ${new URL(config.baseUrl).host} is refused (not loopback): set CONSOLE_ALLOW_REMOTE_LOAD=1, or run with --skip-load`);
  }
  const k6 = opts.skipLoad ? undefined : ensureK6();

  const startedAt = new Date();
  const t0 = Date.now();
  // The deadline counts from here (k6 is built before: its two minutes are not the target's).
  const deadlineAt = t0 + config.deadlineSeconds * 1000;
  const left = () => (deadlineAt - Date.now()) / 1000;
  const reportsDir = config.reportsDir;
  const manifest = shortPath(config.manifestPath);
  const previous = prepareReports(reportsDir, { target: { url: config.baseUrl ?? '', reference: !config.baseUrl }, manifest });
  // The option, else CONSOLE_OBSERVATIONS_BASELINE (the nightly workflow restores one), else the previous run here.
  const observationsBaseline = opts.observationsBaseline ?? config.observationsBaseline ?? previous;
  const stages: StageResult[] = [];
  const total = opts.skipLoad ? 3 : 4;
  let step = 0;
  const say = (text: string) => console.log(`verify: [${++step}/${total}] ${text}`);

  // 1. Conformance.
  const confEnv = { ...env };
  const server = await referenceUnlessTarget(config, confEnv);
  // A cancelled run (CI stops a job with SIGTERM) must not leave its reference server behind.
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`verify: stopped by ${signal}`);
    running?.kill('SIGTERM');
    void (server?.stop() ?? Promise.resolve()).then(() => process.exit(3));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const targetUrl = confEnv.CONSOLE_BASE_URL!;
  say(`conformance suite against ${targetUrl}${server ? ' (the reference server, started by verify)' : ''}`);
  const confArgs = ['--deadline', String(Math.max(1, left()).toFixed(1)), ...(opts.strict ? ['--strict'] : []), ...(observationsBaseline ? ['--observations-baseline', observationsBaseline] : []), ...(opts.grep ? ['--grep', opts.grep] : [])];
  if (observationsBaseline) console.log(`verify: drift against ${shortPath(observationsBaseline)}`);
  const progress: TestProgress = { total: null, done: 0, failed: 0 };
  const ticker = new Ticker();
  const tc = Date.now();
  const status = (p: TestProgress) => `verify: conformance ${p.done}/${p.total ?? '?'} tests${p.failed ? `, ${p.failed} failed` : ''}, ${secs(tc).toFixed(0)} s`;
  let confCode: number;
  try {
    confCode = await runTsx('scripts/conformance.ts', confArgs, confEnv, (line) => {
      const kind = readTestLine(progress, line);
      if (kind === 'test-passed') return ticker.show(status(progress), progress.done === progress.total);
      ticker.clear();
      console.log(line);
      if (kind === 'test-failed') ticker.show(status(progress), true);
    });
  } finally {
    ticker.clear();
    await server?.stop();
  }
  const confSummary = existsSync(join(reportsDir, 'conformance.json')) ? JSON.parse(readFileSync(join(reportsDir, 'conformance.json'), 'utf8')).summary : undefined;
  stages.push({
    name: 'conformance',
    status: confCode === 0 ? 'pass' : confCode === 1 ? 'fail' : 'error',
    exitCode: confCode,
    seconds: secs(tc),
    detail: confSummary
      ? `${confSummary.tests.passed}/${confSummary.tests.total} tests passed, ${confSummary.tests.failedCounting} failing the run; ${confSummary.findings?.total ?? 0} inferred findings${confSummary.findings?.counting ? ` (${confSummary.findings.counting} failing the run)` : ''}; ${confSummary.clauses.fail} clauses fail, ${confSummary.clauses.warn} warn${partialNote(confSummary)}`
      : 'the suite could not be carried out (see its message above)',
  });

  // 2. Load, each script against a fresh reference server of its own (like the baselines) or the target.
  let compare: CompareResult | undefined;
  if (!opts.skipLoad && confCode !== 3 && left() <= 0) {
    stages.push({ name: 'load', status: 'error', exitCode: 3, seconds: 0, detail: `not run: the deadline of ${config.deadlineSeconds} s passed` });
  } else if (!opts.skipLoad && confCode !== 3) {
    const loadEnv: NodeJS.ProcessEnv = { ...env };
    const tl = Date.now();
    say(`load: k6 paging and mutation, ${opts.profile} profile, against ${config.baseUrl ?? 'a fresh reference server each'}`);
    const csvDir = mkdtempSync(join(tmpdir(), 'cc-verify-k6-'));
    const codes: Record<string, number> = {};
    const notes: string[] = [];
    const runScript = async (script: string) => {
      const csv = join(csvDir, `${script}.csv.gz`);
      rmSync(csv, { force: true });
      // k6's CSV output gives one sample per request: the throughput-over-time chart (report/timeseries.ts).
      const k6Env = { ...loadEnv, K6_OUT: `csv=${csv}`, K6_CSV_TIME_FORMAT: 'unix_milli' };
      const ts = Date.now();
      const timer = setInterval(() => console.log(`verify: load ${script} (${opts.profile}) ${secs(ts).toFixed(0)} s elapsed`), opts.profile === 'smoke' ? 5000 : 15000);
      try {
        codes[script] = await runTsx('scripts/load.ts', [script, '--profile', opts.profile], k6Env, (line) => console.log(line));
      } finally {
        clearInterval(timer);
      }
      if (existsSync(csv)) {
        try {
          await writeTimeSeries(script, csv, join(reportsDir, 'load', script, 'timeseries.json'));
        } catch (err) {
          console.error(`verify: no throughput chart for ${script}: ${(err as Error).message.split('\n')[0]}`);
        }
      }
    };
    const compareNow = () => {
      if (!existsSync(join(reportsDir, 'load'))) return undefined;
      try {
        const c = compareRun({ reportsDir, baselinesDir: opts.baselines });
        printCompare(c);
        return c;
      } catch (err) {
        console.error(`verify: ${(err as Error).message.split('\n')[0]}`);
        return undefined;
      }
    };
    // Past the deadline the running k6 is stopped; what it wrote stays, the stage is an error (exit 3).
    let deadlinePassed = false;
    const deadlineTimer = setTimeout(() => {
      deadlinePassed = true;
      console.error(`verify: stopped: deadline of ${config.deadlineSeconds} s passed during the load stage`);
      running?.kill('SIGTERM');
    }, Math.max(0, left() * 1000));
    try {
      for (const script of SCRIPTS) if (!deadlinePassed) await runScript(script);
      compare = compareNow();
      // A regression must show twice: on a shared machine one short run can be slowed by a neighbour
      // (calibration corrects the machine's speed, not a burst). The second run's figures stand.
      const regressed = Object.values(compare?.profiles ?? {}).filter((p) => p.verdict === 'regression' && codes[p.script] === 0).map((p) => p.script);
      if (regressed.length) {
        renameSync(join(reportsDir, 'load', 'compare.json'), join(reportsDir, 'load', 'compare.first-run.json'));
        console.log(`verify: ${regressed.join(' and ')} regressed: running ${regressed.length > 1 ? 'them' : 'it'} again to confirm`);
        for (const script of regressed) await runScript(script);
        compare = compareNow();
        for (const script of regressed) notes.push(compare?.profiles[script]?.verdict === 'regression' ? `${script} regression confirmed by a second run` : `${script} regressed on a first run but not on a second (kept the second; the first is in load/compare.first-run.json)`);
      }
    } finally {
      clearTimeout(deadlineTimer);
      rmSync(csvDir, { recursive: true, force: true });
    }
    const mapped: number[] = [];
    const parts: string[] = [];
    for (const script of SCRIPTS) {
      const code = codes[script];
      const kind = code === 1 ? loadFailureKind(readSummary(reportsDir, script)) : undefined;
      mapped.push(code === 0 ? 0 : kind ? kind.code : 3);
      parts.push(`${script} ${code === 0 ? 'ok' : kind ? kind.note : 'could not run'}`);
    }
    const code = worst([...mapped, deadlinePassed ? 3 : 0, compare?.verdict === 'regression' ? 2 : 0]);
    if (deadlinePassed) parts.push(`stopped: deadline of ${config.deadlineSeconds} s passed`);
    stages.push({
      name: 'load',
      status: code === 0 ? 'pass' : code === 1 ? 'fail' : code === 2 ? 'regression' : 'error',
      exitCode: code,
      seconds: secs(tl),
      detail: `${opts.profile}: ${parts.join(', ')}; compare ${compare?.verdict ?? 'not done'}${notes.length ? `; ${notes.join('; ')}` : ''}`,
    });
  } else {
    stages.push({ name: 'load', status: 'skipped', exitCode: null, seconds: 0, detail: opts.skipLoad ? '--skip-load' : 'not run: the conformance stage could not be carried out' });
  }

  // 3. Secret scan of everything written so far; the page and verify.json are checked before they are written.
  say('secret scan of reports/');
  const ts = Date.now();
  const found = scan([reportsDir], key);
  stages.push({
    name: 'secret scan', status: found.found.length ? 'fail' : 'pass', exitCode: found.found.length ? 1 : 0, seconds: secs(ts),
    detail: found.found.length ? `the key is in ${found.found.map((f) => relative(reportsDir, f)).join(', ')}` : `${found.scanned} files, no trace of the key or its near misses (raw, URL, base64, hex, inside ZIP archives too)`,
  });

  const exitCode = worst(stages.map((s) => s.exitCode));
  say('report');
  const run: VerifyRun = {
    format: 'console-conformance.verify/1', exitCode, startedAt: startedAt.toISOString(), durationMs: Date.now() - t0,
    target: { url: targetUrl, reference: Boolean(server) }, manifest,
    options: { strict: config.strict, profile: opts.profile, skipLoad: opts.skipLoad, observationsBaseline: observationsBaseline ? shortPath(observationsBaseline) : null, grep: opts.grep ?? null },
    versions: versions(k6), stages,
  };
  const forms = keyForms(key);
  const verifyJson = JSON.stringify(run, null, 2) + '\n';
  writeIfClean(join(reportsDir, 'verify.json'), verifyJson, forms);
  let page: string | undefined;
  if (existsSync(join(reportsDir, 'conformance.json'))) {
    page = join(reportsDir, 'index.html');
    writeIfClean(page, renderPage(readInputs(reportsDir)), forms);
  }
  printVerdict(run, confSummary, compare, page);
  return exitCode;
}

/** A partial or inconclusive conformance run, in the stage's detail. */
function partialNote(summary: ConformanceSummary): string {
  const parts: string[] = [];
  if (summary.tests.inconclusive) parts.push(`${summary.tests.inconclusive} inconclusive (transport)`);
  if (summary.stop) parts.push(`partial: stopped: ${summary.stop.reason} after ${summary.stop.afterTests} of ${summary.stop.ofTests} tests`);
  return parts.length ? `; ${parts.join('; ')}` : '';
}

function writeIfClean(file: string, text: string, forms: string[]): void {
  if (forms.some((f) => text.includes(f))) throw new Error(`${file} would hold the API key: not written`);
  writeFileSync(file, text);
}

function printVerdict(run: VerifyRun, conf: any, compare: CompareResult | undefined, page: string | undefined): void {
  const word = ['PASS', 'FAIL', 'REGRESSION', 'NOT RUN'][run.exitCode] ?? 'NOT RUN';
  const out = ['', '================================ verdict ================================'];
  for (const s of run.stages) out.push(`${s.status.toUpperCase().padEnd(10)} ${s.name.padEnd(12)} ${`${s.seconds.toFixed(1)} s`.padStart(7)}  ${s.detail}`);
  if (conf) {
    const st = ['pass', 'fail', 'warn', 'observed', 'uncovered'];
    out.push('', `clauses   ${'level'.padEnd(9)}${'total'.padStart(6)}${st.map((s) => s.padStart(10)).join('')}`);
    for (const l of ['stated', 'inferred', 'open']) {
      const row = conf.byLevel[l];
      out.push(`          ${l.padEnd(9)}${String(st.reduce((n, s) => n + row[s], 0)).padStart(6)}${st.map((s) => String(row[s]).padStart(10)).join('')}`);
    }
    if (conf.drift) out.push(`          drift against the previous run: ${conf.drift} (see the report)`);
  }
  if (compare) {
    out.push('');
    for (const p of Object.values(compare.profiles)) {
      const withBase = p.endpoints.filter((e) => e.ratio);
      const slowest = withBase.slice().sort((a, b) => b.ratio!.p95 - a.ratio!.p95)[0];
      const scale = p.calibration.scale !== null ? `calibration ${p.calibration.scale}x` : p.reason;
      const few = slowest && Math.min(slowest.count, slowest.baseline?.count ?? 0) < compare.tolerance.minP95Count ? ` (${slowest.count} samples: p95 not judged)` : '';
      out.push(`load      ${p.script.padEnd(9)} ${p.verdict.padEnd(12)} ${scale}${slowest ? `; slowest vs baseline: ${slowest.endpoint} p95 ${slowest.p95} ms, ${slowest.ratio!.p95}x expected${few}` : ''}`);
      for (const e of p.endpoints.filter((x) => x.regression)) out.push(`          REGRESSION ${e.endpoint}: ${e.reason}`);
    }
  }
  out.push('', `report    ${page ? shortPath(page) : '(not written: no conformance results)'}`);
  out.push(`verdict   ${word} (exit ${run.exitCode}) in ${(run.durationMs / 1000).toFixed(1)} s`);
  console.log(out.join('\n'));
}

main().then(
  (c) => process.exit(c),
  (err) => fail3((err as Error).message.split('\n')[0]),
);
