// The work of `npm run verify`, one function per stage: the conformance suite against the target (a
// reference server it starts when none is configured), the paging and mutation load profiles (Artillery) compared
// with the baselines, the secret scan of reports/, and the report (verify.json, index.html and a
// verdict that fits on one screen). Exit codes: 0 pass, 1 contract failure, 2 performance regression,
// 3 the run could not be carried out; when several apply, core/exit.ts's worst(): 1 before 3 before 2
// (a contract failure is a fact whatever else happened; a run with a stage missing cannot be called a
// regression).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { type AuthProbes, ConfigError, ROOT, isLoopback, loadConfig, type Config } from '../../core/config.ts';
import { worst } from '../../core/exit.ts';
import { recordRun } from '../../core/history.ts';
import { keyForms } from '../../core/keys.ts';
import { dependencyVersion, packageCommit, packageVersion, TSX_CLI } from '../../core/package.ts';
import { randomApiKey, referenceUnlessTarget, type ReferenceServer } from '../../core/reference.ts';
import type { ConformanceSummary } from '../../contracts/support/reporter.ts';
import {
  LOAD_SCRIPTS,
  readConformance,
  readRunSummary,
  RUN_FILES,
  STATUSES,
  statusCount,
  writeVerify,
  type Level,
  type StageResult,
  type VerifyRun,
} from '../../core/formats.ts';
import { compareRun, needsConfirmation, printCompare, type CompareResult } from '../../load/compare/baseline.ts';
import { renderPage } from '../../report/html.ts';
import { readInputs, type ReportInputs } from '../../report/inputs.ts';
import { describeChange, trendsOf } from '../../report/trend.ts';
import { writeTimeSeries } from '../../report/timeseries.ts';
import { scan } from '../../core/scan.ts';
import { historyRunOf } from '../../report/history-record.ts';
import { prepareReports } from './previous-run.ts';
import { readTestLine, Ticker, type TestProgress } from './progress.ts';
import { TARGET_CHECK_FILE, type TargetCheck } from '../../target/check.ts';
import { runTargetCheck, type TargetCheckOutcome } from '../../target/run-check.ts';

export const PROFILES = ['smoke', 'baseline', 'stress'] as const;
const LEVEL_NAMES: Level[] = ['stated', 'inferred', 'open'];

export interface VerifyOptions {
  strict: boolean;
  /** Only reads and dryRun writes reach the target; the load runs its paging profile only (also CONSOLE_READ_ONLY=1). */
  readOnly?: boolean;
  /** --auth-probes: which wrong keys the auth tests send (also CONSOLE_AUTH_PROBES). */
  authProbes?: AuthProbes;
  skipLoad: boolean;
  profile: string;
  baselines: string | undefined;
  observationsBaseline: string | undefined;
  grep: string | undefined;
  deadline: string | undefined;
  /** The run history file (--history), else CONSOLE_HISTORY, else reports/history.sqlite. */
  history?: string | undefined;
  /** Artillery runners per load profile (--runners, load:* --runners): above 1, their records merged. */
  runners?: number;
}

/** What the stages share: the options, the configuration, where reports go and how much time is left. */
interface Run {
  opts: VerifyOptions;
  env: NodeJS.ProcessEnv;
  config: Config;
  key: string;
  reportsDir: string;
  historyFile: string;
  observationsBaseline: string | undefined;
  left(): number;
  say(text: string): void;
}

const firstLine = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: ROOT });
  return r.status === 0 ? r.stdout.trim().split('\n')[0] : undefined;
};

function versions(load: boolean): Record<string, string> {
  const commit = packageCommit();
  const out: Record<string, string> = {
    'console-conformance': `${packageVersion()}${commit === 'unknown' ? '' : ` (${commit})`}`,
    node: process.version,
    playwright: dependencyVersion('@playwright/test'),
  };
  // The load engine, an npm dependency (docs/load.md: why Artillery, not k6).
  if (load) out.artillery = dependencyVersion('artillery');
  return out;
}

/** The stage's child process now running, to be stopped with verify. */
let running: ChildProcess | undefined;

/** Runs a node script with tsx, its stdout read line by line (for progress), stderr passed through. */
function runTsx(script: string, args: string[], env: NodeJS.ProcessEnv, onLine: (line: string) => void, onErrorLine?: (line: string) => void): Promise<number> {
  const child = spawn(process.execPath, [TSX_CLI, join(ROOT, script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running = child;
  createInterface({ input: child.stdout! }).on('line', onLine);
  // Passed through as it comes; the caller may keep a line too (the one-line reason of a stage that could not run).
  createInterface({ input: child.stderr! }).on('line', (line) => {
    console.error(line);
    onErrorLine?.(line);
  });
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      running = undefined;
      done(code ?? (signal ? 3 : 0));
    }),
  );
}

/** A path relative to the repository when inside it: a report shows no home folders. */
const shortPath = (p: string) => (relative(ROOT, p).startsWith('..') ? p : relative(ROOT, p));

const secs = (t0: number) => (Date.now() - t0) / 1000;

/** The conformance stage: the suite through contracts/conformance.ts, its progress on one line. */
async function conformanceStage(run: Run): Promise<{ stage: StageResult; summary: ConformanceSummary | undefined; targetUrl: string; reference: boolean }> {
  const { opts, reportsDir, observationsBaseline } = run;
  const confEnv = { ...run.env };
  const server = await referenceUnlessTarget(run.config, confEnv);
  activeServer = server;
  const targetUrl = confEnv.CONSOLE_BASE_URL!;
  run.say(`conformance suite against ${targetUrl}${server ? ' (the reference server, started by verify)' : ''}`);
  const confArgs = [
    '--deadline',
    String(Math.max(1, run.left()).toFixed(1)),
    ...(opts.strict ? ['--strict'] : []),
    ...(run.config.readOnly ? ['--read-only'] : []),
    ...(observationsBaseline ? ['--observations-baseline', observationsBaseline] : []),
    ...(opts.grep ? ['--grep', opts.grep] : []),
  ];
  if (observationsBaseline) console.log(`verify: drift against ${shortPath(observationsBaseline)}`);
  const progress: TestProgress = { total: null, done: 0, failed: 0 };
  const ticker = new Ticker();
  const tc = Date.now();
  const status = (p: TestProgress) =>
    `verify: conformance ${p.done}/${p.total ?? '?'} tests${p.failed ? `, ${p.failed} failed` : ''}, ${secs(tc).toFixed(0)} s`;
  let code: number;
  // The suite's own one-line reason when it cannot be carried out (e.g. "target ... unreachable: ECONNREFUSED").
  let reason = '';
  try {
    code = await runTsx(
      'contracts/conformance.ts',
      confArgs,
      confEnv,
      (line) => {
        const kind = readTestLine(progress, line);
        if (kind === 'test-passed') return ticker.show(status(progress), progress.done === progress.total);
        ticker.clear();
        console.log(line);
        if (kind === 'test-failed') ticker.show(status(progress), true);
      },
      (line) => {
        if (/^conformance: /.test(line)) reason = line.slice('conformance: '.length);
      },
    );
  } finally {
    ticker.clear();
    await server?.stop();
    activeServer = undefined;
  }
  const summary: ConformanceSummary | undefined = readConformance(reportsDir)?.summary;
  const incomplete = code === 3 && summary?.verdict === 'incomplete';
  const stage: StageResult = {
    name: 'conformance',
    status: code === 0 ? 'pass' : code === 1 ? 'fail' : incomplete ? 'incomplete' : 'error',
    exitCode: code,
    seconds: secs(tc),
    detail: summary
      ? `${coverageNote(summary)}${summary.tests.passed}/${summary.tests.total} tests passed, ${summary.tests.failedCounting} failing the run; ${summary.findings?.total ?? 0} inferred findings${summary.findings?.counting ? ` (${summary.findings.counting} failing the run)` : ''}; ${summary.clauses.fail} clauses fail, ${summary.clauses.warn} warn${partialNote(summary)}`
      : `the suite could not be carried out: ${reason || `conformance exit ${code}`}`,
  };
  return { stage, summary, targetUrl, reference: Boolean(server) };
}

/** The load stage: each load profile against a fresh reference server of its own (like the baselines) or the target, then the compare. */
async function loadStage(run: Run): Promise<{ stage: StageResult; compare: CompareResult | undefined }> {
  const { opts, reportsDir, config } = run;
  if (run.left() <= 0)
    return {
      stage: { name: 'load', status: 'error', exitCode: 3, seconds: 0, detail: `not run: the deadline of ${config.deadlineSeconds} s passed` },
      compare: undefined,
    };
  const loadEnv: NodeJS.ProcessEnv = { ...run.env };
  const tl = Date.now();
  run.say(`load: Artillery paging and mutation, ${opts.profile} profile, against ${config.baseUrl ?? 'a fresh reference server each'}`);
  const csvDir = mkdtempSync(join(tmpdir(), 'cc-verify-load-'));
  const codes: Record<string, number> = {};
  const notes: string[] = [];
  let compare: CompareResult | undefined;
  const runScript = async (script: string) => {
    const csv = join(csvDir, `${script}.csv.gz`);
    rmSync(csv, { force: true });
    // One row per request, written by the load run: the throughput-over-time chart (report/timeseries.ts).
    const runEnv = { ...loadEnv, LOAD_REQUESTS_CSV: csvDir };
    const ts = Date.now();
    const timer = setInterval(
      () => console.log(`verify: load ${script} (${opts.profile}) ${secs(ts).toFixed(0)} s elapsed`),
      opts.profile === 'smoke' ? 5000 : 15000,
    );
    try {
      const runners = (opts.runners ?? 1) > 1 ? ['--runners', String(opts.runners)] : [];
      codes[script] = await runTsx('load/command/load.ts', [script, '--profile', opts.profile, ...runners], runEnv, (line) => console.log(line));
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
  // Past the deadline the running load is stopped; what it wrote stays, the stage is an error (exit 3).
  let deadlinePassed = false;
  const deadlineTimer = setTimeout(
    () => {
      deadlinePassed = true;
      console.error(`verify: stopped: deadline of ${config.deadlineSeconds} s passed during the load stage`);
      running?.kill('SIGTERM');
    },
    Math.max(0, run.left() * 1000),
  );
  try {
    for (const script of scriptsOf(run)) if (!deadlinePassed) await runScript(script);
    compare = compareNow();
    // A regression found by the tolerances is run again, and the second run's figures stand; one
    // found by the statistical rule alone stands on one run (needsConfirmation says why).
    const regressed = Object.values(compare?.profiles ?? {})
      .filter((p) => p.verdict === 'regression' && codes[p.script] === 0 && needsConfirmation(p))
      .map((p) => p.script);
    for (const p of Object.values(compare?.profiles ?? {}))
      if (p.verdict === 'regression' && codes[p.script] === 0 && !needsConfirmation(p))
        notes.push(`${p.script} regression found by the statistical rule (one run is enough)`);
    if (regressed.length) {
      renameSync(join(reportsDir, 'load', 'compare.json'), join(reportsDir, 'load', 'compare.first-run.json'));
      console.log(`verify: ${regressed.join(' and ')} regressed: running ${regressed.length > 1 ? 'them' : 'it'} again to confirm`);
      for (const script of regressed) await runScript(script);
      compare = compareNow();
      for (const script of regressed)
        notes.push(
          compare?.profiles[script]?.verdict === 'regression'
            ? `${script} regression confirmed by a second run`
            : `${script} regressed on a first run but not on a second (kept the second; the first is in load/compare.first-run.json)`,
        );
    }
  } finally {
    clearTimeout(deadlineTimer);
    rmSync(csvDir, { recursive: true, force: true });
  }
  const mapped: number[] = [];
  const parts: string[] = [];
  if (run.config.readOnly) parts.push('mutation not run (read-only: it writes)');
  for (const script of scriptsOf(run)) {
    // load.ts has judged its run already (load/command/outcome.ts) and kept the verdict in summary.json.
    const code = codes[script];
    const verdict = readRunSummary(join(reportsDir, RUN_FILES.summary(script)))?.verdict;
    mapped.push(code);
    const warned = verdict?.warnings?.length ? ` (${verdict.warnings.length} inferred ${verdict.warnings.length === 1 ? 'check' : 'checks'} warned)` : '';
    parts.push(`${script} ${verdict?.note ?? (code === 0 ? 'ok' : code === 3 ? 'could not run' : `exit ${code}`)}${warned}`);
  }
  const code = worst([...mapped, deadlinePassed ? 3 : 0, compare?.verdict === 'regression' ? 2 : 0]);
  if (deadlinePassed) parts.push(`stopped: deadline of ${config.deadlineSeconds} s passed`);
  const stage: StageResult = {
    name: 'load',
    status: code === 0 ? 'pass' : code === 1 ? 'fail' : code === 2 ? 'regression' : 'error',
    exitCode: code,
    seconds: secs(tl),
    detail: `${opts.profile}: ${parts.join(', ')}; compare ${compare?.verdict ?? 'not done'}${notes.length ? `; ${notes.join('; ')}` : ''}`,
  };
  return { stage, compare };
}

/** The load scripts this run takes: a read-only run only reads, so the mutation profile is left out. */
const scriptsOf = (run: Run) => (run.config.readOnly ? LOAD_SCRIPTS.filter((s) => s === 'paging') : LOAD_SCRIPTS);

const notRunStage = (name: string, detail: string): StageResult => ({ name, status: 'error', exitCode: 3, seconds: 0, detail });

/** The target check (target/run-check.ts): the manifest read against the target, and how many nights it lasts. */
async function targetCheckStage(run: Run): Promise<{ stage: StageResult; stop: boolean; outcome: TargetCheckOutcome }> {
  run.say(`target check: the manifest ${shortPath(run.config.manifestPath)} against ${run.config.baseUrl}`);
  const ts = Date.now();
  const outcome = await runTargetCheck(run.config, { baseUrl: run.config.baseUrl!, apiKey: run.key, reference: false });
  for (const line of outcome.lines) console.log(line);
  const check = outcome.check;
  if (check) writeFileSync(join(run.reportsDir, TARGET_CHECK_FILE), `${JSON.stringify(check, null, 2)}\n`);
  const nights = check?.nightsLeft === null || check?.nightsLeft === undefined ? 'not bounded' : String(check.nightsLeft);
  const detail = outcome.stop
    ? (outcome.reason ?? 'the manifest does not fit the target')
    : `${check?.experiments.length ?? 0} experiments and ${check?.triggers.length ?? 0} triggers found; nights left: ${nights}${check?.warnings.length ? `; WARNING ${check.warnings.join('; WARNING ')}` : ''}`;
  return {
    stage: { name: 'target check', status: outcome.stop ? 'error' : 'pass', exitCode: outcome.stop ? 3 : 0, seconds: secs(ts), detail },
    stop: outcome.stop,
    outcome,
  };
}

/** The secret scan of everything written so far (the page and verify.json are checked before they are written). */
function secretScanStage(run: Run): StageResult {
  run.say('secret scan of reports/');
  const ts = Date.now();
  const found = scan([run.reportsDir], run.key);
  return {
    name: 'secret scan',
    // The key in a report is the suite's own fault, not the target's: exit 1 is a contract violation only.
    status: found.found.length ? 'error' : 'pass',
    exitCode: found.found.length ? 3 : 0,
    seconds: secs(ts),
    detail: found.found.length
      ? `the key is in ${found.found.map((f) => relative(run.reportsDir, f)).join(', ')}: do not share these reports`
      : `${found.scanned} files, no trace of the key or its near misses (raw, URL, base64, hex, inside ZIP archives too)`,
  };
}

/**
 * The report: verify.json, the run added to the history, and index.html (its trends from the
 * history, this run included); verify.json and the page are refused when they would hold the key.
 * Returns the page's path when written, and what it was made of.
 */
function reportStage(run: Run, result: VerifyRun): { page: string | undefined; inputs: ReportInputs | undefined } {
  run.say('report');
  const forms = keyForms(run.key);
  writeVerify(run.reportsDir, result, (text) => clean(join(run.reportsDir, RUN_FILES.verify), text, forms));
  recordHistory(run);
  // Written also when the suite never ran (target down, not the Console API): the page says why.
  const page = join(run.reportsDir, 'index.html');
  const inputs = readInputs(run.reportsDir, run.historyFile);
  writeIfClean(page, renderPage(inputs), forms);
  return { page, inputs };
}

/** Adds this run to the history; whatever goes wrong is one warning line, never the run's verdict. */
function recordHistory(run: Run): void {
  const warn = (line: string) => console.error(`verify: ${line}`);
  try {
    const row = historyRunOf(readInputs(run.reportsDir, run.historyFile));
    if (row && recordRun(run.historyFile, row, warn)) console.log(`verify: run added to the history ${shortPath(run.historyFile)}`);
  } catch (err) {
    warn(`warning: run history not written to ${shortPath(run.historyFile)}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Checked before anything runs: what would make the run fail late (a refused load target) fails it now. */
function prepare(opts: VerifyOptions): { env: NodeJS.ProcessEnv; config: Config } {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (opts.strict) env.CONSOLE_STRICT = '1';
  if (opts.readOnly) env.CONSOLE_READ_ONLY = '1';
  // Read by the suite's workers (core/config.ts) through the environment the conformance stage inherits.
  if (opts.authProbes) env.CONSOLE_AUTH_PROBES = opts.authProbes;
  if (opts.deadline !== undefined) env.CONSOLE_DEADLINE = opts.deadline;
  // One key for every server this run starts (the conformance suite's and the load runs'), so that
  // one scan covers everything written. It travels in the environment only.
  if (!env.CONSOLE_BASE_URL?.trim() && !env.CONSOLE_API_KEY) env.CONSOLE_API_KEY = randomApiKey();
  const config = loadConfig(env);
  if (!opts.observationsBaseline && config.observationsBaseline && !existsSync(config.observationsBaseline))
    throw new ConfigError(`CONSOLE_OBSERVATIONS_BASELINE: no file ${config.observationsBaseline}`);
  // load.ts would refuse the target only after the whole suite.
  if (!opts.skipLoad && config.baseUrl && !isLoopback(config.baseUrl) && !config.allowRemoteLoad) {
    throw new ConfigError(`load against ${new URL(config.baseUrl).host} is refused (not loopback): set CONSOLE_ALLOW_REMOTE_LOAD=1, or run with --skip-load`);
  }
  return { env, config };
}

/** The whole job; resolves to its exit code. */
export async function verify(opts: VerifyOptions): Promise<number> {
  const { env, config } = prepare(opts);
  const startedAt = new Date();
  const t0 = Date.now();
  const deadlineAt = t0 + config.deadlineSeconds * 1000;
  const reportsDir = config.reportsDir;
  const manifest = shortPath(config.manifestPath);
  const previous = prepareReports(reportsDir, { target: { url: config.baseUrl ?? '', reference: !config.baseUrl }, manifest });
  const total = (opts.skipLoad ? 3 : 4) + (config.baseUrl ? 1 : 0);
  let step = 0;
  const run: Run = {
    opts,
    env,
    config,
    key: config.apiKey!,
    reportsDir,
    historyFile: opts.history ?? config.historyFile,
    // The option, else CONSOLE_OBSERVATIONS_BASELINE (the nightly workflow restores one), else the previous run here.
    observationsBaseline: opts.observationsBaseline ?? config.observationsBaseline ?? previous,
    left: () => (deadlineAt - Date.now()) / 1000,
    say: (text) => console.log(`verify: [${++step}/${total}] ${text}`),
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  // Against a target, the manifest is read against it first: ids it does not know would only make the
  // suite's verdict wrong. A reference server verify starts is new each time: nothing to check.
  const checked = config.baseUrl ? await targetCheckStage(run) : undefined;
  const conformance = checked?.stop
    ? {
        stage: notRunStage(
          'conformance',
          `the suite could not be carried out: ${checked.outcome.reason ?? 'the target check found the manifest unfit for the target'}`,
        ),
        summary: undefined,
        targetUrl: config.baseUrl!,
        reference: false,
      }
    : await conformanceStage(run);
  const stages: StageResult[] = [...(checked ? [checked.stage] : []), conformance.stage];
  let compare: CompareResult | undefined;
  if (opts.skipLoad || conformance.stage.status === 'error') {
    stages.push({
      name: 'load',
      status: 'skipped',
      exitCode: null,
      seconds: 0,
      detail: opts.skipLoad ? '--skip-load' : `not run: the ${checked?.stop ? 'target check' : 'conformance stage'} could not be carried out`,
    });
  } else {
    const load = await loadStage(run);
    stages.push(load.stage);
    compare = load.compare;
  }
  stages.push(secretScanStage(run));

  const exitCode = worst(stages.map((s) => s.exitCode));
  const result: VerifyRun = {
    format: 'console-conformance.verify/1',
    exitCode,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - t0,
    target: { url: conformance.targetUrl, reference: conformance.reference },
    manifest,
    options: {
      strict: config.strict,
      readOnly: config.readOnly,
      profile: opts.profile,
      skipLoad: opts.skipLoad,
      observationsBaseline: run.observationsBaseline ? shortPath(run.observationsBaseline) : null,
      grep: opts.grep ?? null,
    },
    versions: versions(!opts.skipLoad),
    stages,
  };
  const { page, inputs } = reportStage(run, result);
  printVerdict(result, conformance.summary, compare, page, inputs, checked?.outcome.check);
  return exitCode;
}

/** The reference server of the running stage, stopped should verify be. */
let activeServer: ReferenceServer | undefined;

/** A cancelled run (CI stops a job with SIGTERM) must not leave its reference server or the stage's child behind. */
function onSignal(signal: NodeJS.Signals): void {
  console.error(`verify: stopped by ${signal}`);
  running?.kill('SIGTERM');
  void (activeServer?.stop() ?? Promise.resolve()).then(() => process.exit(3));
}

/** The stated coverage first, and why it is INCOMPLETE: the stage's detail must not read as a pass over unchecked clauses. */
function coverageNote(summary: ConformanceSummary): string {
  const c = summary.coverage;
  if (!c) return '';
  const unchecked = (summary.incomplete ?? []).map((g) => `INCOMPLETE: ${g.clauses.length} unchecked: ${g.reason}`);
  return `${c.checked}/${c.total} stated clauses checked${summary.readOnly ? ` (read-only: ${c.excluded} need a write)` : ''}${unchecked.length ? `; ${unchecked.join('; ')}` : ''}; `;
}

/** A partial or inconclusive conformance run, in the stage's detail. */
function partialNote(summary: ConformanceSummary): string {
  const parts: string[] = [];
  if (summary.tests.inconclusive) parts.push(`${summary.tests.inconclusive} inconclusive (transport)`);
  if (summary.stop) parts.push(`partial: stopped: ${summary.stop.reason} after ${summary.stop.afterTests} of ${summary.stop.ofTests} tests`);
  return parts.length ? `; ${parts.join('; ')}` : '';
}

/** `text` when it holds no form of the key; else the file is refused. */
function clean(file: string, text: string, forms: string[]): string {
  if (forms.some((f) => text.includes(f))) throw new Error(`${file} would hold the API key: not written`);
  return text;
}

function writeIfClean(file: string, text: string, forms: string[]): void {
  writeFileSync(file, clean(file, text, forms));
}

function printVerdict(
  run: VerifyRun,
  conf: ConformanceSummary | undefined,
  compare: CompareResult | undefined,
  page: string | undefined,
  inputs: ReportInputs | undefined,
  check?: TargetCheck,
): void {
  const word = run.exitCode === 3 && conf?.verdict === 'incomplete' ? 'INCOMPLETE' : (['PASS', 'FAIL', 'REGRESSION', 'NOT RUN'][run.exitCode] ?? 'NOT RUN');
  const out = ['', '================================ verdict ================================'];
  for (const s of run.stages) out.push(`${s.status.toUpperCase().padEnd(10)} ${s.name.padEnd(12)} ${`${s.seconds.toFixed(1)} s`.padStart(7)}  ${s.detail}`);
  if (conf) {
    const st = STATUSES.filter((s) => LEVEL_NAMES.some((l) => statusCount(conf.byLevel[l], s) > 0) || ['pass', 'fail', 'warn'].includes(s));
    out.push('', `clauses   ${'level'.padEnd(9)}${'total'.padStart(6)}${st.map((s) => s.padStart(13)).join('')}`);
    for (const l of LEVEL_NAMES) {
      const row = conf.byLevel[l];
      out.push(
        `          ${l.padEnd(9)}${String(STATUSES.reduce((n, s) => n + statusCount(row, s), 0)).padStart(6)}${st.map((s) => String(statusCount(row, s)).padStart(13)).join('')}`,
      );
    }
    const cov = conf.coverage;
    if (cov)
      out.push(
        `coverage  ${cov.checked} of ${cov.total} stated clauses checked${cov.unverifiable ? `, ${cov.unverifiable} not verifiable on this target` : ''}${cov.unreached ? `, ${cov.unreached} not reached (their tests stopped at a failure)` : ''}${cov.waived ? `, ${cov.waived} waived` : ''}${cov.excluded ? `, ${cov.excluded} excluded${conf.readOnly ? ' (read-only: they need a write)' : ''}` : ''}`,
      );
    for (const g of conf.incomplete ?? [])
      out.push(`          INCOMPLETE ${g.clauses.length} stated clause${g.clauses.length > 1 ? 's' : ''} unchecked: ${g.reason}`);
    if (conf.drift) out.push(`          drift against the previous run: ${conf.drift} (see the report)`);
  }
  if (compare) {
    out.push('');
    for (const p of Object.values(compare.profiles)) {
      const withBase = p.endpoints.filter((e) => e.ratio);
      const slowest = withBase.slice().sort((a, b) => b.ratio!.p95 - a.ratio!.p95)[0];
      const scale = p.calibration.scale !== null ? `calibration ${p.calibration.scale}x` : p.reason;
      const few =
        slowest && Math.min(slowest.count, slowest.baseline?.count ?? 0) < compare.tolerance.minP95Count ? ` (${slowest.count} samples: p95 not judged)` : '';
      out.push(
        `load      ${p.script.padEnd(9)} ${p.verdict.padEnd(12)} ${scale}${slowest ? `; slowest vs baseline: ${slowest.endpoint} p95 ${slowest.p95} ms, ${slowest.ratio!.p95}x expected${few}` : ''}`,
      );
      for (const e of p.endpoints.filter((x) => x.regression)) out.push(`          REGRESSION ${e.endpoint}: ${e.reason}`);
    }
  }
  if (check) {
    out.push(
      '',
      `target    ${check.nightsLeft === null ? 'the triggers are not consumed' : `the manifest lasts about ${check.nightsLeft} more night${check.nightsLeft === 1 ? '' : 's'}`} (${check.consumption.phasesPerNight} trigger phases a night, ${check.consumption.source === 'history' ? `measured over ${check.consumption.runs} runs` : 'by design'})`,
    );
    for (const w of check.warnings) out.push(`          WARNING ${w}`);
  }
  out.push(...trendLines(inputs));
  out.push('', `report    ${page ? shortPath(page) : '(not written: no conformance results)'}`);
  out.push(`verdict   ${word} (exit ${run.exitCode}) in ${(run.durationMs / 1000).toFixed(1)} s`);
  console.log(out.join('\n'));
}

/** The verdict's trend lines: for each series that shifted, the change that started its present level. */
function trendLines(inputs: ReportInputs | undefined): string[] {
  if (!inputs || inputs.history.error || inputs.history.runs.length === 0) return [];
  const trends = trendsOf(inputs.history.runs);
  const shifted = [trends.passRate, trends.coverage, ...trends.latency].filter((t) => t.changes.length);
  const head = `trend     ${trends.runs} run${trends.runs === 1 ? '' : 's'} in the history against this target: ${shifted.length ? `${shifted.length} shifted (see the report)` : 'no shift'}`;
  return ['', head, ...shifted.map((t) => `          ${describeChange(t, t.changes.at(-1)!)}`)];
}
