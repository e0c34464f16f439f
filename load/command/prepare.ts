// One preparation of a load run, for every path of the runner (load/command/run-plan.ts): the sides
// and their keys read from the run's environment and what is refused before anything is sent, the run
// id, the validators and request bodies written ahead, the environment of the setup and the workers, a
// prepared folder's setup, bundle and script (load:cloud, --export), the key looked for in everything
// the run wrote, and the snapshot, restore and ledger of what the mutation profile writes to a side
// given by URL. docs/load.md has the whole story.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  allowRemoteLoadFromEnv,
  ConfigError,
  isLoopback,
  loadBudget,
  loadConfig,
  loadManifest,
  type Manifest,
  ROOT,
  requestTimeoutMsFromEnv,
} from '../../core/config.ts';
import type { LedgerWrite, LoadScript, Side, TargetState } from '../../core/formats.ts';
import { addLedgerPart, keepOwed, owe, owedRestores, settleOwed, tally } from '../../core/ledger.ts';
import { TSX_LOADER } from '../../core/package.ts';
import { newRunId } from '../../core/random.ts';
import { type Connection, finishedLine, finishOwed, restore, restoreAfterCut, type Snapshot, takeSnapshot } from '../../core/restore.ts';
import { stringify } from 'yaml';
import { bundleProcessor, runSetup, shapePhases, writeShapeFile } from '../artillery/run.ts';
import { artilleryScript } from '../artillery/script.ts';
import { writeRunValidators } from '../lib/build-validators.ts';
import { BESIDE_PROCESSOR, PER_PROCESS } from '../lib/env.ts';
import type { Records } from '../lib/runtime.ts';
import { pairedBudget, type RunManifest, type SidePlan, sidePlan } from '../lib/sides.ts';
import { emptyWrites, ledgerWrites } from '../lib/writes.ts';
import type { LoadPlan, LoadSide, PairedLoadOptions, SystemUnderTest } from './plan.ts';

/** A side with its key, read from the run's environment: in memory only. */
export type KeyedSide = LoadSide & { apiKey: string };

/** What every path of the runner starts from. */
export interface PreparedRun {
  plan: LoadPlan;
  /** The scripts this run makes (the mutation profile left out of a read-only run of both). */
  scripts: LoadScript[];
  /** The run's environment, with the key of a reference server started for it. */
  env: NodeJS.ProcessEnv;
  reportsDir: string;
  requestTimeoutMs: number;
  strict: boolean;
  /** The sides given, keyed; undefined: a reference server is started for each profile (startedSide). */
  sides?: KeyedSide[];
  /** A side started here: the configured manifest, unbounded. */
  manifestPath: string;
  manifest: Manifest;
  runId: string;
  /** The bodies, the setup's answer and the workers' records (a prepared run's folder). */
  dataDir: string;
  /** A pair's mutation run: what each side's ids are on the other. */
  sidePlan?: SidePlan;
  /** Removes what the run needed only while it ran. */
  cleanup: () => void;
}

const keyed = (s: LoadSide, env: NodeJS.ProcessEnv): KeyedSide => ({ ...s, apiKey: env[s.keyVar] ?? '' });
const remote = (what: string, baseUrl: string) =>
  new ConfigError(`refusing to load ${what}${new URL(baseUrl).host}${what ? ')' : ''}: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);

/** The run `plan` asks for, prepared: refused with a ConfigError (exit 3) before anything is sent when it cannot be made. */
export async function prepareRun(plan: LoadPlan, scripts = plan.scripts): Promise<PreparedRun> {
  const env: NodeJS.ProcessEnv = { ...(plan.env ?? process.env) };
  const t = plan.target;
  let run: Omit<PreparedRun, 'runId' | 'dataDir' | 'cleanup'>;
  if (t.kind === 'pair') {
    for (const side of ['current', 'candidate'] as const)
      if (!isLoopback(t[side].baseUrl) && !allowRemoteLoadFromEnv(env)) throw remote(`the ${side} (`, t[side].baseUrl);
    run = {
      plan,
      scripts,
      env,
      reportsDir: t.reportsRoot,
      requestTimeoutMs: plan.requestTimeoutMs ?? requestTimeoutMsFromEnv(env),
      strict: plan.strict ?? false,
      sides: [keyed(t.current, env), keyed(t.candidate, env)],
      manifestPath: t.current.manifestPath,
      manifest: t.current.manifest,
      sidePlan: scripts.includes('mutation') ? sidePlan(t.current.manifest, t.candidate.manifest) : undefined,
    };
  } else run = configured(plan, t, env, scripts);

  const runId = newRunId();
  const dataDir = plan.prepare?.dir ?? join(ROOT, 'load/data', `run-${runId}`);
  // A cloud run's folder is the test bundle: it holds this run's files and nothing else.
  if (plan.prepare?.for === 'cloud') rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const cleanup = () => (plan.prepare ? undefined : rmSync(dataDir, { recursive: true, force: true }));
  try {
    await writeRunValidators(runId);
    const seed = plan.seed ?? 1;
    const [current, candidate] = run.sides ?? [];
    if (run.sidePlan && candidate) writePairedBodies({ seed, runId, dataDir, plan: run.sidePlan, current, candidate });
    // A side given by URL keeps what the load writes (there is no delete): its manifest's budget bounds it. A
    // reference server started for the run is thrown away with it: no bound, so the baselines' request mix holds.
    else writeBodies({ seed, runId, manifestPath: current?.manifestPath ?? run.manifestPath, outDir: dataDir, budget: current?.external ?? false });
    // The bodies of a profile not prepared are not the folder's.
    if (plan.prepare)
      for (const other of ['paging', 'mutation'] as const) if (!run.scripts.includes(other)) rmSync(join(dataDir, `${other}.json`), { force: true });
  } catch (err) {
    cleanup();
    throw err;
  }
  for (const note of run.sidePlan?.notes ?? []) console.error(`candidate: latency: note: ${note}`);
  return { ...run, runId, dataDir, cleanup };
}

/** A one-sided run's side: CONSOLE_BASE_URL and CONSOLE_API_KEY of the run's environment, or none (a reference server per profile). */
function configured(plan: LoadPlan, t: SystemUnderTest, env: NodeJS.ProcessEnv, scripts: LoadScript[]): Omit<PreparedRun, 'runId' | 'dataDir' | 'cleanup'> {
  const config = loadConfig(env);
  const where = plan.prepare?.for;
  if (where && !config.baseUrl)
    throw new ConfigError(
      where === 'cloud'
        ? 'CONSOLE_BASE_URL is not set: a distributed run needs a target its containers can reach'
        : '--export needs CONSOLE_BASE_URL: the script is prepared for, and runs against, that target',
    );
  if (where === 'cloud' && config.baseUrl && isLoopback(config.baseUrl))
    throw new ConfigError(`${config.baseUrl} is loopback: the platform's containers cannot reach it`);
  if (config.readOnly && scripts.includes('mutation')) {
    if (scripts.length === 1) throw new ConfigError('read-only run (CONSOLE_READ_ONLY=1): the mutation profile writes; run load:paging');
    console.log('load: read-only run: the mutation profile is left out (it writes)');
    scripts = scripts.filter((s) => s !== 'mutation');
  }
  if (config.baseUrl && !isLoopback(config.baseUrl) && !config.allowRemoteLoad) throw remote('', config.baseUrl);
  if (config.baseUrl && (t.reference?.latency || t.reference?.faults?.length || t.reference?.variants?.length))
    throw new ConfigError('--latency, --fault and --variant shape the reference server started for the run; CONSOLE_BASE_URL is set, so none is started');
  const side: LoadSide | undefined = config.baseUrl
    ? { baseUrl: config.baseUrl, keyVar: 'CONSOLE_API_KEY', manifestPath: config.manifestPath, manifest: config.manifest, external: true }
    : undefined;
  return {
    plan,
    scripts,
    env,
    reportsDir: config.reportsDir,
    requestTimeoutMs: plan.requestTimeoutMs ?? config.requestTimeoutMs,
    strict: plan.strict ?? config.strict,
    sides: side ? [keyed(side, env)] : undefined,
    manifestPath: config.manifestPath,
    manifest: config.manifest,
  };
}

/** A reference server started for one profile's run, as the side of it: its key put into the run's environment. */
export function startedSide(run: PreparedRun, server: { baseUrl: string; apiKey: string }): KeyedSide {
  run.env.CONSOLE_API_KEY = server.apiKey;
  return { baseUrl: server.baseUrl, keyVar: 'CONSOLE_API_KEY', apiKey: server.apiKey, manifestPath: run.manifestPath, manifest: run.manifest, external: false };
}

/** The environment of a profile's setup and Artillery's workers (load/lib/env.ts): one side's key, or a pair's two. */
export function workerEnv(run: PreparedRun, sides: KeyedSide[], reportDir: string, gateRules?: Record<string, number>): NodeJS.ProcessEnv {
  const [current, candidate] = sides;
  const env: NodeJS.ProcessEnv = {
    ...run.env,
    CONSOLE_BASE_URL: current.baseUrl,
    LOAD_PROFILE: run.plan.profile,
    LOAD_REPORT_DIR: reportDir,
    LOAD_DATA_DIR: run.dataDir,
    LOAD_STRICT: run.strict ? '1' : '0',
    LOAD_REQUEST_TIMEOUT: String(run.requestTimeoutMs / 1000),
    ...(run.plan.seconds ? { LOAD_SECONDS: String(run.plan.seconds) } : {}),
    // Rules each gate held before the run (the snapshot's answers): a full one may refuse more (load/mutation.ts).
    ...(gateRules ? { LOAD_GATE_RULES: JSON.stringify(gateRules) } : {}),
  };
  // Environment only: argv shows in process listings.
  if (!candidate) return { ...env, CONSOLE_API_KEY: current.apiKey };
  delete env.CONSOLE_API_KEY;
  return {
    ...env,
    LOAD_CANDIDATE_BASE_URL: candidate.baseUrl,
    CONSOLE_CURRENT_API_KEY: current.apiKey,
    CONSOLE_CANDIDATE_API_KEY: candidate.apiKey,
  };
}

/** A pair's reports folder cleared for the run; what a cut run still owes a side outlives it (its next snapshot gives it back first). */
export function clearPairReports(reportDir: string): void {
  const owed = (['current', 'candidate'] as const).map((s) => [s, owedRestores(join(reportDir, s))] as const);
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  for (const [s, list] of owed) keepOwed(join(reportDir, s), list);
}

/** The key must be in no artifact: look for it in everything the run wrote (docs/reports.md), the runners' folders too. */
export function assertNoKey(dir: string, key: string): void {
  if (!key) return;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) assertNoKey(file, key);
    else if (readFileSync(file, 'latin1').includes(key) || readFileSync(file, 'latin1').includes(encodeURIComponent(key)))
      throw new ConfigError(`${file} holds the API key: refusing to keep it`);
  }
}

/**
 * The request bodies written ahead into `outDir` by fixtures/generate.ts, run as the command it is
 * (fixtures/ is a folder of its own); `budget` bounds them by the manifest's load budget.
 */
function writeBodies(o: { seed: number; runId: string; manifestPath: string; outDir: string; budget: boolean; pairFile?: string }): void {
  const gen = spawnSync(
    process.execPath,
    [
      '--import',
      TSX_LOADER,
      join(ROOT, 'fixtures/generate.ts'),
      ...['--seed', String(o.seed), '--run-id', o.runId, '--manifest', o.manifestPath, '--out', o.outDir],
      ...(o.budget ? ['--budget'] : []),
      ...(o.pairFile ? ['--pair', o.pairFile] : []),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (gen.status !== 0) throw new ConfigError(`writing the request bodies: ${(gen.stderr || gen.stdout).trim().split('\n')[0]}`);
}

/** A manifest of what the plan gives one side, as loadManifest reads it (the bodies are written for it). */
function planManifest(m: RunManifest, budget: ReturnType<typeof pairedBudget>): Record<string, unknown> {
  return {
    gates: m.gates,
    experiments: m.experiments.map((id) => ({ id, overrides: 'suite' })),
    triggers: m.triggers,
    metricPrefix: m.metricPrefix,
    overrideGroupIDs: m.overrideGroupIDs,
    ...(m.metricOwner ? { metricOwner: m.metricOwner } : {}),
    ...(budget ? { budget } : {}),
  };
}

/**
 * The request bodies of a paired mutation run, into `dataDir`: written for what both sides allow (the
 * current's part of the plan), bounded by the smaller budget of each kind (a side started for the run
 * bounds nothing), with the plan in pair.json for the workers to translate each body for the candidate.
 */
export function writePairedBodies(o: {
  seed: number;
  runId: string;
  dataDir: string;
  plan: SidePlan;
  current: Pick<LoadSide, 'manifest' | 'external'>;
  candidate: Pick<LoadSide, 'manifest' | 'external'>;
}): void {
  const budget = pairedBudget(o.current.external ? loadBudget(o.current.manifest) : null, o.candidate.external ? loadBudget(o.candidate.manifest) : null);
  const manifestPath = join(o.dataDir, 'current-manifest.json');
  const pairFile = join(o.dataDir, 'pair.json');
  mkdirSync(o.dataDir, { recursive: true });
  writeFileSync(manifestPath, JSON.stringify(planManifest(o.plan.current, budget)));
  writeFileSync(pairFile, JSON.stringify(o.plan));
  writeBodies({ seed: o.seed, runId: o.runId, manifestPath, outDir: o.dataDir, budget: budget !== null, pairFile });
}

/**
 * A prepared folder's profile: its setup run here, its processor bundled with the run's settings (never
 * the key), its Artillery script: for load:cloud script.json (the containers' shared phases, the data it
 * includes) and plan.json (what --report judges by); for --export `<script>.yml`. Resolves to the files
 * written, the script's first.
 */
export async function prepareFolder(run: PreparedRun, script: LoadScript): Promise<string[]> {
  const dir = run.dataDir;
  const cloud = run.plan.prepare?.for === 'cloud';
  const processor = cloud ? 'processor.mjs' : `${script}.processor.mjs`;
  const side = run.sides![0];
  const records = join(dir, `setup-records-${script}`);
  const env = { ...workerEnv(run, [side], dir), LOAD_SCRIPT: script, LOAD_SAMPLES_DIR: records };
  const setup = await runSetup(script, dir, env);
  rmSync(records, { recursive: true, force: true });
  rmSync(join(dir, `plan-${script}.json`), { force: true });
  if ('reason' in setup) throw new ConfigError(setup.reason);
  // The run's settings are written into the bundle (the workers elsewhere get no other environment); the key is not among them.
  await bundleProcessor(join(dir, processor), {
    LOAD_SCRIPT: script,
    LOAD_PROFILE: run.plan.profile,
    LOAD_DATA_DIR: cloud ? '.' : BESIDE_PROCESSOR,
    ...(cloud ? {} : { LOAD_CLAIMS_DIR: PER_PROCESS }),
    LOAD_ARTILLERY_COUNTERS: '1',
    LOAD_STRICT: run.strict ? '1' : '0',
    LOAD_REQUEST_TIMEOUT: String(run.requestTimeoutMs / 1000),
    ...(run.plan.seconds ? { LOAD_SECONDS: String(run.plan.seconds) } : {}),
    CONSOLE_BASE_URL: side.baseUrl,
    ...(cloud || allowRemoteLoadFromEnv(run.env) ? { CONSOLE_ALLOW_REMOTE_LOAD: '1' } : {}),
  });
  const shape = run.plan.shape;
  const phases = shapePhases(shape, setup.plan);
  const artillery = artilleryScript({
    scenarios: setup.plan.scenarios,
    target: side.baseUrl,
    processor: `./${processor}`,
    requestTimeoutMs: run.requestTimeoutMs,
    runners: run.plan.runners,
    runner: 0,
    phases,
    ensure: shape?.ensure,
    apdex: shape?.apdex,
    plugins: shape?.plugins,
  });
  // A container runs its share of the phases: the processor times the mix by the phases it runs.
  writeShapeFile(join(dir, `shape-${script}.json`), shape, cloud ? artillery.config.phases : phases);
  // The paging profile sends no body: its data is the setup's answer (and the shape's) alone.
  const data = [`${script}.json`, `setup-${script}.json`, `shape-${script}.json`].filter((f) => existsSync(join(dir, f)));
  if (cloud) {
    const count = run.plan.runners ?? 1;
    writeFileSync(join(dir, 'script.json'), JSON.stringify({ ...artillery, config: { ...artillery.config, includeFiles: data } }, null, 2));
    const judged = { ...setup.plan, script, profile: run.plan.profile, target: side.baseUrl, count, ...(shape?.ensure ? { ensure: shape.ensure } : {}) };
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(judged, null, 2));
    return ['script.json', processor, ...data, 'plan.json'].map((f) => join(dir, f));
  }
  const yml = join(dir, `${script}.yml`);
  const header = [
    `# ${script} load profile (${run.plan.profile}) of console-conformance, exported for ${side.baseUrl}.`,
    `# Run: CONSOLE_API_KEY=... ARTILLERY_DISABLE_TELEMETRY=true npx artillery run ${relative(process.cwd(), yml)}`,
    "# The key comes from the environment only. Every request is one of Artillery's http.* metrics and a console.<endpoint>",
    '# histogram; a failed request fails its virtual user (ensure.maxErrorRate). Data beside this file, read by the processor.',
  ];
  writeFileSync(yml, `${header.join('\n')}\n${stringify({ config: artillery.config, scenarios: artillery.scenarios })}`);
  return [yml, ...[processor, ...data].map((f) => join(dir, f))];
}

/** One side whose writes are snapshotted before the mutation profile and written back after it, with its ledger in `reportsDir`. */
export interface WriteSide {
  side: Side;
  baseUrl: string;
  apiKey: string;
  reportsDir: string;
  manifestPath: string;
  manifest: Manifest;
  requestTimeoutMs: number;
}

/** The side's manifest narrowed to what a pair's plan pairs: what the snapshot, the restore and the ledger cover. */
const narrowed = (m: Manifest, p: RunManifest): Manifest => ({
  ...m,
  gates: p.gates,
  experiments: p.experiments,
  overridesOwned: p.experiments,
  triggers: p.triggers,
});

/** What withSnapshots writes back: the sides, who wrote (the ledger's `by`), each side's label in lines, the root `ledgers` are relative to. */
export interface Writes {
  sides: WriteSide[];
  by: string;
  label: (s: Side) => string;
  reportsRoot: string;
  /** Whether the run was cut short (its records then miss the writes in flight). */
  cut?: () => boolean;
}

/** A pair's writes: its sides given by URL, each ledgered in `<reportDir>/<side>/`, its manifest narrowed to the plan. */
export function pairWrites(
  o: Pick<PairedLoadOptions, 'current' | 'candidate' | 'manifestPath' | 'reportDir' | 'reportsRoot' | 'requestTimeoutMs'>,
  plan: SidePlan,
): Writes {
  const sides = (['current', 'candidate'] as const)
    .filter((s) => o[s].external ?? true)
    .map((s): WriteSide => {
      const manifestPath = o[s].manifestPath ?? o.manifestPath ?? '';
      return {
        side: s,
        baseUrl: o[s].baseUrl,
        apiKey: o[s].apiKey,
        reportsDir: join(o.reportDir, s),
        manifestPath,
        manifest: narrowed(o[s].manifest ?? loadManifest(manifestPath), plan[s]),
        requestTimeoutMs: o.requestTimeoutMs,
      };
    });
  return { sides, by: 'candidate:latency', label: (s) => `candidate: latency: ${s}`, reportsRoot: o.reportsRoot };
}

interface Before {
  startedAt: string;
  snapshot: Snapshot;
  writes: LedgerWrite[];
  /** Rules each gate held, as the snapshot's answers showed. */
  gateRules: Record<string, number>;
}

/**
 * `run` between each side's snapshot and its restore: every side is snapshotted first (what an earlier
 * run cut short still owes it given back before), and afterwards each is restored and ledgered on its
 * own (one side's failure does not skip the other's; a one-sided run's failure is the run's). `ledgers`
 * gets each ledger written, relative to `reportsRoot`. Without records (the run threw, or wrote no
 * summary), or after a cut, every gate the snapshot found is written back.
 */
export async function withSnapshots<T extends { records?: Records }>(
  o: Writes,
  ledgers: Partial<Record<Side, string>>,
  run: (currentGateRules: Record<string, number> | undefined) => Promise<T>,
): Promise<T> {
  const { sides } = o;
  const before: Partial<Record<Side, Before>> = {};
  let result: T | undefined;
  let thrown: { err: unknown } | undefined;
  try {
    for (const s of sides) before[s.side] = await snapshotFor(s, o.label(s.side));
    result = await run(before.current?.gateRules);
  } catch (err) {
    thrown = { err };
  }
  const errors: unknown[] = [];
  for (const s of sides) {
    const b = before[s.side];
    if (!b) continue;
    try {
      await recordWrites(s, b, result?.records ? (result.records.writes?.[s.side] ?? emptyWrites()) : undefined, o.by, o.cut?.() ?? false);
      ledgers[s.side] = relative(o.reportsRoot, join(s.reportsDir, 'ledger.json'));
    } catch (err) {
      errors.push(err);
      console.error(`${o.label(s.side)}: the ${s.side}'s restore or ledger failed: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (thrown) throw thrown.err;
  if (sides.length === 1 && errors.length) throw errors[0];
  return result as T;
}

/** The manifest's gates and experiments as the mutation profile finds them on a side, to be written back after it. */
async function snapshotFor(s: WriteSide, label: string): Promise<Before> {
  const conn: Connection = { baseUrl: s.baseUrl, apiKey: s.apiKey, timeoutMs: s.requestTimeoutMs };
  // What an earlier run cut short still owes this side comes first: its snapshot is the owners' state.
  const f = await finishOwed(s.reportsDir, conn, relative(ROOT, s.manifestPath));
  if (f) console.error(`${label}: ${finishedLine(f)}`);
  if (f?.left.length) throw new ConfigError(finishedLine(f));
  const snap = await takeSnapshot(conn, s.manifest);
  for (const note of snap.notes) console.error(`${label}: note: ${note}`);
  // Before the profile's first write: a gate already owed keeps the state recorded first (core/ledger.ts owe).
  snap.snapshot.gates = owe(s.reportsDir, { target: s.baseUrl, by: label, gates: snap.snapshot.gates });
  const gateRules = Object.fromEntries(Object.entries(snap.state.gates).flatMap(([g, v]) => (v.rules === null ? [] : [[g, v.rules]])));
  return { startedAt: new Date().toISOString(), snapshot: snap.snapshot, writes: snap.writes, gateRules };
}

/**
 * The mutation profile's writes in the side's ledger (the typed writes its run recorded, load/lib/writes.ts),
 * after the gates it toggled and the experiments it patched are written back as the snapshot found them.
 */
async function recordWrites(s: WriteSide, before: Before, written: ReturnType<typeof emptyWrites> | undefined, by: string, cut: boolean): Promise<void> {
  const w = written ?? emptyWrites();
  const writes: LedgerWrite[] = [...before.writes, ...ledgerWrites(w, s.manifest.metricPrefix)];
  const state: TargetState = { gates: {}, triggers: {} };
  for (const [gate, n] of Object.entries(w.gateRules)) if (n > 0) state.gates[gate] = { rules: n, isEnabled: null };
  const conn: Connection = { baseUrl: s.baseUrl, apiKey: s.apiKey, timeoutMs: s.requestTimeoutMs };
  // Without the records, or after a cut (its count misses the writes in flight), nothing says which were
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
    s.reportsDir,
    { by, startedAt: before.startedAt, writes: [...tally(writes), ...tally(r.writes)], restores: r.restores },
    { target: s.baseUrl, manifest: relative(ROOT, s.manifestPath), readOnly: false, state },
  );
  // What was given back, or needed none, is no longer owed; a failed restore stays for the next run.
  const failed = new Set(r.restores.filter((x) => !x.ok && x.resource.startsWith('gates/')).map((x) => x.resource.slice('gates/'.length)));
  settleOwed(
    s.reportsDir,
    s.baseUrl,
    Object.keys(before.snapshot.gates).filter((g) => !failed.has(g)),
  );
}
