// A load plan: everything a load run is asked for, as one typed value, run by runPlan
// (load/command/run-plan.ts) for every entry: `load:*`, verify's load stage, `candidate --latency`,
// the benchmarks, `load:* --export` and load:cloud (which prepare the run for Artillery to make
// elsewhere). A plan holds no key: each side names the variable of the run's environment that holds
// its own, so a plan may be written to a file and given to the runner's command
// (`load/command/load.ts --plan FILE`, as verify does). A field a path cannot honour is refused by
// checkPlan with one line (exit 3), never dropped.
import { readFileSync } from 'node:fs';
import { ConfigError, loadManifest, type Manifest } from '../../core/config.ts';
import type { ReferenceOptions } from '../../core/reference.ts';
import { LOAD_PROFILES, LOAD_SCRIPTS, type LoadScript, type Side } from '../../core/formats.ts';
import type { Shape } from '../artillery/shape.ts';

/**
 * The command-line options of every command that builds a one-sided plan (`load:*`, load:cloud): the
 * profile, its seed and strictness, and a shape of the user's in Artillery's own forms.
 */
export const LOAD_PLAN_OPTIONS = {
  profile: { type: 'string' },
  seed: { type: 'string' },
  strict: { type: 'boolean' },
  config: { type: 'string' },
  overrides: { type: 'string' },
  environment: { type: 'string', short: 'e' },
} as const;

/** One deployment a run loads: its URL, the variable of the run's environment that holds its key, its manifest. */
export interface LoadSide {
  baseUrl: string;
  /** The environment variable holding the key (CONSOLE_API_KEY, CONSOLE_CURRENT_API_KEY, ...); never the key itself. */
  keyVar: string;
  manifestPath: string;
  manifest: Manifest;
  /** Given by URL: its manifest's budget bounds the writes, and it is snapshotted, restored and ledgered. */
  external: boolean;
}

/**
 * The system under test of a one-sided run: CONSOLE_BASE_URL with CONSOLE_API_KEY (read once by the
 * runner into one LoadSide), or, when none is configured, a reference server started for each
 * profile's run and stopped after it; `reference` shapes that server.
 */
export interface SystemUnderTest {
  kind: 'configured';
  /** Experiments the started reference server seeds (default: its own); refused with a target. */
  scale?: number;
  /** For the reference server started for the run (refused with a target): `--latency`, faults such as slow:<op>:<pct>, variants. */
  reference?: Pick<ReferenceOptions, 'latency' | 'faults' | 'variants'>;
}

/** Two deployments loaded side by side: every request sent to both, judged pair by pair (load/compare/paired-judge.ts). */
export interface PairedSides {
  kind: 'pair';
  current: LoadSide;
  candidate: LoadSide;
  /** The smallest slowdown that counts, as a fraction (0.1: 10%); the family-wise false-alarm rate is paired-judge.ts's 0.01. */
  minEffect: number;
  /** The run's reports (summary.json, junit.xml, artillery.json); the mutation run's in `mutation/`, each side's ledger in `<side>/`. */
  reportDir: string;
  /** The folder `reports` in the verdict is relative to. */
  reportsRoot: string;
}

export interface LoadPlan {
  /** The profiles, run in this order. */
  scripts: LoadScript[];
  /** smoke, baseline or stress: the size of the profile's own shape, and the baseline it is compared with. */
  profile: string;
  /** The shape and limits given as data (--config, --overrides, --environment: load/artillery/shape.ts). */
  shape?: Shape;
  /** Seed of the request bodies (default 1), and of a pair's bootstrap (default its own). */
  seed?: number;
  /** Inferred checks fail the run (--strict; else CONSOLE_STRICT). */
  strict?: boolean;
  /** Artillery processes sharing the arrival rates, their records merged exactly; prepared for the cloud: its containers. */
  runners?: number;
  /** The JSON field keeps its name: verify's plan files say "target". */
  target: SystemUnderTest | PairedSides;
  /**
   * Compare with the baselines afterwards (one side only): a regression the tolerances found is run
   * again before it is believed (needsConfirmation, load/compare/baseline.ts). `baselinesDir` replaces load/baselines/.
   */
  compare?: { baselinesDir?: string };
  /** The arrival-rate scenarios' length at the profile's own rates (LOAD_SECONDS; default the profile's). */
  seconds?: number;
  /** Each request's time limit (default CONSOLE_REQUEST_TIMEOUT of the environment). */
  requestTimeoutMs?: number;
  /** The environment the run reads its configuration and keys from (default this process's); never written to a file. */
  env?: NodeJS.ProcessEnv;
  /** Run nothing: prepare the run in `dir` for Artillery to make elsewhere (load:cloud's containers, or a team's own pipeline). */
  prepare?: { dir: string; for: 'cloud' | 'export' };
}

/** Why `plan` asks for something its path cannot honour (a ConfigError, exit 3); nothing is dropped silently. */
export function checkPlan(plan: LoadPlan): void {
  const refuse = (what: string, why: string) => {
    throw new ConfigError(`${what}: ${why}`);
  };
  if (plan.target.kind === 'pair') {
    if (plan.shape) refuse('--config/--overrides', 'a paired run keeps the profile’s own shape (its ruler’s rate is paired)');
    if ((plan.runners ?? 1) > 1) refuse('--runners', 'a paired run is one generator, so that both sides share its moments');
    if (plan.compare) refuse('--compare', 'a paired run is judged side by side, not against a baseline');
    if (plan.prepare) refuse('--export/load:cloud', 'a paired run is made here, with both keys');
    return;
  }
  if (!plan.prepare) return;
  if (plan.compare) refuse('--compare', 'a prepared run has not run yet (judge it with load:cloud --report, then baseline:compare)');
  if (plan.target.scale !== undefined || plan.target.reference)
    refuse('--scale/--latency/--fault/--variant', 'a prepared run is for CONSOLE_BASE_URL, no reference server is started');
  if (plan.prepare.for === 'export' && (plan.runners ?? 1) > 1) refuse('--runners', 'an exported script is one `artillery run`');
}

/** The sides of a paired run given with their keys (candidate, the benchmarks): the keys go into the plan's environment only. */
export function pairedPlan(
  o: Partial<Pick<LoadPlan, 'scripts' | 'seconds' | 'seed'>> &
    Required<Pick<LoadPlan, 'profile' | 'requestTimeoutMs'>> &
    Omit<PairedSides, 'kind' | Side> &
    Record<Side, Pick<LoadSide, 'baseUrl'> & Partial<Pick<LoadSide, 'manifestPath' | 'manifest' | 'external'>> & { apiKey: string }> & {
      /** Both sides' manifest when a side names none. */
      manifestPath?: string;
    },
): LoadPlan {
  const { current, candidate, manifestPath, minEffect, reportDir, reportsRoot, ...rest } = o;
  const side = (s: typeof current, keyVar: string): LoadSide => {
    const path = s.manifestPath ?? manifestPath;
    if (!path) throw new ConfigError('a paired run needs a manifest for each side');
    return { baseUrl: s.baseUrl, keyVar, manifestPath: path, manifest: s.manifest ?? loadManifest(path), external: s.external ?? true };
  };
  return {
    ...rest,
    scripts: o.scripts ?? ['paging'],
    env: { ...process.env, CONSOLE_CURRENT_API_KEY: current.apiKey, CONSOLE_CANDIDATE_API_KEY: candidate.apiKey },
    target: {
      kind: 'pair',
      current: side(current, 'CONSOLE_CURRENT_API_KEY'),
      candidate: side(candidate, 'CONSOLE_CANDIDATE_API_KEY'),
      minEffect,
      reportDir,
      reportsRoot,
    },
  };
}

const isScript = (s: unknown): s is LoadScript => (LOAD_SCRIPTS as readonly unknown[]).includes(s);

/**
 * A plan read from a file written by another command (verify): one configured side only, since a
 * pair's keys are in its environment and a plan file holds none. A file that is not such a plan is a
 * ConfigError naming the problem.
 */
export function readPlanFile(file: string): LoadPlan {
  const refuse = (why: string) => {
    throw new ConfigError(`--plan ${file}: ${why}`);
  };
  let p: Partial<LoadPlan> | null = null;
  try {
    p = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    refuse((err as Error).message.split('\n')[0]);
  }
  if (typeof p !== 'object' || p === null) return refuse('not a JSON object');
  if (!Array.isArray(p.scripts) || p.scripts.length === 0 || !p.scripts.every(isScript)) refuse(`"scripts" must list ${LOAD_SCRIPTS.join(' and/or ')}`);
  if (!(LOAD_PROFILES as readonly unknown[]).includes(p.profile)) refuse(`"profile" must be one of ${LOAD_PROFILES.join(', ')}`);
  if (p.seed !== undefined && !(Number.isInteger(p.seed) && p.seed >= 0)) refuse('"seed" must be a whole number of 0 or more');
  if (p.runners !== undefined && !(Number.isInteger(p.runners) && p.runners >= 1 && p.runners <= 16)) refuse('"runners" must be 1 to 16');
  if (p.target?.kind !== 'configured') refuse('"target" must be {"kind": "configured"} (a pair\'s keys are never in a file)');
  if (p.env !== undefined || p.prepare !== undefined) refuse('"env" and "prepare" are never read from a file');
  return p as LoadPlan;
}
