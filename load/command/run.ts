// A configured target's part of the load runner (load/command/run-plan.ts): validators and request
// bodies written ahead, the profiles run on Artillery against the target (or a reference server started
// for each), the snapshot, restore and ledger of a target's writes, the key looked for in what the run
// wrote, each run's verdict. The compare and its confirmation are run-plan.ts's. docs/load.md has the whole story.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { newRunId } from '../../core/random.ts';
import { writeRunValidators } from '../lib/build-validators.ts';
import { attachTarget, measuredAgainst } from '../compare/measured-against.ts';
import { ConfigError, isLoopback, loadConfig, ROOT, requestRowsDirFromEnv, type Config } from '../../core/config.ts';
import { emptyWrites, ledgerWrites, summaryWrites } from '../lib/writes.ts';
import { type LedgerWrite, type LoadScript, type LoadWrites, type TargetState, readRunSummary, writeRunSummary, type RunSummary } from '../../core/formats.ts';
import { addLedgerPart, owe, restoredLine, settleOwed, tally } from '../../core/ledger.ts';
import { finishedLine, finishOwed, restore, restoreAfterCut, takeSnapshot, type Connection, type Snapshot } from '../../core/restore.ts';
import { TSX_LOADER } from '../../core/package.ts';
import { startReference, type ReferenceServer } from '../../core/reference.ts';
import { runProfile } from '../artillery/run.ts';
import { loadOutcome } from './outcome.ts';
import type { ConfiguredTarget, LoadPlan } from './plan.ts';

export { LOAD_SCRIPTS, type LoadScript } from '../../core/formats.ts';

/** The key must be in no artifact: look for it in everything this run wrote (docs/reports.md), the runners' folders too. */
export function assertNoKey(dir: string, key: string): void {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) assertNoKey(file, key);
    else if (readFileSync(file, 'latin1').includes(key) || readFileSync(file, 'latin1').includes(encodeURIComponent(key)))
      throw new ConfigError(`${file} holds the API key: refusing to keep it`);
  }
}

/** A run's summary.json; undefined when the run wrote none, or none that parses (the run could not be carried out). */
function readLoadSummary(file: string): RunSummary | undefined {
  try {
    return readRunSummary(file);
  } catch {
    return undefined;
  }
}

/**
 * The request bodies written ahead into `outDir` by fixtures/generate.ts, run as the command it is
 * (fixtures/ is a folder of its own); `budget` bounds them by the manifest's load budget.
 */
export function writeBodies(o: { seed: number; runId: string; manifestPath: string; outDir: string; budget: boolean; pairFile?: string }): void {
  const gen = spawnSync(
    process.execPath,
    [
      '--import',
      TSX_LOADER,
      join(ROOT, 'fixtures/generate.ts'),
      '--seed',
      String(o.seed),
      '--run-id',
      o.runId,
      '--manifest',
      o.manifestPath,
      '--out',
      o.outDir,
      ...(o.budget ? ['--budget'] : []),
      ...(o.pairFile ? ['--pair', o.pairFile] : []),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (gen.status !== 0) throw new ConfigError(`writing the request bodies: ${(gen.stderr || gen.stdout).trim().split('\n')[0]}`);
}

/** The environment of a profile run (its setup and Artillery's workers: load/lib/env.ts). */
export function loadEnv(
  profile: string,
  target: { baseUrl: string; apiKey: string },
  dataDir: string,
  reportDir: string,
  judging: { strict: boolean; requestTimeoutMs: number; external: boolean; gateRules?: Record<string, number> },
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CONSOLE_BASE_URL: target.baseUrl,
    CONSOLE_API_KEY: target.apiKey, // environment only: argv shows in process listings
    LOAD_PROFILE: profile,
    LOAD_REPORT_DIR: reportDir,
    LOAD_DATA_DIR: dataDir,
    LOAD_STRICT: judging.strict ? '1' : '0',
    LOAD_REQUEST_TIMEOUT: String(judging.requestTimeoutMs / 1000),
    // Rules each gate held before the run (the snapshot's answers): a full one may refuse more (load/mutation.ts).
    ...(judging.gateRules ? { LOAD_GATE_RULES: JSON.stringify(judging.gateRules) } : {}),
  };
}

/** What the snapshot and the ledger of one side need: a load run's config, or one side of a paired run. */
export interface WriteSide {
  reportsDir: string;
  manifestPath: string;
  manifest: Config['manifest'];
  requestTimeoutMs: number;
}

export interface Before {
  startedAt: string;
  snapshot: Snapshot;
  writes: LedgerWrite[];
  /** Rules each gate held, as the snapshot's answers showed. */
  gateRules: Record<string, number>;
}

/** The manifest's gates and experiments as the mutation profile finds them on a target, to be written back after it. */
export async function snapshotFor(config: WriteSide, target: { baseUrl: string; apiKey: string }, label = 'load'): Promise<Before> {
  const conn: Connection = { ...target, timeoutMs: config.requestTimeoutMs };
  // What an earlier run cut short still owes this target comes first: its snapshot is the owners' state.
  const f = await finishOwed(config.reportsDir, conn, relative(ROOT, config.manifestPath));
  if (f) console.error(`${label}: ${finishedLine(f)}`);
  if (f?.left.length) throw new ConfigError(finishedLine(f));
  const s = await takeSnapshot(conn, config.manifest);
  for (const note of s.notes) console.error(`${label}: note: ${note}`);
  // Before the profile's first write: a gate already owed keeps the state recorded first (core/ledger.ts owe).
  s.snapshot.gates = owe(config.reportsDir, { target: target.baseUrl, by: label, gates: s.snapshot.gates });
  const gateRules = Object.fromEntries(Object.entries(s.state.gates).flatMap(([g, v]) => (v.rules === null ? [] : [[g, v.rules]])));
  return { startedAt: new Date().toISOString(), snapshot: s.snapshot, writes: s.writes, gateRules };
}

/**
 * The mutation profile's writes in the run's ledger (the typed writes its run recorded, load/lib/writes.ts),
 * after the gates it toggled and the experiments it patched are written back as the snapshot found them.
 * `written` is undefined when nothing says what the run wrote (no summary): every gate found is written back.
 */
export async function recordWrites(
  config: WriteSide,
  target: { baseUrl: string; apiKey: string },
  before: Before,
  written: LoadWrites | undefined,
  by = 'load:mutation',
  cut = false,
): Promise<void> {
  const w = written ?? emptyWrites();
  const writes: LedgerWrite[] = [...before.writes, ...ledgerWrites(w, config.manifest.metricPrefix)];
  const state: TargetState = { gates: {}, triggers: {} };
  for (const [gate, n] of Object.entries(w.gateRules)) if (n > 0) state.gates[gate] = { rules: n, isEnabled: null };
  const conn: Connection = { ...target, timeoutMs: config.requestTimeoutMs };
  // Without the summary, or after a cut (its count misses the writes in flight), nothing says which were
  // touched: all the snapshot found are written back.
  const toggled = written && !cut ? Object.keys(w.gateToggles).filter((g) => (w.gateToggles[g] ?? 0) > 0) : Object.keys(before.snapshot.gates);
  const r = await (cut ? restoreAfterCut : restore)(conn, before.snapshot, {
    gates: toggled.filter((g) => g in before.snapshot.gates),
    experiments: Object.keys(before.snapshot.experiments),
  });
  for (const x of r.restores.filter((y) => !y.ok)) console.error(`${by}: note: ${x.resource} ${x.field} not restored: ${x.detail}`);
  Object.assign(
    state.gates,
    Object.fromEntries(Object.entries(r.state.gates).map(([g, v]) => [g, { rules: state.gates[g]?.rules ?? v.rules, isEnabled: v.isEnabled }])),
  );
  addLedgerPart(
    config.reportsDir,
    { by, startedAt: before.startedAt, writes: [...tally(writes), ...tally(r.writes)], restores: r.restores },
    { target: target.baseUrl, manifest: relative(ROOT, config.manifestPath), readOnly: false, state },
  );
  // What was given back, or needed none, is no longer owed; a failed restore stays for the next run.
  const failed = new Set(r.restores.filter((x) => !x.ok && x.resource.startsWith('gates/')).map((x) => x.resource.slice('gates/'.length)));
  settleOwed(
    config.reportsDir,
    target.baseUrl,
    Object.keys(before.snapshot.gates).filter((g) => !failed.has(g)),
  );
}

/**
 * One pass of a plan's profiles over its configured target (or, when none is configured, a reference
 * server started for each profile's run, fresh as the baselines' were), each judged by
 * load/command/outcome.ts with its verdict kept in summary.json; resolves to each profile's exit code.
 * The compare and its confirmation are runPlan's (load/command/run-plan.ts).
 */
export async function runConfigured(plan: LoadPlan & { target: ConfiguredTarget }, scripts: LoadScript[]): Promise<Partial<Record<LoadScript, number>>> {
  const config: Config = loadConfig();
  const reference = plan.target.reference;
  if (config.readOnly && scripts.includes('mutation')) {
    if (scripts.length === 1) throw new ConfigError('read-only run (CONSOLE_READ_ONLY=1): the mutation profile writes; run load:paging');
    console.log('load: read-only run: the mutation profile is left out (it writes)');
    scripts = scripts.filter((s) => s !== 'mutation');
  }
  if (config.baseUrl && !isLoopback(config.baseUrl) && !config.allowRemoteLoad) {
    throw new ConfigError(`refusing to load ${new URL(config.baseUrl).host}: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);
  }
  if (config.baseUrl && (reference?.latency || reference?.faults?.length || reference?.variants?.length))
    throw new ConfigError('--latency, --fault and --variant shape the reference server started for the run; CONSOLE_BASE_URL is set, so none is started');
  const runId = newRunId();
  const dataDir = join(ROOT, 'load/data', `run-${runId}`);
  await writeRunValidators(runId);
  // A target keeps what the load writes (there is no delete): the manifest's budget bounds it. A reference
  // server started for the run is thrown away with it: no bound, so the committed baselines' request mix holds.
  writeBodies({ seed: plan.seed ?? 1, runId, manifestPath: config.manifestPath, outDir: dataDir, budget: Boolean(config.baseUrl) });

  let server: ReferenceServer | undefined;
  // A signal (verify's deadline, CI cancelling a job) stops the reference server and starts no further profile.
  let stopped: string | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stopped = signal;
    void server?.stop();
  };
  // Not once: a second signal must not cut the restore of what the mutation profile wrote.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const codes: Partial<Record<LoadScript, number>> = {};
  try {
    for (const script of scripts) {
      if (stopped) throw new ConfigError(`stopped by ${stopped} before the ${script} profile`);
      let target: { baseUrl: string; apiKey: string };
      if (config.baseUrl) target = { baseUrl: config.baseUrl, apiKey: config.apiKey! };
      else {
        try {
          server = await startReference({
            apiKey: config.apiKey,
            scale: plan.target.scale,
            latency: reference?.latency,
            faults: reference?.faults,
            variants: reference?.variants,
            stderr: 'pipe',
          });
        } catch (err) {
          throw new ConfigError(`cannot start the reference server: ${(err as Error).message}`);
        }
        target = { baseUrl: server.baseUrl, apiKey: server.apiKey };
      }
      try {
        // A signal while the server started found none to stop.
        if (stopped) throw new ConfigError(`stopped by ${stopped} before the ${script} profile`);
        codes[script] = await runOne(plan, script, config, target, dataDir, () => stopped !== undefined);
      } finally {
        await server?.stop();
        server = undefined;
      }
    }
    // Stopped while the last profile ran: its figures are not to be compared, nor run again.
    if (stopped) throw new ConfigError(`stopped by ${stopped}${config.baseUrl ? `: ${restoredLine(config.reportsDir, config.baseUrl)}` : ''}`);
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return codes;
}

/** One profile's run on Artillery against `target`: the snapshot and ledger of its writes, the key scan, the verdict. */
async function runOne(
  plan: LoadPlan,
  script: LoadScript,
  config: Config,
  target: { baseUrl: string; apiKey: string },
  dataDir: string,
  cut: () => boolean = () => false,
): Promise<number> {
  const reportDir = join(config.reportsDir, 'load', script);
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  console.log(`load: ${script} (${plan.profile}) started`);
  const writes = script === 'mutation' && config.baseUrl ? await snapshotFor(config, target) : undefined;
  const env = loadEnv(plan.profile, target, dataDir, reportDir, {
    strict: plan.strict ?? config.strict,
    requestTimeoutMs: config.requestTimeoutMs,
    external: Boolean(config.baseUrl),
    gateRules: writes?.gateRules,
  });
  const rows = requestRowsDirFromEnv();
  const run = await runProfile({
    script,
    profile: plan.profile,
    baseUrl: target.baseUrl,
    env,
    reportDir,
    dataDir,
    runners: plan.runners,
    shape: plan.shape,
    requestTimeoutMs: config.requestTimeoutMs,
    requestRows: rows ? join(rows, `${script}.csv.gz`) : undefined,
  });
  if (run.reason) console.error(`load: ${script}: ${run.reason}`);
  const summaryFile = run.summaryFile;
  try {
    if (existsSync(summaryFile)) attachTarget(summaryFile, measuredAgainst(config.baseUrl));
  } catch (err) {
    console.error(`load: ${script}: summary.json does not say what it measured: ${(err as Error).message.split('\n')[0]}`);
  }
  assertNoKey(reportDir, target.apiKey);
  if (writes) {
    const wrote = readLoadSummary(summaryFile);
    await recordWrites(config, target, writes, wrote ? (summaryWrites(wrote) ?? emptyWrites()) : undefined, 'load:mutation', cut());
  }
  // 1: thresholds crossed (the summary says which); 3: not carried out (its reason is printed above).
  const summary = readLoadSummary(summaryFile);
  const outcome = loadOutcome(run.exit, summary);
  // The verdict goes into summary.json too, so that verify and the report say the same.
  if (summary) writeRunSummary(summaryFile, { ...summary, verdict: outcome });
  for (const w of outcome.warnings) console.error(`load: ${script}: warning: inferred check failed: ${w}`);
  (outcome.code === 0 ? console.log : console.error)(`load: ${script}: ${outcome.note}${outcome.code ? ` (exit ${outcome.code})` : ''}`);
  console.log(`load: ${script} (${plan.profile}) -> ${reportDir}`);
  return outcome.code;
}
