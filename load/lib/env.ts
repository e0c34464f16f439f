// What a load profile knows about its run, from its environment only: the one module of load/ that reads
// the environment. Its readers run in processes the load runner starts (Artillery's workers, the setup
// process, a processor bundled for Artillery's own cloud), which get their settings as environment from
// the runner (load/command/prepare.ts, workerEnv) and do not load core/config.ts's whole configuration (no
// target manifest, no reference to start). The names are in docs/environment.md.
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOAD_PROFILES, type LoadProfile } from '../../core/formats.ts';

/** LOAD_DATA_DIR of an exported script (load:* --export, load/command/prepare.ts): the data sit beside the processor, wherever the folder is. */
export const BESIDE_PROCESSOR = '<beside the processor>';
/** LOAD_CLAIMS_DIR of an exported script: each `artillery run` (one process, its workers threads) claims in a folder of its own. */
export const PER_PROCESS = '<per process>';

export const BASE_URL: string = (process.env.CONSOLE_BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
/**
 * Paired mode (`npm run candidate -- --latency`): LOAD_CANDIDATE_BASE_URL set, every request of the
 * load but setup's probes goes to both targets, the current (CONSOLE_BASE_URL) and the candidate, in
 * random order (load/lib/http.ts). Each side's key then comes from its own variable.
 */
export const CANDIDATE_BASE_URL: string = (process.env.LOAD_CANDIDATE_BASE_URL || '').replace(/\/+$/, '');
export const PAIRED = CANDIDATE_BASE_URL !== '';
// The keys are read here and only put into request headers; they are never logged or returned from setup().
export const API_KEY: string = (PAIRED ? process.env.CONSOLE_CURRENT_API_KEY : process.env.CONSOLE_API_KEY) || '';
export const CANDIDATE_API_KEY: string = PAIRED ? process.env.CONSOLE_CANDIDATE_API_KEY || '' : '';
export type ProfileName = LoadProfile;
const isProfile = (name: string): name is ProfileName => (LOAD_PROFILES as readonly string[]).indexOf(name) >= 0;
const profile = process.env.LOAD_PROFILE || 'smoke';
if (!isProfile(profile)) throw new Error(`LOAD_PROFILE must be one of ${LOAD_PROFILES.join(', ')}, got ${profile}`);
export const PROFILE: ProfileName = profile;
/** LOAD_SECONDS: the arrival-rate scenarios' length at the profile's own rates (the power benchmark's short runs); undefined: the profile's. */
export const SECONDS: number | undefined = (() => {
  const raw = process.env.LOAD_SECONDS;
  if (!raw) return undefined;
  const n = Number(raw);
  if (!(Number.isInteger(n) && n >= 1 && n <= 3600)) throw new Error(`LOAD_SECONDS must be an integer from 1 to 3600, got ${raw}`);
  return n;
})();
export const REPORT_DIR: string = process.env.LOAD_REPORT_DIR || 'reports/load';
// In a bundle this module's URL is the processor's own (esbuild keeps import.meta.url in an ES module).
export const DATA_DIR: string =
  process.env.LOAD_DATA_DIR === BESIDE_PROCESSOR ? dirname(fileURLToPath(import.meta.url)) : process.env.LOAD_DATA_DIR || './data';
/**
 * Where the workers claim iteration numbers and the one-user scenarios' locks (load/artillery/processor.ts):
 * LOAD_CLAIMS_DIR, else the run's data folder, which every runner of the run shares.
 */
export const CLAIMS_DIR: string =
  process.env.LOAD_CLAIMS_DIR === PER_PROCESS
    ? join(tmpdir(), `console-conformance-claims-${process.env.LOAD_SCRIPT ?? ''}-${process.pid}`)
    : process.env.LOAD_CLAIMS_DIR || DATA_DIR;
/** Where a worker and the setup write their records (the runner merges them): LOAD_SAMPLES_DIR, else samples/ of the data. */
export const SAMPLES_DIR: string = process.env.LOAD_SAMPLES_DIR ?? join(DATA_DIR, 'samples');
/** The profile this processor runs (LOAD_SCRIPT: paging or mutation). */
export const SCRIPT: string = process.env.LOAD_SCRIPT ?? '';
/** Which of the run's Artillery processes this is (LOAD_RUNNER, 1-based; --runners N): each runner's arrivals are judged against its own phases. */
export const RUNNER: string = process.env.LOAD_RUNNER || '1';
/** LOAD_ARTILLERY_COUNTERS=1 (a cloud run): the records travel as Artillery counters, which its merge adds across containers. */
export const AS_COUNTERS: boolean = process.env.LOAD_ARTILLERY_COUNTERS === '1';
/** CONSOLE_ALLOW_REMOTE_LOAD=1: a target that is not loopback may be loaded (checked again in setup, for a run elsewhere). */
export const ALLOW_REMOTE_LOAD: boolean = process.env.CONSOLE_ALLOW_REMOTE_LOAD === '1';
/** Rules each manifest gate held before the run (LOAD_GATE_RULES, the snapshot's answers): a full gate may refuse more. */
export const GATE_RULES_AT_START: Record<string, number> = JSON.parse(process.env.LOAD_GATE_RULES || '{}');
/** The calibration request's path (LOAD_CALIBRATION_PATH: the power benchmark's ruler before, --calibration). */
export const CALIBRATION_PATH_SET: string | undefined = process.env.LOAD_CALIBRATION_PATH || undefined;
/** CONSOLE_STRICT: an inferred check that fails crosses a threshold (exit 1), as in the conformance suite. */
export const STRICT: boolean = process.env.LOAD_STRICT === '1';
/** Seconds one request may take (CONSOLE_REQUEST_TIMEOUT); past it the request counts as a transport failure. */
export const REQUEST_TIMEOUT_MS = (Number(process.env.LOAD_REQUEST_TIMEOUT) > 0 ? Number(process.env.LOAD_REQUEST_TIMEOUT) : 15) * 1000;
