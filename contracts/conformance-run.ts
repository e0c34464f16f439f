// The work of `npm run conformance`: a preflight that the target is the Console API, then the
// Playwright suite, and the exit code from the verdict in conformance.json. Exit codes: 0 pass; 1
// contract failure (a stated clause violated, or an inferred one under --strict), even when the run
// later stopped; 3 the run could not be carried out, or was cut short (deadline, transport failures:
// docs/transport.md), with one line and, where the suite ran, a partial report.
import { readConformance } from '../core/formats.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type AuthProbes, ConfigError, ROOT, loadConfig, newListSeed, seconds, type Config } from '../core/config.ts';
import { EXIT } from '../core/exit.ts';
import { PLAYWRIGHT_CLI, TS_NODE_OPTIONS } from '../core/package.ts';
import { redactText } from '../core/keys.ts';
import { addLedgerPart, LEDGER_FILE, owe, owedRestores, readLedger, restoredLine, settleOwed, tally } from '../core/ledger.ts';
import { referenceUnlessTarget } from '../core/reference.ts';
import { CLAUSES } from './support/clauses.ts';
import { notRunJunit } from './support/junit.ts';
import type { ConformanceReport, ConformanceSummary } from '../core/formats.ts';
import { exitCodeOf } from './support/verdict.ts';
import { unmatchedWaivers } from '../core/waivers.ts';
import { PREFLIGHT_TIMEOUT_MS, preflight } from '../core/preflight.ts';
import { changedBy, finishedLine, finishOwed, restore, restoreAfterCut, takeSnapshot, unknownIds, type Connection, type Snapshot } from '../core/restore.ts';
import { killTree } from '../core/process-tree.ts';

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
  // From here to the exit no signal ends the process by its default action: a cut run gives back what it owes first.
  const guard = new CutGuard();
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
    const conn: Connection = { baseUrl: config.baseUrl ?? env.CONSOLE_BASE_URL!, apiKey: env.CONSOLE_API_KEY!, timeoutMs: config.requestTimeoutMs };
    startLedger(conn, config);
    // What an earlier run cut short still owes this target comes first: its snapshot is the owners' state.
    if (!server) {
      const stop = await finishEarlier(conn, config);
      if (stop) return notRun(config.reportsDir, stop, config.strict);
    }
    if (guard.signal) return say3(`stopped by ${guard.signal} before the suite wrote anything`);
    const { snapshot, gateRules, unknown } = await snapshotFor(conn, config, !server);
    // A manifest id the target does not know would fail the tests that use it as if the target broke the contract.
    if (unknown.length || guard.signal) {
      if (snapshot) await restoreAfter(conn, config, snapshot, true);
      if (guard.signal) return guard.stopped(config.reportsDir, conn.baseUrl);
      return notRun(config.reportsDir, `${unknown[0]}${unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : ''}`, config.strict);
    }
    // The workers judge a refusal of rules by a gate that may be full against what it held at the start.
    env.CONSOLE_GATE_RULES = JSON.stringify(gateRules);
    const r = await playwright(opts.playwrightArgs, env, Math.ceil(deadlineAt - Date.now() + 30_000), guard);
    // A run cut short, or one whose suite did not end by itself, may have left a write nobody recorded: all the snapshot found is written back.
    if (snapshot) await restoreAfter(conn, config, snapshot, Boolean(guard.signal) || r === 'timeout');
    if (guard.signal) return guard.stopped(config.reportsDir, conn.baseUrl);
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
    guard.dispose();
    await server?.stop();
  }
}

/**
 * Playwright as a child (not spawnSync: a signal to this process must still be able to stop it and restore).
 * With tsx's loader where Node does not strip the types itself (core/package.ts): Playwright compiles no
 * TypeScript under a node_modules folder, where the suite is when installed from npm; its workers inherit
 * the loader with the rest of the child's Node options.
 */
function playwright(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, guard: CutGuard): Promise<number | 'timeout'> {
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, PLAYWRIGHT_CLI, 'test', '-c', join(ROOT, 'playwright.config.ts'), ...args], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) killTree(child.pid);
  }, timeoutMs);
  guard.attach(child);
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      guard.detach();
      done(timedOut ? 'timeout' : (code ?? (signal ? 3 : 0)));
    }),
  );
}

/** Within this time a repeat of the same signal is the same cut, passed on by a parent. */
const SAME_CUT_MS = 500;

/** How long Playwright has after a first SIGINT to stop by itself (and write its partial report) before its tree is killed. */
const PLAYWRIGHT_GRACE_MS = 2000;

/**
 * SIGINT and SIGTERM (Ctrl-C, CI cancelling a job) during a run: noted, never the default exit, so that
 * no signal, a second one included, stops the process between its first write and its restore. The
 * first SIGINT gives Playwright a moment to stop by itself; SIGTERM, a second signal or the end of that
 * moment kill Playwright and its workers (which ignore both signals and would go on writing: core/process-tree.ts)
 * before anything is written back. CI sends SIGKILL some seconds after SIGTERM: the restore must be done by then.
 */
class CutGuard {
  signal: NodeJS.Signals | undefined;
  private child: ChildProcess | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly on = (s: NodeJS.Signals) => this.cut(s);
  constructor() {
    process.on('SIGINT', this.on);
    process.on('SIGTERM', this.on);
  }
  private at = 0;
  private cut(s: NodeJS.Signals): void {
    const first = this.signal === undefined;
    // The group's signal and the same one passed on by a parent (verify, tsx) arrive together, later on a busy machine: one cut.
    if (!first && s === this.signal && Date.now() - this.at < SAME_CUT_MS) return;
    this.signal ??= s;
    this.at = Date.now();
    if (!this.child) {
      if (!first) console.error(`conformance: ${s} again: what the run owes the target is being given back first`);
      return;
    }
    if (first && s === 'SIGINT') {
      // The group's SIGINT reached Playwright too; a SIGINT sent to this process alone did not.
      this.child.kill('SIGINT');
      this.timer = setTimeout(() => this.killChild(), PLAYWRIGHT_GRACE_MS);
    } else this.killChild();
  }
  private killChild(): void {
    if (this.child?.pid) killTree(this.child.pid);
  }
  attach(child: ChildProcess): void {
    this.child = child;
    if (this.signal) this.killChild();
  }
  detach(): void {
    clearTimeout(this.timer);
    this.child = undefined;
  }
  /** The exit of a cut run: 3, with the one line of what was given back. */
  stopped(reportsDir: string, target: string): 3 {
    return say3(`stopped by ${this.signal}: ${restoredLine(reportsDir, target)}`);
  }
  dispose(): void {
    clearTimeout(this.timer);
    process.off('SIGINT', this.on);
    process.off('SIGTERM', this.on);
  }
}

const manifestShown = (config: Config) => relative(ROOT, config.manifestPath);

/** A new ledger for this run (what an earlier run still owes is kept: core/ledger.ts). */
function startLedger(conn: Connection, config: Config): void {
  addLedgerPart(
    config.reportsDir,
    { by: 'conformance:snapshot', startedAt: new Date().toISOString(), writes: [], restores: [] },
    { target: conn.baseUrl, manifest: manifestShown(config), readOnly: config.readOnly, fresh: true },
  );
}

/** Finishes what an earlier run cut short owes this target (core/restore.ts finishOwed); the reason to stop when it cannot. */
async function finishEarlier(conn: Connection, config: Config): Promise<string | undefined> {
  if (config.readOnly) {
    if (owedRestores(config.reportsDir).some((o) => o.target === conn.baseUrl))
      console.error(
        `conformance: note: an earlier run was cut before its restore (${LEDGER_FILE}); a --read-only run writes nothing: run without it to finish the restore`,
      );
    return undefined;
  }
  const f = await finishOwed(config.reportsDir, conn, manifestShown(config));
  if (!f) return undefined;
  console.error(`conformance: ${finishedLine(f)}`);
  return f.left.length ? finishedLine(f) : undefined;
}

/**
 * The manifest gates' enabled state as the run finds them (core/restore.ts), in the run's ledger and,
 * before any write, as what the run owes the target (`owes`: a target this run did not start); none in a
 * read-only run, which writes nothing to restore.
 */
async function snapshotFor(
  conn: Connection,
  config: Config,
  owes: boolean,
): Promise<{ snapshot: Snapshot | undefined; gateRules: Record<string, number>; unknown: string[] }> {
  const opts = { target: conn.baseUrl, manifest: manifestShown(config), readOnly: config.readOnly };
  const startedAt = new Date().toISOString();
  if (config.readOnly) return { snapshot: undefined, gateRules: {}, unknown: [] };
  const s = await takeSnapshot(conn, config.manifest);
  for (const note of s.notes) console.error(`conformance: note: ${note}`);
  addLedgerPart(config.reportsDir, { by: 'conformance:snapshot', startedAt, writes: tally(s.writes), restores: [] }, { ...opts, state: s.state });
  // Written before Playwright starts, so before the suite's first write; a gate already owed keeps the state recorded first.
  if (owes) s.snapshot.gates = owe(config.reportsDir, { target: conn.baseUrl, by: 'conformance', gates: s.snapshot.gates });
  const gateRules = Object.fromEntries(Object.entries(s.state.gates).flatMap(([g, v]) => (v.rules === null ? [] : [[g, v.rules]])));
  return { snapshot: s.snapshot, gateRules, unknown: unknownIds(s.statuses) };
}

/**
 * Writes back what the snapshot found: for what the suite's part of the ledger says it changed after a
 * run that ended by itself, for every gate the snapshot found after a cut (the part then misses the writes
 * of tests that were stopped). What was given back, or needed none, is no longer owed.
 */
async function restoreAfter(conn: Connection, config: Config, snapshot: Snapshot, cut: boolean): Promise<void> {
  const ran = cut ? undefined : readLedger(config.reportsDir)?.parts.find((p) => p.by === 'conformance');
  const changed = ran ? changedBy(ran.writes) : { gates: Object.keys(snapshot.gates), experiments: [] };
  // The experiments the run patched: the ledger says their overrides are not given back (core/restore.ts).
  const r = await (cut ? restoreAfterCut : restore)(conn, snapshot, { gates: changed.gates, experiments: changed.experiments });
  const failed = r.restores.filter((x) => !x.ok);
  for (const f of failed) console.error(`conformance: note: ${f.resource} ${f.field} not restored: ${f.detail}`);
  addLedgerPart(
    config.reportsDir,
    { by: 'conformance:restore', startedAt: new Date().toISOString(), writes: tally(r.writes), restores: r.restores },
    { target: conn.baseUrl, manifest: manifestShown(config), readOnly: config.readOnly, state: r.state },
  );
  const notGiven = new Set(failed.filter((x) => x.resource.startsWith('gates/')).map((x) => x.resource.slice('gates/'.length)));
  settleOwed(
    config.reportsDir,
    conn.baseUrl,
    Object.keys(snapshot.gates).filter((g) => !notGiven.has(g)),
  );
}
