// The latency of two deployments side by side (`npm run candidate -- --latency`): the paging profile run
// once, from one generator, every request of it sent to the current and to the candidate in random
// order (load/lib/http.ts, paired mode), each timed by the same processor. Both sides then share the
// machine's and the network's moments, so the noise that drowns a compare with a baseline recorded on
// another day mostly cancels. Judged pair by pair, per operation, calibrated by the ruler request's
// pairs (sent to both as well): load/compare/paired-detect.ts. The keys come from CONSOLE_CURRENT_API_KEY and CONSOLE_CANDIDATE_API_KEY in the
// workers' environment only, and everything the run wrote is searched for both.
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError, isLoopback, ROOT } from '../../core/config.ts';
import type { CandidateLatency } from '../../core/formats.ts';
import { newRunId } from '../../core/random.ts';
import { runProfile } from '../artillery/run.ts';
import { detectPaired, pairsByTag } from '../compare/paired-detect.ts';
import { buildValidators } from '../lib/build-validators.ts';
import type { Records } from '../lib/runtime.ts';
import { assertNoKey, loadEnv, writeBodies } from './run.ts';

export interface PairedSide {
  baseUrl: string;
  apiKey: string;
}

export interface PairedOptions {
  current: PairedSide;
  candidate: PairedSide;
  /** smoke or baseline. */
  profile: string;
  /** The smallest slowdown that counts, as a fraction (0.1: 10%). */
  minEffect: number;
  /** Family-wise false-alarm rate over the endpoints (default 0.01, as the baseline compare). */
  alpha?: number;
  /** The arrival-rate scenarios' length (LOAD_SECONDS; default the profile's own). */
  seconds?: number;
  /** The run's reports (summary.json, junit.xml, artillery.json) go here. */
  reportDir: string;
  /** The folder `reports` in the result is relative to. */
  reportsRoot: string;
  manifestPath: string;
  requestTimeoutMs: number;
  /** Seed of the request bodies and of the bootstrap. */
  seed?: number;
  env?: NodeJS.ProcessEnv;
}

const counter = (records: Records, key: string) => {
  const r = records.metrics[key];
  return r?.type === 'counter' ? r.sum : 0;
};

/** The side-by-side verdict of a paired run's records: the candidate judged against the current, pair by pair, per operation. */
export function judgePaired(records: Records, o: { profile: string; minEffect: number; alpha?: number; seed?: number; reports: string }): CandidateLatency {
  const d = detectPaired(pairsByTag(records), { minEffect: o.minEffect, alpha: o.alpha ?? 0.01, seed: o.seed });
  return {
    script: 'paging',
    profile: o.profile,
    verdict: d.regression ? 'regression' : 'pass',
    minEffect: d.minEffect,
    alpha: d.alpha,
    confidence: d.confidence,
    calibration: d.calibration,
    endpoints: d.operations,
    requests: { paired: counter(records, 'load_paired_reqs'), candidateFirst: counter(records, 'load_candidate_first') },
    reports: o.reports,
  };
}

/** One paired paging run and its verdict; `latency.verdict` 'not carried out' with its reason when the run could not be made. */
export async function runPairedPaging(o: PairedOptions): Promise<CandidateLatency> {
  const env0 = o.env ?? process.env;
  for (const [side, t] of [
    ['current', o.current],
    ['candidate', o.candidate],
  ] as const)
    if (!isLoopback(t.baseUrl) && env0.CONSOLE_ALLOW_REMOTE_LOAD !== '1')
      throw new ConfigError(`refusing to load the ${side} (${new URL(t.baseUrl).host}): it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);
  const runId = newRunId();
  const dataDir = join(ROOT, 'load/data', `run-${runId}`);
  const reports = relative(o.reportsRoot, o.reportDir);
  const notCarriedOut = (reason: string): CandidateLatency => ({
    script: 'paging',
    profile: o.profile,
    verdict: 'not carried out',
    minEffect: o.minEffect,
    alpha: o.alpha ?? 0.01,
    confidence: 0.95,
    calibration: null,
    endpoints: [],
    requests: { paired: 0, candidateFirst: 0 },
    reports,
    reason,
  });
  const tmp = await buildValidators(join(ROOT, 'load/data', `validators.${runId}.tmp.js`));
  renameSync(tmp, join(ROOT, 'load/data/validators.js'));
  rmSync(o.reportDir, { recursive: true, force: true });
  mkdirSync(o.reportDir, { recursive: true });
  try {
    // The paging profile only reads: the bodies are written for its page sizes, bounded by the budget.
    writeBodies({ seed: o.seed ?? 1, runId, manifestPath: o.manifestPath, outDir: dataDir, budget: true });
    const env: NodeJS.ProcessEnv = {
      ...loadEnv(o.profile, { baseUrl: o.current.baseUrl, apiKey: '' }, dataDir, o.reportDir, {
        strict: false,
        requestTimeoutMs: o.requestTimeoutMs,
        external: true,
      }),
      ...(env0 === process.env ? {} : env0),
      CONSOLE_BASE_URL: o.current.baseUrl,
      LOAD_CANDIDATE_BASE_URL: o.candidate.baseUrl,
      CONSOLE_CURRENT_API_KEY: o.current.apiKey,
      CONSOLE_CANDIDATE_API_KEY: o.candidate.apiKey,
      ...(o.seconds ? { LOAD_SECONDS: String(o.seconds) } : {}),
    };
    delete env.CONSOLE_API_KEY;
    const run = await runProfile({
      script: 'paging',
      profile: o.profile,
      baseUrl: o.current.baseUrl,
      env,
      reportDir: o.reportDir,
      dataDir,
      requestTimeoutMs: o.requestTimeoutMs,
      label: 'candidate: latency',
    });
    for (const key of [o.current.apiKey, o.candidate.apiKey]) if (key) assertNoKey(o.reportDir, key);
    if (run.exit === 3 || !run.records) return notCarriedOut(run.reason ?? 'the paired paging run was not carried out');
    return judgePaired(run.records, { profile: o.profile, minEffect: o.minEffect, alpha: o.alpha, seed: o.seed, reports });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
