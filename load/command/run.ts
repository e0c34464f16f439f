// The work of `npm run load:*`: validators and request bodies written ahead, the k6 scripts against the
// target (or a reference server started for the run), the key looked for in what k6 wrote, and the
// compare with the baselines on request. docs/load.md has the whole story.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { newRunId } from '../../core/random.ts';
import { buildValidators } from '../lib/build-validators.ts';
import { attachSamples, csvOutput, formatJson } from '../compare/run-samples.ts';
import { attachTarget, loadTarget } from '../compare/target.ts';
import { compareRun, printCompare } from '../compare/baseline.ts';
import { ConfigError, isLoopback, k6OutFromEnv, loadConfig, ROOT, type Config } from '../../core/config.ts';
import { type LedgerWrite, type LoadScript, type TargetState, readRunSummary, writeRunSummary, type RunSummary } from '../../core/formats.ts';
import { addLedgerPart, tally } from '../../core/ledger.ts';
import { restore, takeSnapshot, type Connection, type Snapshot } from '../../core/restore.ts';
import { worst } from '../../core/exit.ts';
import { TSX_CLI } from '../../core/package.ts';
import { startReference, type ReferenceServer } from '../../core/reference.ts';
import { runSegmented } from '../runners/segmented.ts';
import { type LoadOutcome, type LoadSummaryVerdictInput, loadOutcome } from './outcome.ts';

export { LOAD_SCRIPTS, type LoadScript } from '../../core/formats.ts';

export interface LoadArgs {
  scripts: LoadScript[];
  profile: string;
  compare: boolean;
  seed: number;
  scale: number | undefined;
  /** For the reference server started for the run (refused with a target): `--latency`, faults such as slow:<op>:<pct>, variants. */
  reference?: { latency?: string; faults?: string[]; variants?: string[] };
  /** Inferred checks fail the run (--strict; else CONSOLE_STRICT). */
  strict?: boolean;
  /** k6 processes of equal execution segments, released together and merged (load/runners/); 1 or absent: one k6. */
  runners?: number;
}

/** The k6 binary, as scripts/install-k6 resolves it (K6_BIN, else .tools/bin/k6); missing is exit 3. */
function findK6(): string {
  const r = spawnSync('bash', [join(ROOT, 'scripts/install-k6'), '--which'], { encoding: 'utf8' });
  if (r.status !== 0) throw new ConfigError((r.stderr || 'k6 is not installed: run npm run k6:install').trim().replace(/^install-k6: /, ''));
  return r.stdout.trim();
}

/** The key must be in no artifact: look for it in everything this run wrote (docs/reports.md), the runners' folders too. */
function assertNoKey(dir: string, key: string): void {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) assertNoKey(file, key);
    else if (readFileSync(file, 'latin1').includes(key)) throw new ConfigError(`${file} holds the API key: refusing to keep it`);
  }
}

/**
 * Where k6 writes one row per request, which the compare's statistical rule needs (summary.json keeps
 * aggregates only): the CSV output the caller asked for (verify does, for its time series), else one
 * of this run's own in the data folder, deleted with it. Returns the K6_OUT to give k6 and the file.
 */
function requestRows(script: LoadScript, dataDir: string): { k6Out: string; csv: string } {
  const asked = k6OutFromEnv();
  const given = csvOutput(asked);
  if (given) return { k6Out: asked, csv: given };
  const csv = join(dataDir, `${script}.requests.csv.gz`);
  return { k6Out: asked ? `${asked},csv=${csv}` : `csv=${csv}`, csv };
}

/** A run's summary.json; undefined when k6 wrote none, or none that parses (the run could not be carried out). */
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
function writeBodies(o: { seed: number; runId: string; manifestPath: string; outDir: string; budget: boolean }): void {
  const gen = spawnSync(
    process.execPath,
    [
      TSX_CLI,
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
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (gen.status !== 0) throw new ConfigError(`writing the request bodies: ${(gen.stderr || gen.stdout).trim().split('\n')[0]}`);
}

/** What k6 gets to run `script` (one k6, or each runner of several). */
function k6Env(
  profile: string,
  target: { baseUrl: string; apiKey: string },
  dataDir: string,
  reportDir: string,
  k6Out: string,
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
    // The dashboard's HTML export without an open port (port -1: k6 docs, "Web dashboard").
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_PORT: '-1',
    K6_WEB_DASHBOARD_EXPORT: join(reportDir, 'dashboard.html'),
    // The dashboard aggregates per period (default 10 s) and skips its report below two periods: a
    // 1 s period gives the few-second smoke a report too.
    K6_WEB_DASHBOARD_PERIOD: profile === 'smoke' ? '1s' : '5s',
    K6_NO_USAGE_REPORT: 'true',
    K6_OUT: k6Out,
  };
}

function runK6(k6: string, script: LoadScript, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(k6, ['run', ...K6_ARGS, join(ROOT, 'load', `${script}.ts`)], { cwd: ROOT, env, stdio: 'inherit' });
  return new Promise((done) => child.on('exit', (code, signal) => done(code ?? (signal ? 3 : 0))));
}

const K6_ARGS = ['--quiet', '--no-color'];

interface Before {
  startedAt: string;
  snapshot: Snapshot;
  writes: LedgerWrite[];
  /** Rules each gate held, as the snapshot's answers showed. */
  gateRules: Record<string, number>;
}

/** The manifest's gates and experiments as the mutation profile finds them on a target, to be written back after it. */
async function snapshotFor(config: Config, target: { baseUrl: string; apiKey: string }): Promise<Before> {
  const s = await takeSnapshot({ ...target, timeoutMs: config.requestTimeoutMs }, config.manifest);
  for (const note of s.notes) console.error(`load: note: ${note}`);
  const gateRules = Object.fromEntries(Object.entries(s.state.gates).flatMap(([g, v]) => (v.rules === null ? [] : [[g, v.rules]])));
  return { startedAt: new Date().toISOString(), snapshot: s.snapshot, writes: s.writes, gateRules };
}

/**
 * The mutation profile's writes in the run's ledger (from the per-resource counters its summary keeps),
 * after the gates it toggled and the experiments it patched are written back as the snapshot found them.
 */
async function recordWrites(
  config: Config,
  target: { baseUrl: string; apiKey: string },
  before: Before,
  figures: Record<string, number> | undefined,
): Promise<void> {
  const f = figures ?? {};
  const writes: LedgerWrite[] = [...before.writes];
  const state: TargetState = { gates: {}, triggers: {} };
  const per = (metric: string, kind: string) =>
    Object.entries(f)
      .map(([k, n]) => [new RegExp(`^${metric}\\{${kind}:(.+)\\}$`).exec(k)?.[1], n] as const)
      .filter((x): x is readonly [string, number] => x[0] !== undefined && x[1] > 0);
  for (const [gate, n] of per('ledger_rule_writes', 'gate')) {
    const added = f[`ledger_rules_added{gate:${gate}}`] ?? 0;
    writes.push({
      operation: 'addGateRules',
      resource: `gates/${gate}`,
      change: `added ${added} rules in ${n} requests`,
      count: n,
      undo: added ? 'cannot be undone' : 'nothing to undo',
      added,
    });
  }
  for (const [gate, n] of per('ledger_gate_rules', 'gate')) state.gates[gate] = { rules: n, isEnabled: null };
  for (const [gate, n] of per('ledger_gate_toggles', 'gate'))
    writes.push({ operation: 'disableGate', resource: `gates/${gate}`, change: 'disabled and enabled in turn', count: n, undo: 'not restored' });
  for (const [exp, n] of per('ledger_override_patches', 'experiment'))
    writes.push({ operation: 'patchExperimentOverrides', resource: `experiments/${exp}`, change: 'patched overrides', count: n, undo: 'not restored' });
  for (const [trigger, n] of per('ledger_phases_skipped', 'trigger'))
    writes.push({
      operation: 'skipTriggerPhase',
      resource: `release_pipeline_triggers/${trigger}`,
      change: 'skipped phases',
      count: n,
      undo: 'cannot be undone',
    });
  for (const [trigger, n] of per('ledger_unpaused', 'trigger'))
    writes.push({ operation: 'unpauseTrigger', resource: `release_pipeline_triggers/${trigger}`, change: 'unpaused', count: n, undo: 'cannot be undone' });
  if (f.ledger_metrics_created)
    writes.push({
      operation: 'createMetric',
      resource: `metrics/${config.manifest.metricPrefix}*`,
      change: 'created',
      count: f.ledger_metrics_created,
      undo: 'cannot be undone',
    });
  if (f.ledger_metrics_updated)
    writes.push({
      operation: 'updateMetric',
      resource: `metrics/${config.manifest.metricPrefix}*`,
      change: 'updated (the metrics this run created)',
      count: f.ledger_metrics_updated,
      undo: 'cannot be undone',
    });
  const conn: Connection = { ...target, timeoutMs: config.requestTimeoutMs };
  // Without the summary nothing says which were touched: all the snapshot found are written back.
  const toggled = figures ? per('ledger_gate_toggles', 'gate').map(([g]) => g) : Object.keys(before.snapshot.gates);
  const r = await restore(conn, before.snapshot, {
    gates: toggled.filter((g) => g in before.snapshot.gates),
    experiments: Object.keys(before.snapshot.experiments),
  });
  for (const x of r.restores.filter((y) => !y.ok)) console.error(`load: note: ${x.resource} ${x.field} not restored: ${x.detail}`);
  Object.assign(
    state.gates,
    Object.fromEntries(Object.entries(r.state.gates).map(([g, v]) => [g, { rules: state.gates[g]?.rules ?? v.rules, isEnabled: v.isEnabled }])),
  );
  addLedgerPart(
    config.reportsDir,
    { by: 'load:mutation', startedAt: before.startedAt, writes: [...tally(writes), ...tally(r.writes)], restores: r.restores },
    { target: target.baseUrl, manifest: relative(ROOT, config.manifestPath), readOnly: false, state },
  );
}

/** The k6 scripts against the configured target or a reference server started for the run; resolves to the exit code. */
export async function runLoad(args: LoadArgs): Promise<number> {
  const config: Config = loadConfig();
  if (config.readOnly && args.scripts.includes('mutation')) {
    if (args.scripts.length === 1) throw new ConfigError('read-only run (CONSOLE_READ_ONLY=1): the mutation profile writes; run load:paging');
    console.log('load: read-only run: the mutation profile is left out (it writes)');
    args = { ...args, scripts: args.scripts.filter((s) => s !== 'mutation') };
  }
  if (config.baseUrl && !isLoopback(config.baseUrl) && !config.allowRemoteLoad) {
    throw new ConfigError(`refusing to load ${new URL(config.baseUrl).host}: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);
  }
  if (config.baseUrl && (args.reference?.latency || args.reference?.faults?.length || args.reference?.variants?.length))
    throw new ConfigError('--latency, --fault and --variant shape the reference server started for the run; CONSOLE_BASE_URL is set, so none is started');
  const k6 = findK6();
  const runId = newRunId();
  const dataDir = join(ROOT, 'load/data', `run-${runId}`);
  // Validators are built into a temporary name then renamed, so a parallel run never reads half a file.
  const tmp = await buildValidators(join(ROOT, 'load/data', `validators.${runId}.tmp.js`));
  renameSync(tmp, join(ROOT, 'load/data/validators.js'));
  // A target keeps what the load writes (there is no delete): the manifest's budget bounds it. A reference
  // server started for the run is thrown away with it: no bound, so the committed baselines' request mix holds.
  writeBodies({ seed: args.seed, runId, manifestPath: config.manifestPath, outDir: dataDir, budget: Boolean(config.baseUrl) });

  let server: ReferenceServer | undefined;
  let target: { baseUrl: string; apiKey: string };
  if (config.baseUrl) {
    target = { baseUrl: config.baseUrl, apiKey: config.apiKey! };
  } else {
    try {
      server = await startReference({
        apiKey: config.apiKey,
        scale: args.scale,
        latency: args.reference?.latency,
        faults: args.reference?.faults,
        variants: args.reference?.variants,
        stderr: 'pipe',
      });
    } catch (err) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new ConfigError(`cannot start the reference server: ${(err as Error).message}`);
    }
    target = { baseUrl: server.baseUrl, apiKey: server.apiKey };
  }
  const stop = () => {
    void server?.stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const codes: number[] = [];
  const t0 = Date.now();
  try {
    for (const script of args.scripts) {
      const reportDir = join(config.reportsDir, 'load', script);
      const rows = requestRows(script, dataDir);
      rmSync(rows.csv, { force: true });
      rmSync(reportDir, { recursive: true, force: true });
      mkdirSync(reportDir, { recursive: true });
      const writes = script === 'mutation' && config.baseUrl ? await snapshotFor(config, target) : undefined;
      const env = k6Env(args.profile, target, dataDir, reportDir, rows.k6Out, {
        strict: args.strict ?? config.strict,
        requestTimeoutMs: config.requestTimeoutMs,
        external: Boolean(config.baseUrl),
        gateRules: writes?.gateRules,
      });
      const segmented = (args.runners ?? 1) > 1;
      const code = segmented
        ? await runSegmented({
            k6,
            script: join(ROOT, 'load', `${script}.ts`),
            label: `load: ${script}`,
            runners: args.runners!,
            env,
            reportDir,
            cwd: ROOT,
            args: K6_ARGS,
            target: loadTarget(config.baseUrl),
          })
        : await runK6(k6, script, env);
      const summaryFile = join(reportDir, 'summary.json');
      try {
        if (existsSync(summaryFile) && !segmented) attachTarget(summaryFile, loadTarget(config.baseUrl));
      } catch (err) {
        console.error(`load: ${script}: summary.json does not say what it measured: ${(err as Error).message.split('\n')[0]}`);
      }
      // A merged summary has its runners' histograms already (load/runners/merge-runners.ts).
      if (existsSync(summaryFile) && existsSync(rows.csv) && !segmented) {
        // Without them the compare falls back to its ratio rule and says so: worth a line, not a failed run.
        await attachSamples(summaryFile, rows.csv).catch((err: Error) =>
          console.error(`load: ${script}: request samples not kept in summary.json: ${err.message.split('\n')[0]}`),
        );
      }
      assertNoKey(reportDir, target.apiKey);
      if (writes) await recordWrites(config, target, writes, readLoadSummary(summaryFile)?.ledger as Record<string, number> | undefined);
      // k6: 99 thresholds crossed (the summary says which); 107/108 aborted in setup (its reason is printed above).
      const summary = readLoadSummary(summaryFile);
      const outcome = loadOutcome(code, summary);
      // The verdict goes into summary.json too, so that verify and the report say the same.
      if (summary) writeRunSummary(summaryFile, { ...summary, verdict: outcome });
      for (const w of outcome.warnings) console.error(`load: ${script}: warning: inferred check failed: ${w}`);
      (outcome.code === 0 ? console.log : console.error)(`load: ${script}: ${outcome.note}${outcome.code ? ` (exit ${outcome.code})` : ''}`);
      codes.push(outcome.code);
      console.log(`load: ${script} (${args.profile}) -> ${reportDir}`);
    }
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`load: ${args.scripts.join(' + ')} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (args.compare && !codes.includes(3)) {
    const result = compareRun({ scripts: args.scripts, reportsDir: config.reportsDir });
    printCompare(result);
    if (result.verdict === 'regression') codes.push(2);
  }
  return worst(codes);
}
