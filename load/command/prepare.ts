// One preparation of a load run, for every path of the runner (load/command/run-plan.ts): the sides
// and their keys read from the run's environment and what is refused before anything is sent, the run
// id, the validators and request bodies written ahead, the environment of the setup and the workers, a
// prepared folder's settings (load:cloud, --export: load/artillery/folder.ts writes it), and the key
// looked for in everything the run wrote. The snapshot and restore of a side's writes are
// load/command/side-writes.ts's. docs/load.md has the whole story.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allowRemoteLoadFromEnv, ConfigError, isLoopback, loadBudget, loadConfig, type Manifest, ROOT, requestTimeoutMsFromEnv } from '../../core/config.ts';
import type { LoadScript } from '../../core/formats.ts';
import { keepOwed, owedRestores } from '../../core/ledger.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';
import { newRunId } from '../../core/random.ts';
import { scan } from '../../core/scan.ts';
import { writeFolder } from '../artillery/folder.ts';
import { writeRunValidators } from '../lib/build-validators.ts';
import { BESIDE_PROCESSOR, PER_PROCESS } from '../lib/env.ts';
import { pairedBudget, type SidePlan, sidePlan } from '../lib/sides.ts';
import type { LoadPlan, LoadSide, SystemUnderTest } from './plan.ts';

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
  return {
    plan,
    scripts,
    env,
    reportsDir: config.reportsDir,
    requestTimeoutMs: plan.requestTimeoutMs ?? config.requestTimeoutMs,
    strict: plan.strict ?? config.strict,
    sides: config.baseUrl
      ? [keyed({ baseUrl: config.baseUrl, keyVar: 'CONSOLE_API_KEY', manifestPath: config.manifestPath, manifest: config.manifest, external: true }, env)]
      : undefined,
    manifestPath: config.manifestPath,
    manifest: config.manifest,
  };
}

/** A reference server started for one profile's run, as the side of it: its key put into the run's environment. */
export function startedSide(run: PreparedRun, server: { baseUrl: string; apiKey: string }): KeyedSide {
  run.env.CONSOLE_API_KEY = server.apiKey;
  return { baseUrl: server.baseUrl, keyVar: 'CONSOLE_API_KEY', apiKey: server.apiKey, manifestPath: run.manifestPath, manifest: run.manifest, external: false };
}

/** The settings every worker of the run reads, here or in a prepared folder (load/lib/env.ts). */
const settingsOf = (run: PreparedRun, baseUrl: string) => ({
  CONSOLE_BASE_URL: baseUrl,
  LOAD_PROFILE: run.plan.profile,
  LOAD_STRICT: run.strict ? '1' : '0',
  LOAD_REQUEST_TIMEOUT: String(run.requestTimeoutMs / 1000),
  ...(run.plan.seconds ? { LOAD_SECONDS: String(run.plan.seconds) } : {}),
});

/** The environment of a profile's setup and Artillery's workers (load/lib/env.ts): one side's key, or a pair's two. */
export function workerEnv(run: PreparedRun, sides: KeyedSide[], reportDir: string, gateRules?: Record<string, number>): NodeJS.ProcessEnv {
  const [current, candidate] = sides;
  const env: NodeJS.ProcessEnv = {
    ...run.env,
    ...settingsOf(run, current.baseUrl),
    LOAD_REPORT_DIR: reportDir,
    LOAD_DATA_DIR: run.dataDir,
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

/**
 * The key must be in no artifact: everything the run wrote (docs/reports.md), the runners' folders too,
 * looked through by the secret scan verify runs (core/scan.ts: the key and its near misses, raw,
 * URL-encoded, base64 and hex, inside archives too).
 */
export function assertNoKey(dir: string, key: string): void {
  if (!key) return;
  const [file] = scan([dir], key).found;
  if (file) throw new ConfigError(`${file} holds the API key: refusing to keep it`);
}

/**
 * The request bodies written ahead into `outDir` by fixtures/generate.ts, run as the command it is
 * (fixtures/ is a folder of its own); `budget` bounds them by the manifest's load budget.
 */
function writeBodies(o: { seed: number; runId: string; manifestPath: string; outDir: string; budget: boolean; pairFile?: string }): void {
  const gen = spawnSync(
    process.execPath,
    [
      ...TS_NODE_OPTIONS,
      join(ROOT, 'fixtures/generate.ts'),
      ...['--seed', String(o.seed), '--run-id', o.runId, '--manifest', o.manifestPath, '--out', o.outDir],
      ...(o.budget ? ['--budget'] : []),
      ...(o.pairFile ? ['--pair', o.pairFile] : []),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (gen.status !== 0) throw new ConfigError(`writing the request bodies: ${(gen.stderr || gen.stdout).trim().split('\n')[0]}`);
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
  // What the plan gives the current, as loadManifest reads a manifest: the bodies are written for it.
  const m = o.plan.current;
  writeFileSync(manifestPath, JSON.stringify({ ...m, experiments: m.experiments.map((id) => ({ id, overrides: 'suite' })), ...(budget ? { budget } : {}) }));
  writeFileSync(pairFile, JSON.stringify(o.plan));
  writeBodies({ seed: o.seed, runId: o.runId, manifestPath, outDir: o.dataDir, budget: budget !== null, pairFile });
}

/** A prepared run's profile in its folder (load/artillery/folder.ts), with the run's settings written into its bundle; the files written, its script's first. */
export function prepareFolder(run: PreparedRun, script: LoadScript): Promise<string[]> {
  const cloud = run.plan.prepare?.for === 'cloud';
  const side = run.sides![0];
  return writeFolder({
    kind: cloud ? 'cloud' : 'export',
    dir: run.dataDir,
    script,
    profile: run.plan.profile,
    baseUrl: side.baseUrl,
    env: { ...workerEnv(run, [side], run.dataDir), LOAD_SCRIPT: script },
    requestTimeoutMs: run.requestTimeoutMs,
    runners: run.plan.runners,
    shape: run.plan.shape,
    // The workers elsewhere get no other environment; the key is not among these.
    settings: {
      ...settingsOf(run, side.baseUrl),
      LOAD_SCRIPT: script,
      LOAD_DATA_DIR: cloud ? '.' : BESIDE_PROCESSOR,
      ...(cloud ? {} : { LOAD_CLAIMS_DIR: PER_PROCESS }),
      LOAD_ARTILLERY_COUNTERS: '1',
      ...(cloud || allowRemoteLoadFromEnv(run.env) ? { CONSOLE_ALLOW_REMOTE_LOAD: '1' } : {}),
    },
  });
}
