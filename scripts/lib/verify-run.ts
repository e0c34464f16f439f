// The work of `npm run verify`: the stages in order, each in a file of its own under scripts/lib/verify/
// (target-check, conformance, load, secret-scan, report; the verdict screen in verdict-screen.ts): the
// conformance suite against the target (a reference server it starts when none is configured), the
// paging and mutation load profiles (Artillery) compared with the baselines, the secret scan of reports/,
// and the report (verify.json, index.html and a verdict that fits on one screen). Exit codes: 0 pass,
// 1 contract failure, 2 performance regression, 3 the run could not be carried out; when several apply,
// core/exit.ts's worst(): 1 before 3 before 2 (a contract failure is a fact whatever else happened; a
// run with a stage missing cannot be called a regression).
import { existsSync } from 'node:fs';
import { ConfigError, isLoopback, loadConfig, type Config } from '../../core/config.ts';
import { worst } from '../../core/exit.ts';
import type { StageResult, VerifyRun } from '../../core/formats.ts';
import { dependencyVersion, packageCommit, packageVersion } from '../../core/package.ts';
import { randomApiKey } from '../../core/reference.ts';
import type { CompareResult } from '../../load/compare/baseline.ts';
import { prepareReports } from './previous-run.ts';
import { conformanceStage } from './verify/conformance.ts';
import { loadStage } from './verify/load.ts';
import { onSignal, setStopLine } from './verify/processes.ts';
import { restoredLine } from '../../core/ledger.ts';
import { reportStage } from './verify/report.ts';
import { notRunStage, type Run, shortPath, type VerifyOptions } from './verify/run.ts';
import { secretScanStage } from './verify/secret-scan.ts';
import { targetCheckStage } from './verify/manifest-check.ts';
import { printVerdict } from './verify/verdict-screen.ts';

export type { VerifyOptions } from './verify/run.ts';

/** What verify.json records of the tools that ran. */
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
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  setStopLine(() =>
    config.baseUrl ? restoredLine(reportsDir, config.baseUrl) : 'the reference server it started is stopped; nothing of a target to give back',
  );

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
