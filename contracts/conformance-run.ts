// The work of `npm run conformance`: a preflight that the target is the Console API, then the
// Playwright suite, and the exit code from the verdict in conformance.json. Exit codes: 0 pass; 1
// contract failure (a stated clause violated, or an inferred one under --strict), even when the run
// later stopped; 3 the run could not be carried out, or was cut short (deadline, transport failures:
// docs/transport.md), with one line and, where the suite ran, a partial report.
import { readConformance } from '../core/formats.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type AuthProbes, ConfigError, ROOT, loadConfig, newListSeed, seconds, type Config } from '../core/config.ts';
import { EXIT } from '../core/exit.ts';
import { PLAYWRIGHT_CLI, TSX_LOADER } from '../core/package.ts';
import { redactText } from '../core/keys.ts';
import { addLedgerPart, readLedger, tally } from '../core/ledger.ts';
import { referenceUnlessTarget } from '../core/reference.ts';
import { CLAUSES } from './support/clauses.ts';
import { notRunJunit } from './support/junit.ts';
import type { ConformanceReport, ConformanceSummary } from '../core/formats.ts';
import { exitCodeOf } from './support/verdict.ts';
import { unmatchedWaivers } from '../core/waivers.ts';
import { PREFLIGHT_TIMEOUT_MS, preflight } from '../core/preflight.ts';
import { changedBy, restore, takeSnapshot, unknownIds, type Connection, type Snapshot } from '../core/restore.ts';

export { preflight } from '../core/preflight.ts';

export interface ConformanceOptions {
  strict: boolean;
  /** Only reads and dryRun writes reach the target (also CONSOLE_READ_ONLY=1). */
  readOnly?: boolean;
  /** --auth-probes: which wrong keys the auth tests send (also CONSOLE_AUTH_PROBES). */
  authProbes?: AuthProbes;
  /** --deadline, as given (checked here: a bad value is a ConfigError). */
  deadline: string | undefined;
  observationsBaseline: string | undefined;
  /** --waive, as given: `<clause glob>=<reason>` each (core/config.ts, CONSOLE_WAIVE). */
  waive?: string[];
  /** Everything else, for `playwright test` (--grep, --repeat-each, --shard ...). */
  playwrightArgs: string[];
  /** The environment the run reads its target from (default this process's): `npm run candidate` runs two targets. */
  env?: NodeJS.ProcessEnv;
  /** When the deadline starts counting (epoch ms; default this process's start): a command that runs the suite several times gives each run its own. */
  startedAt?: number;
}

/** The one line of exit 3, returned as the code so that the caller's `finally` still stops the reference server. */
function say3(reason: string): 3 {
  console.error(`conformance: ${reason}`);
  return EXIT.notCarriedOut;
}

/** The run could not start: the one line, and a junit.xml that says it (contracts/support/junit.ts). */
function notRun(reportsDir: string, reason: string, strict: boolean): 3 {
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(join(reportsDir, 'junit.xml'), notRunJunit(reason, strict));
  return say3(reason);
}

/** The one line of a run that left stated clauses unchecked for reasons the user can fix (exit 3). */
function incompleteLine(summary: ConformanceSummary): string {
  const groups = summary.incomplete ?? [];
  const n = groups.reduce((sum, g) => sum + g.clauses.length, 0);
  return `INCOMPLETE: ${n} stated clause${n === 1 ? '' : 's'} unchecked: ${groups.map((g) => g.reason).join('; ')} (see the INCOMPLETE lines above; waive on purpose with --waive or the manifest's "waive")`;
}

/** The one line of a run that was cut short or left tests unchecked (exit 3). */
function cutShort(summary: ConformanceSummary, deadline: number): string {
  const s = summary.stop;
  const inconclusive = summary.tests.inconclusive
    ? `; ${summary.tests.inconclusive} test${summary.tests.inconclusive > 1 ? 's' : ''} inconclusive (transport)`
    : '';
  if (s?.cause === 'deadline') return `stopped: deadline of ${deadline} s passed after ${s.afterTests} of ${s.ofTests} tests${inconclusive}`;
  if (s) return `stopped: ${s.reason} after ${s.afterTests} of ${s.ofTests} tests`;
  return `inconclusive: ${summary.tests.inconclusive} of ${summary.tests.total} tests got no usable answer (transport; see the INCONCLUSIVE lines above and conformance.json "inconclusive")`;
}

/** The suite against the configured target, or a reference server started for it; resolves to the exit code. */
export async function runConformance(opts: ConformanceOptions): Promise<number> {
  // The deadline counts from the command's start, node's own start-up included.
  const t0 = opts.startedAt ?? Date.now() - process.uptime() * 1000;
  const env = { ...(opts.env ?? process.env) };
  if (opts.observationsBaseline) env.CONSOLE_OBSERVATIONS_BASELINE = opts.observationsBaseline;
  if (opts.strict) env.CONSOLE_STRICT = '1';
  if (opts.readOnly) env.CONSOLE_READ_ONLY = '1';
  if (opts.authProbes) env.CONSOLE_AUTH_PROBES = opts.authProbes;
  if (opts.deadline !== undefined) env.CONSOLE_DEADLINE = String(seconds(opts.deadline, '--deadline', 0));
  if (opts.waive?.length) env.CONSOLE_WAIVE = [env.CONSOLE_WAIVE ?? '', ...opts.waive].filter(Boolean).join('\n');
  const config = loadConfig(env);
  const typo = unmatchedWaivers(
    config.manifest.waive,
    CLAUSES.map((c) => c.id),
  )[0];
  if (typo) throw new ConfigError(`target manifest ${config.manifestPath}: waive "${typo.clauses}" matches no clause of contracts/clauses.yaml`);
  const deadline = config.deadlineSeconds;
  const server = await referenceUnlessTarget(config, env);
  if (server) console.log(`conformance: reference server at ${server.baseUrl}`);
  try {
    const unfit = await preflight(
      env.CONSOLE_BASE_URL!,
      env.CONSOLE_API_KEY!,
      Math.max(1000, Math.min(PREFLIGHT_TIMEOUT_MS, (deadline - (Date.now() - t0) / 1000) * 1000)),
    );
    const report = join(config.reportsDir, 'conformance.json');
    // An earlier run's results must not pass for this run's, whatever happens next.
    for (const file of [report, join(config.reportsDir, 'junit.xml')]) rmSync(file, { force: true });
    if (unfit) return notRun(config.reportsDir, unfit, config.strict);
    // Playwright gets the deadline as a time (playwright.config.ts makes it its globalTimeout, less what
    // its stop and reports take); the child's own timeout is a backstop should it not stop.
    const deadlineAt = t0 + deadline * 1000;
    if (deadlineAt - Date.now() < 5000) return notRun(config.reportsDir, `stopped: deadline of ${deadline} s passed before the suite started`, config.strict);
    env.CONSOLE_DEADLINE_AT = String(Math.round(deadlineAt));
    // One seed for every worker's draws across a list's depth, written in the report so that a run replays.
    if (!env.CONSOLE_LIST_SEED?.trim()) env.CONSOLE_LIST_SEED = String(newListSeed());
    const conn: Connection = { baseUrl: env.CONSOLE_BASE_URL!, apiKey: env.CONSOLE_API_KEY!, timeoutMs: config.requestTimeoutMs };
    const { snapshot, gateRules, unknown } = await snapshotFor(conn, config);
    // A manifest id the target does not know would fail the tests that use it as if the target broke the contract.
    if (unknown.length) {
      if (snapshot) await restoreAfter(conn, config, snapshot);
      return notRun(config.reportsDir, `${unknown[0]}${unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : ''}`, config.strict);
    }
    // The workers judge a refusal of rules by a gate that may be full against what it held at the start.
    env.CONSOLE_GATE_RULES = JSON.stringify(gateRules);
    const r = await untilRestored(snapshot && (() => restoreAfter(conn, config, snapshot)), () =>
      playwright(opts.playwrightArgs, env, Math.ceil(deadlineAt - Date.now() + 30_000)),
    );
    if (!existsSync(report))
      return say3(
        r === 'timeout'
          ? `stopped: deadline of ${deadline} s passed and the suite did not stop by itself`
          : `the suite did not run to the end (playwright exit ${r}); see its output above`,
      );
    const summary = readConformance(config.reportsDir)!.summary;
    // The code is the verdict's (support/verdict.ts); an exit 3 says why in one line.
    const code = exitCodeOf(summary);
    if (code !== EXIT.notCarriedOut) return code;
    if (summary.verdict === 'inconclusive') return say3(cutShort(summary, deadline));
    if (summary.tests.total === 0) return say3('no test ran (check --grep / --shard)');
    return say3(incompleteLine(summary));
  } finally {
    await server?.stop();
  }
}

/**
 * Playwright as a child (not spawnSync: a signal to this process must still be able to stop it and restore).
 * With tsx's loader: Playwright compiles no TypeScript under a node_modules folder, where the suite is
 * when installed from npm; its workers inherit the loader with the rest of the child's Node options.
 */
function playwright(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<number | 'timeout'> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, PLAYWRIGHT_CLI, 'test', '-c', join(ROOT, 'playwright.config.ts'), ...args], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(timedOut ? 'timeout' : (code ?? (signal ? 3 : 0)));
    }),
  );
}

/**
 * Runs `work`, then `restoreAll` (when there is one) whatever happens: also when the run is cut short
 * by a signal, in which case the process exits 3 once the target is restored.
 */
async function untilRestored<R>(restoreAll: (() => Promise<void>) | undefined, work: () => Promise<R>): Promise<R> {
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (s: NodeJS.Signals) => {
    signalled = s;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await restoreAll?.();
    if (signalled) {
      console.error(`conformance: stopped by ${signalled}; the target's gates and overrides were restored`);
      process.exit(EXIT.notCarriedOut);
    }
  }
}

const manifestShown = (config: Config) => relative(ROOT, config.manifestPath);

/**
 * The manifest gates' enabled state and experiments' overrides as the run finds them (core/restore.ts),
 * in a new ledger for this run; none in a read-only run, which writes nothing to restore.
 */
async function snapshotFor(
  conn: Connection,
  config: Config,
): Promise<{ snapshot: Snapshot | undefined; gateRules: Record<string, number>; unknown: string[] }> {
  const opts = { target: conn.baseUrl, manifest: manifestShown(config), readOnly: config.readOnly, fresh: true };
  const startedAt = new Date().toISOString();
  if (config.readOnly) {
    addLedgerPart(config.reportsDir, { by: 'conformance:snapshot', startedAt, writes: [], restores: [] }, opts);
    return { snapshot: undefined, gateRules: {}, unknown: [] };
  }
  const s = await takeSnapshot(conn, config.manifest);
  for (const note of s.notes) console.error(`conformance: note: ${note}`);
  addLedgerPart(config.reportsDir, { by: 'conformance:snapshot', startedAt, writes: tally(s.writes), restores: [] }, { ...opts, state: s.state });
  const gateRules = Object.fromEntries(Object.entries(s.state.gates).flatMap(([g, v]) => (v.rules === null ? [] : [[g, v.rules]])));
  return { snapshot: s.snapshot, gateRules, unknown: unknownIds(s.statuses) };
}

/** Writes back what the snapshot found, for what the run changed (all it found when the suite's part of the ledger is missing). */
async function restoreAfter(conn: Connection, config: Config, snapshot: Snapshot): Promise<void> {
  const ran = readLedger(config.reportsDir)?.parts.find((p) => p.by === 'conformance');
  const changed = ran ? changedBy(ran.writes) : { gates: Object.keys(snapshot.gates), experiments: [] };
  // The experiments the run patched: the ledger says their overrides are not given back (core/restore.ts).
  const r = await restore(conn, snapshot, { gates: changed.gates, experiments: changed.experiments });
  const failed = r.restores.filter((x) => !x.ok);
  for (const f of failed) console.error(`conformance: note: ${f.resource} ${f.field} not restored: ${f.detail}`);
  addLedgerPart(
    config.reportsDir,
    { by: 'conformance:restore', startedAt: new Date().toISOString(), writes: tally(r.writes), restores: r.restores },
    { target: conn.baseUrl, manifest: manifestShown(config), readOnly: config.readOnly, state: r.state },
  );
}
