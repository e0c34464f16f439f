// A load plan: everything a load run is asked for, as one typed value, run by runPlan
// (load/command/run-plan.ts) for every entry: `load:*`, verify's load stage, `candidate --latency`
// and load:cloud's preparation (which builds one and hands it to Artillery's own platform). A plan
// holds no key: keys come from the environment (core/config.ts), so a plan may be written to a file
// and given to the runner's command (`load/command/load.ts --plan FILE`, as verify does).
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../core/config.ts';
import { LOAD_SCRIPTS, type LoadScript } from '../../core/formats.ts';
import type { Manifest } from '../../core/manifest.ts';
import type { Shape } from '../artillery/shape.ts';

/** The sizes of the profiles' own shapes (load/lib/profiles.ts). */
export const PLAN_PROFILES = ['smoke', 'baseline', 'stress'] as const;

/**
 * The configured target (CONSOLE_BASE_URL and its key), or, when none is configured, a reference
 * server started for each profile's run and stopped after it; `reference` shapes that server.
 */
export interface ConfiguredTarget {
  kind: 'configured';
  /** Experiments the started reference server seeds (default: its own); ignored with a target. */
  scale?: number;
  /** For the reference server started for the run (refused with a target): `--latency`, faults such as slow:<op>:<pct>, variants. */
  reference?: { latency?: string; faults?: string[]; variants?: string[] };
}

/** One deployment of a current/candidate pair, given by URL or started for the side. */
export interface PairSide {
  baseUrl: string;
  apiKey: string;
  manifestPath: string;
  manifest: Manifest;
  /** A deployment given by URL: its manifest's budget bounds the writes, and it is snapshotted, restored and ledgered. */
  external: boolean;
}

/** Two deployments loaded side by side: every request sent to both, judged pair by pair (load/command/paired.ts). */
export interface PairTarget {
  kind: 'pair';
  current: PairSide;
  candidate: PairSide;
  /** The smallest slowdown that counts, as a fraction (0.1: 10%). */
  minEffect: number;
  /** Family-wise false-alarm rate over the operations (default 0.01). */
  alpha?: number;
  /** The arrival-rate scenarios' length (LOAD_SECONDS; default the profile's own). */
  seconds?: number;
  /** The run's reports (summary.json, junit.xml, artillery.json); the mutation run's in `mutation/`, each side's ledger in `<side>/`. */
  reportDir: string;
  /** The folder `reports` in the result is relative to. */
  reportsRoot: string;
  requestTimeoutMs: number;
  /** The environment the runs are given (default this process's). */
  env?: NodeJS.ProcessEnv;
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
  /** Artillery processes sharing the arrival rates, their workers' records merged exactly; 1 or absent: one. */
  runners?: number;
  target: ConfiguredTarget | PairTarget;
  /**
   * Compare with the baselines afterwards (a configured target only): a regression the tolerances found
   * is run again before it is believed (needsConfirmation, load/compare/baseline.ts). `baselinesDir`
   * replaces load/baselines/.
   */
  compare?: { baselinesDir?: string };
}

const isScript = (s: unknown): s is LoadScript => (LOAD_SCRIPTS as readonly unknown[]).includes(s);

/**
 * A plan read from a file written by another command (verify): a configured target only, since a pair
 * holds keys and a plan file none. A file that is not such a plan is a ConfigError naming the problem.
 */
export function readPlanFile(file: string): LoadPlan {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`--plan ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  const p = raw as Partial<LoadPlan> | null;
  if (typeof p !== 'object' || p === null) throw new ConfigError(`--plan ${file}: not a JSON object`);
  if (!Array.isArray(p.scripts) || p.scripts.length === 0 || !p.scripts.every(isScript))
    throw new ConfigError(`--plan ${file}: "scripts" must list ${LOAD_SCRIPTS.join(' and/or ')}`);
  if (!(PLAN_PROFILES as readonly unknown[]).includes(p.profile)) throw new ConfigError(`--plan ${file}: "profile" must be one of ${PLAN_PROFILES.join(', ')}`);
  if (p.seed !== undefined && !(Number.isInteger(p.seed) && p.seed >= 0)) throw new ConfigError(`--plan ${file}: "seed" must be a whole number of 0 or more`);
  if (p.runners !== undefined && !(Number.isInteger(p.runners) && p.runners >= 1 && p.runners <= 16))
    throw new ConfigError(`--plan ${file}: "runners" must be 1 to 16`);
  if (p.target?.kind !== 'configured') throw new ConfigError(`--plan ${file}: "target" must be {"kind": "configured"} (a pair's keys are never in a file)`);
  return p as LoadPlan;
}
