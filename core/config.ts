// The one place that reads the environment (docs/architecture.md, "Environment"). Every command and the
// conformance suite get their configuration from loadConfig(); nothing else reads process.env.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Json } from './json.ts';
import type { Budget, Manifest, Waiver } from './manifest.ts';

// The manifest's type lives in core/manifest.ts; its users found it here.
export type { Budget, Manifest, ManifestTrigger, Waiver } from './manifest.ts';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** A run that cannot be carried out: the CLIs print `message` on one line and exit 3. */
export class ConfigError extends Error {
  readonly exitCode = 3;
}

/** The load's budget against a target when the manifest names none (docs/nightly.md: what a night leaves behind). */
export const DEFAULT_LOAD_BUDGET: Budget = { triggerPhasesPerRun: 0, metricsPerRun: 4, rulesPerGatePerRun: 2 };

/**
 * The wrong keys the auth tests send: 'random' (the default), keys of the real one's shape that reveal
 * nothing of it; 'derived' adds keys made from it (one character short, its first half, one added, in
 * other case), each one guess from the real key, for a throwaway key only (CONSOLE_AUTH_PROBES, --auth-probes).
 */
export type AuthProbes = 'random' | 'derived';
export const AUTH_PROBES: readonly AuthProbes[] = ['random', 'derived'];

export interface Config {
  /** Host root of the target, without a trailing slash; undefined means "start the reference server". */
  baseUrl: string | undefined;
  /** The SERVICE-API-KEY value; undefined means "a random key per run for the reference". */
  apiKey: string | undefined;
  manifestPath: string;
  manifest: Manifest;
  strict: boolean;
  /** CONSOLE_READ_ONLY=1 (or --read-only): only reads and dryRun writes reach the target, for production. */
  readOnly: boolean;
  /** CONSOLE_AUTH_PROBES (or --auth-probes): which wrong keys the auth tests send. */
  authProbes: AuthProbes;
  allowRemoteLoad: boolean;
  /** Where a run writes its reports: CONSOLE_REPORTS_DIR (used by the self-test), default reports/. */
  reportsDir: string;
  /**
   * The run history (core/history.ts): CONSOLE_HISTORY, default history.sqlite in the reports folder.
   * There, and not in a fixed place, so that a run with a reports folder of its own (the self-test,
   * the project's tests of verify) keeps a history of its own and never adds to the user's; verify
   * clears only its own outputs from the folder (scripts/lib/previous-run.ts), so the file stays.
   */
  historyFile: string;
  /** A previous run's observations.json, to report drift against (CONSOLE_OBSERVATIONS_BASELINE). */
  observationsBaseline: string | undefined;
  /** The whole run's deadline in seconds (CONSOLE_DEADLINE, or --deadline): past it the run stops with exit 3. */
  deadlineSeconds: number;
  /** How long one request may take before it counts as a transport failure (CONSOLE_REQUEST_TIMEOUT, seconds). */
  requestTimeoutMs: number;
  /**
   * Pages one walk of a list may ask before it stops as partial (CONSOLE_LIST_BUDGET): what bounds the
   * suite's cost on a large target. A check that would need more is reported not verifiable, with the budget
   * that would decide it (contracts/support/paging.ts).
   */
  listBudget: number;
  /**
   * The seed the list checks draw pages and experiments from across a list's depth (CONSOLE_LIST_SEED):
   * written in conformance.json, so that a run's draws replay. `npm run conformance` draws one when unset;
   * Playwright started directly uses 1.
   */
  listSeed: number;
  /**
   * The deadline as a time (epoch ms), set by `npm run conformance` for Playwright (CONSOLE_DEADLINE_AT,
   * internal): the run's clock starts with the command, not with Playwright.
   */
  deadlineAt: number | undefined;
  /**
   * Rules each manifest gate held when the run began, as the snapshot's answers showed them
   * (CONSOLE_GATE_RULES, internal, set by `npm run conformance` for the workers): a gate that holds
   * many and refuses more may be full (contracts/support/gate-rules.ts).
   */
  gateRulesAtStart: Record<string, number>;
}

/** Sized to the suite: it takes about 10 s against the reference, a few minutes against a slow staging. */
export const DEFAULT_DEADLINE_SECONDS = 600;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 15;
/** Pages per walk of a list: a reference of 200 experiments takes 3 at the largest page size. */
export const DEFAULT_LIST_BUDGET = 12;

function pageCount(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 2 || n > 100_000)
    throw new ConfigError(`${name} must be a whole number of pages from 2 to 100000, got ${JSON.stringify(value)}`);
  return n;
}

/** A positive number of seconds from the environment (or a command's option of the same meaning). */
export function seconds(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number of seconds, got ${JSON.stringify(value)}`);
  return n;
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new ConfigError(`${name} must be 0 or 1, got ${JSON.stringify(value)}`);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string' && x.length > 0);
}

/** Reads and checks a target manifest; a bad one is a ConfigError naming the first problem. */
export function loadManifest(path: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read target manifest ${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  const m = raw as Record<string, unknown>;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new ConfigError(`target manifest ${path}: not a JSON object`);
  if (!isStringArray(m.gates)) throw new ConfigError(`target manifest ${path}: "gates" must be an array of gate ids`);
  if (!Array.isArray(m.experiments)) throw new ConfigError(`target manifest ${path}: "experiments" must be an array of experiment ids`);
  const owned: string[] = [];
  m.experiments = m.experiments.map((e: unknown, i: number) => {
    if (typeof e === 'string') return e;
    const x = e as Record<string, unknown> | null;
    if (typeof x !== 'object' || x === null || typeof x.id !== 'string' || (x.overrides !== undefined && x.overrides !== 'suite'))
      throw new ConfigError(`target manifest ${path}: experiments[${i}] must be an experiment id or {"id": "...", "overrides": "suite"}`);
    if (x.overrides === 'suite') owned.push(x.id);
    return x.id;
  });
  m.overridesOwned = owned;
  if (!Array.isArray(m.triggers)) throw new ConfigError(`target manifest ${path}: "triggers" must be an array`);
  m.triggers.forEach((t: Json, i: number) => {
    if (typeof t !== 'object' || t === null || typeof t.id !== 'string' || typeof t.releasePipelineID !== 'string' || !isStringArray(t.phaseIDs)) {
      throw new ConfigError(`target manifest ${path}: triggers[${i}] must be {"id", "releasePipelineID", "phaseIDs": [...]}`);
    }
  });
  if (typeof m.metricPrefix !== 'string' || !/^[A-Za-z0-9_-]{1,20}$/.test(m.metricPrefix)) {
    throw new ConfigError(`target manifest ${path}: "metricPrefix" must be 1 to 20 letters, digits, _ or -`);
  }
  if (m.waive !== undefined) {
    if (!Array.isArray(m.waive)) throw new ConfigError(`target manifest ${path}: "waive" must be an array of {"clauses": "<glob>", "reason": "..."}`);
    m.waive.forEach((w: Json, i: number) => {
      if (typeof w === 'string')
        throw new ConfigError(`target manifest ${path}: waive[${i}] "${w}" needs a reason: write {"clauses": "${w}", "reason": "..."}`);
      if (typeof w !== 'object' || w === null || typeof w.clauses !== 'string' || !/^[A-Za-z0-9_.*-]+$/.test(w.clauses))
        throw new ConfigError(`target manifest ${path}: waive[${i}].clauses must be a clause id or a glob of them (letters, digits, . _ - and *)`);
      if (typeof w.reason !== 'string' || w.reason.trim() === '') throw new ConfigError(`target manifest ${path}: waive[${i}] needs a "reason"`);
    });
  }
  if (m.budget !== undefined) {
    if (typeof m.budget !== 'object' || m.budget === null || Array.isArray(m.budget))
      throw new ConfigError(`target manifest ${path}: "budget" must be an object such as {"triggerPhasesPerRun": 2}`);
    for (const [k, v] of Object.entries(m.budget)) {
      if (!(k in DEFAULT_LOAD_BUDGET))
        throw new ConfigError(`target manifest ${path}: budget.${k} is not known (${Object.keys(DEFAULT_LOAD_BUDGET).join(', ')})`);
      if (!Number.isInteger(v) || (v as number) < 0) throw new ConfigError(`target manifest ${path}: budget.${k} must be a whole number of 0 or more`);
    }
  }
  return m as unknown as Manifest;
}

/** The load's budget: the manifest's, each key it leaves out from DEFAULT_LOAD_BUDGET. */
export function loadBudget(m: Manifest): Budget {
  return { ...DEFAULT_LOAD_BUDGET, ...(m.budget ?? {}) };
}

/**
 * The path of the target manifest: CONSOLE_TARGET_MANIFEST, or its old name CONSOLE_FIXTURES (it names
 * a manifest of the target, not fixtures), still accepted with a one-line note. The old name is
 * rewritten to the new one in `env`, so that the child processes a command starts with it (the suite,
 * Playwright's workers, the load profiles) read the new name and the note is shown once per run, not once per process.
 */
function manifestPathFrom(env: NodeJS.ProcessEnv, note: (line: string) => void): string {
  const old = env.CONSOLE_FIXTURES;
  if (old) {
    if (!env.CONSOLE_TARGET_MANIFEST) {
      note('note: CONSOLE_FIXTURES is deprecated: name the target manifest with CONSOLE_TARGET_MANIFEST (same meaning)');
      env.CONSOLE_TARGET_MANIFEST = old;
    } else if (resolve(old) !== resolve(env.CONSOLE_TARGET_MANIFEST)) {
      note('note: CONSOLE_FIXTURES is ignored: CONSOLE_TARGET_MANIFEST is set (CONSOLE_FIXTURES is its deprecated name)');
    }
    delete env.CONSOLE_FIXTURES;
  }
  return resolve(env.CONSOLE_TARGET_MANIFEST || resolve(ROOT, 'fixtures/targets/reference.json'));
}

/**
 * Where runs write their reports and where the commands that read a run look for it:
 * CONSOLE_REPORTS_DIR, default reports/. One function, so that a reader (baseline:update and
 * compare) cannot look in another folder than the writer (load:*) wrote to. Needs no manifest.
 */
export function reportsDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.CONSOLE_REPORTS_DIR || resolve(ROOT, 'reports'));
}

/**
 * For the packaged command, run from the user's folder: the paths the environment names made absolute
 * against `cwd`, and reports defaulting to ./reports there (not inside the package), before the
 * command starts Playwright and the reference server in the package's folder, where a relative path
 * would name another file.
 */
export function anchorPaths(env: NodeJS.ProcessEnv, cwd: string): void {
  const paths = {
    CONSOLE_TARGET_MANIFEST: env.CONSOLE_TARGET_MANIFEST,
    CONSOLE_FIXTURES: env.CONSOLE_FIXTURES,
    CONSOLE_HISTORY: env.CONSOLE_HISTORY,
    CONSOLE_OBSERVATIONS_BASELINE: env.CONSOLE_OBSERVATIONS_BASELINE,
  };
  for (const [name, value] of Object.entries(paths)) if (value?.trim()) env[name] = resolve(cwd, value);
  env.CONSOLE_REPORTS_DIR = resolve(cwd, env.CONSOLE_REPORTS_DIR?.trim() || 'reports');
}

/** The configuration from `env`; `note` gets a line for a deprecated name (default: stderr). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, note: (line: string) => void = (line) => console.error(line)): Config {
  let baseUrl = env.CONSOLE_BASE_URL?.trim() || undefined;
  if (baseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new ConfigError(`CONSOLE_BASE_URL is not a URL: ${JSON.stringify(baseUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`CONSOLE_BASE_URL must be http or https, got ${url.protocol}`);
    baseUrl = baseUrl.replace(/\/+$/, '');
  }
  const apiKey = env.CONSOLE_API_KEY || undefined;
  if (baseUrl !== undefined && apiKey === undefined) throw new ConfigError('CONSOLE_API_KEY must be set when CONSOLE_BASE_URL is set');
  const manifestPath = manifestPathFrom(env, note);
  const reportsDir = reportsDirFromEnv(env);
  return {
    baseUrl,
    apiKey,
    manifestPath,
    manifest: withWaivers(loadManifest(manifestPath), env.CONSOLE_WAIVE),
    strict: flag(env.CONSOLE_STRICT, 'CONSOLE_STRICT'),
    readOnly: flag(env.CONSOLE_READ_ONLY, 'CONSOLE_READ_ONLY'),
    authProbes: authProbes(env.CONSOLE_AUTH_PROBES),
    allowRemoteLoad: flag(env.CONSOLE_ALLOW_REMOTE_LOAD, 'CONSOLE_ALLOW_REMOTE_LOAD'),
    reportsDir,
    historyFile: env.CONSOLE_HISTORY?.trim() ? resolve(env.CONSOLE_HISTORY) : resolve(reportsDir, 'history.sqlite'),
    observationsBaseline: env.CONSOLE_OBSERVATIONS_BASELINE ? resolve(env.CONSOLE_OBSERVATIONS_BASELINE) : undefined,
    deadlineSeconds: seconds(env.CONSOLE_DEADLINE, 'CONSOLE_DEADLINE', DEFAULT_DEADLINE_SECONDS),
    requestTimeoutMs: seconds(env.CONSOLE_REQUEST_TIMEOUT, 'CONSOLE_REQUEST_TIMEOUT', DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
    listBudget: pageCount(env.CONSOLE_LIST_BUDGET, 'CONSOLE_LIST_BUDGET', DEFAULT_LIST_BUDGET),
    listSeed: listSeed(env.CONSOLE_LIST_SEED),
    deadlineAt: env.CONSOLE_DEADLINE_AT ? Number(env.CONSOLE_DEADLINE_AT) || undefined : undefined,
    gateRulesAtStart: gateRules(env.CONSOLE_GATE_RULES),
  };
}

/**
 * CONSOLE_WAIVE (or `--waive`): waivers given for one run, one `<clause glob>=<reason>` a line, added to
 * the manifest's own; held to the manifest's rules (a glob of clause ids, a reason).
 */
export function parseWaivers(value: string | undefined): Waiver[] {
  return (value ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf('=');
      const clauses = at < 0 ? line : line.slice(0, at).trim();
      const reason = at < 0 ? '' : line.slice(at + 1).trim();
      if (!/^[A-Za-z0-9_.*-]+$/.test(clauses))
        throw new ConfigError(`--waive ${JSON.stringify(line)}: the clauses must be a clause id or a glob of them (letters, digits, . _ - and *)`);
      if (!reason) throw new ConfigError(`--waive ${JSON.stringify(line)} needs a reason: write '${clauses}=<why it is accepted>'`);
      return { clauses, reason };
    });
}

function withWaivers(m: Manifest, value: string | undefined): Manifest {
  const extra = parseWaivers(value);
  return extra.length ? { ...m, waive: [...(m.waive ?? []), ...extra] } : m;
}

/** CONSOLE_LIST_SEED: a whole number from 1 to 2^31 - 1; 1 when unset. */
function listSeed(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 31 - 1)
    throw new ConfigError(`CONSOLE_LIST_SEED must be a whole number from 1 to 2147483647, got ${JSON.stringify(value)}`);
  return n;
}

/** A seed for the list checks' draws, for a run that was given none. */
export const newListSeed = () => 1 + Math.floor(Math.random() * (2 ** 31 - 2));

/** CONSOLE_AUTH_PROBES: random (also unset or empty) or derived. */
function authProbes(value: string | undefined): AuthProbes {
  const v = value?.trim() || 'random';
  if (!(AUTH_PROBES as readonly string[]).includes(v)) throw new ConfigError(`CONSOLE_AUTH_PROBES must be random or derived, got ${JSON.stringify(value)}`);
  return v as AuthProbes;
}

/** CONSOLE_GATE_RULES: {"<gate id>": <rules held>}; anything else reads as nothing known. */
function gateRules(value: string | undefined): Record<string, number> {
  try {
    const v = JSON.parse(value ?? '{}');
    return typeof v === 'object' && v !== null ? (Object.fromEntries(Object.entries(v).filter(([, n]) => Number.isInteger(n))) as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/**
 * loadConfig for a command: a configuration mistake goes to `fail` (the command's one-line reason
 * and exit 3); anything else is a bug and is thrown.
 */
export function loadConfigOr(fail: (reason: string) => never, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

/** True when the URL's host is on this machine (loopback), the only place load may go by default. */
export function isLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The key the reference server accepts when `npm run serve` is given no --api-key: CONSOLE_API_KEY,
 * also how core/reference.ts hands a started server its key. Undefined when unset or empty (the
 * server then makes up a random key). Not loadConfig: serve needs no manifest and no target.
 */
export function referenceKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.CONSOLE_API_KEY || undefined;
}

/**
 * CONSOLE_UPDATE_SCREENSHOTS=1 (npm run report:screenshots): the report's page test writes its
 * screenshots into docs/ for the README instead of the reports folder. Any other value is "no".
 */
export function updateScreenshotsFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CONSOLE_UPDATE_SCREENSHOTS === '1';
}

/** LOAD_REQUESTS_CSV: a folder where a load run writes one row per request (verify's throughput chart); undefined when unset. */
export function requestRowsDirFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.LOAD_REQUESTS_CSV || undefined;
}

/** True when CONSOLE_BASE_URL names a target: tools that start their own reference refuse to run then. */
export function targetSetInEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.CONSOLE_BASE_URL);
}

/**
 * Sets (or, for undefined, removes) variables of this process's environment, for code that reads its
 * configuration from there: the Playwright workers a global setup hands a target to, the load runs a
 * benchmark starts in-process. The one writer, as loadConfig is the one reader.
 */
export function setEnv(values: Record<string, string | undefined>, env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
}

/**
 * The keys of `npm run candidate`'s two targets: CONSOLE_CURRENT_API_KEY and CONSOLE_CANDIDATE_API_KEY,
 * each its own (two deployments seldom share one). Undefined when unset or empty.
 */
export function candidateKeysFromEnv(env: NodeJS.ProcessEnv = process.env): { current: string | undefined; candidate: string | undefined } {
  return { current: env.CONSOLE_CURRENT_API_KEY || undefined, candidate: env.CONSOLE_CANDIDATE_API_KEY || undefined };
}

/**
 * CONSOLE_REQUEST_TIMEOUT in milliseconds for a run that has no Config of its own (the paired latency run of
 * `npm run candidate`): a value that is not a positive number gives the default, as loadConfig has checked it already.
 */
export function requestTimeoutMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return (Number(env.CONSOLE_REQUEST_TIMEOUT) || DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000;
}

/**
 * CONSOLE_FULL_EXCHANGES=1 (internal: set by `npm run candidate` for its suite runs): the recorded
 * exchanges keep whole bodies, which the comparison of two deployments needs field by field; by default
 * a body is cut at a few thousand characters, enough for a failure's evidence.
 */
export function fullExchangesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CONSOLE_FULL_EXCHANGES === '1';
}

/**
 * CONSOLE_ALLOW_REMOTE_LOAD=1 for a run that has no Config of its own (the paired latency run of
 * `npm run candidate`, given its environment): a load may go to a target that is not loopback.
 */
export function allowRemoteLoadFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CONSOLE_ALLOW_REMOTE_LOAD === '1';
}
