// The processor Artillery loads into each of its workers (config.processor of the script that
// load/artillery/script.ts writes): one function, `arrive`, run once per arrival. It picks the
// profile's job for this arrival in proportion to the scenarios' rates at this moment (Artillery has
// one arrival process per test; the profile's scenarios each have a rate of their own), runs it, and
// appends what the arrival recorded (load/lib/runtime.ts: microsecond durations, checks, counters) as
// one JSON line to this worker's file in LOAD_SAMPLES_DIR, which the command merges exactly; it also
// gives each timed request, check and unexpected answer to Artillery as its own metrics
// (load/artillery/metrics.ts), so that Artillery's reports and plugins carry them. With
// LOAD_ARTILLERY_COUNTERS=1 (the cloud runs of npm run load:cloud, whose workers' files stay in their
// containers) it gives the same records to Artillery as counters instead (load/artillery/counters.ts).
// A sequence scenario (one user running its job N times, e.g. the export walk) is run once per test:
// by the first arrival that takes its lock file in LOAD_DATA_DIR. Iterations are numbered across every
// worker on this machine (each number claimed as a file), so that a job's budget (metrics created,
// rules added) holds for the whole run, not per worker.
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import { AS_COUNTERS, CLAIMS_DIR, DATA_DIR, RUNNER, SAMPLES_DIR, SCRIPT } from '../lib/env.ts';
import type { Profile } from '../lib/profile.ts';
import type { ProfileScenario } from '../lib/profiles.ts';
import { count, oneArrival, takeRecords } from '../lib/runtime.ts';
import { toCounters } from './counters.ts';
import { ArrivalFailed, type ArtilleryEvents, type ByEndpoint, emitMetrics, failureOf, GENERATOR_BUSY } from './metrics.ts';

/** The rate of `s` (arrivals/s) `t` seconds after the start; 0 when it is over. */
export function rateAt(s: ProfileScenario, t: number): number {
  if (s.kind === 'constant') return t < s.seconds ? s.rate : 0;
  if (s.kind === 'sequence') return 0;
  // Four steps: x1 for the first, then linear ramps x1->x2, x2->x4, x4->x8 (as a ramping arrival rate's stages).
  const k = Math.floor(t / s.stepSeconds);
  if (k >= 4) return 0;
  const from = [1, 1, 2, 4][k];
  const to = [1, 2, 4, 8][k];
  return s.rate * (from + ((to - from) * (t - k * s.stepSeconds)) / s.stepSeconds);
}

/**
 * The scenario the next arrival runs: each scenario earns its current rate as credit at every arrival,
 * the richest is picked and pays the total (smooth weighted round robin): the mix follows the rates
 * exactly, in a fixed order, not by chance.
 */
export function picker(scenarios: Record<string, ProfileScenario>): (t: number) => string | undefined {
  const credit: Record<string, number> = {};
  return (t) => {
    let total = 0;
    let best: string | undefined;
    for (const [name, s] of Object.entries(scenarios)) {
      const r = rateAt(s, t);
      if (r <= 0) continue;
      credit[name] = (credit[name] ?? 0) + r;
      total += r;
      if (best === undefined || credit[name] > credit[best]) best = name;
    }
    if (best !== undefined) credit[best] -= total;
    return best;
  };
}

interface Loaded {
  profile: Profile;
  setup: unknown;
  pick: (t: number) => string | undefined;
  /**
   * The run's shape was given as Artillery phases (--config, --overrides): the phases say when
   * arrivals come, and the profile's scenarios only which job each runs, by their rates at the start.
   */
  mixOnly: boolean;
  /** The apdex threshold T (ms) of a shape that loads Artillery's apdex plugin: each request counted for it. */
  apdexMs?: number;
  /** A shape that loads Artillery's metrics-by-endpoint plugin: each request counted under its names. */
  byEndpoint?: ByEndpoint;
  /** Each scenario's block of iteration numbers this worker holds: the next to use and the end (claimIteration). */
  blocks: Record<string, { next: number; end: number }>;
  startedAt: number;
  file: string;
}

let loaded: Promise<Loaded> | undefined;
const jobErrors = 'load_job_errors';
let printedErrors = 0;

/** What a shape given as data asks of the processor (load/artillery/run.ts writes it beside the setup's answer). */
function shapeOf(): { mixOnly: boolean; apdexMs?: number; byEndpoint?: ByEndpoint } {
  const file = join(DATA_DIR, `shape-${SCRIPT}.json`);
  if (!existsSync(file)) return { mixOnly: false };
  const shape = JSON.parse(readFileSync(file, 'utf8')) as { phases?: unknown[]; apdexMs?: number; byEndpoint?: ByEndpoint };
  return {
    mixOnly: Boolean(shape.phases),
    ...(shape.apdexMs === undefined ? {} : { apdexMs: shape.apdexMs }),
    ...(shape.byEndpoint === undefined ? {} : { byEndpoint: shape.byEndpoint }),
  };
}

async function load(): Promise<Loaded> {
  // Literal paths, so that Artillery's bundler takes both profiles in.
  const profile = SCRIPT === 'paging' ? (await import('../paging.ts')).paging : SCRIPT === 'mutation' ? (await import('../mutation.ts')).mutation : undefined;
  if (!profile) throw new Error(`LOAD_SCRIPT must be paging or mutation, got ${JSON.stringify(SCRIPT)}`);
  const setup = JSON.parse(readFileSync(join(DATA_DIR, `setup-${SCRIPT}.json`), 'utf8')) as unknown;
  if (!AS_COUNTERS) mkdirSync(SAMPLES_DIR, { recursive: true });
  return {
    profile: profile as Profile,
    setup,
    pick: picker(profile.scenarios),
    ...shapeOf(),
    blocks: {},
    startedAt: Date.now(),
    file: join(SAMPLES_DIR, `${process.pid}-${threadId}.ndjson`),
  };
}

/** True for the first caller of the whole test (every worker, every runner on this machine). */
function firstToTake(name: string): boolean {
  try {
    mkdirSync(CLAIMS_DIR, { recursive: true });
    closeSync(openSync(join(CLAIMS_DIR, `${name}.lock`), 'wx'));
    return true;
  } catch {
    return false;
  }
}

/** Iteration numbers a worker claims at once: one claim file per this many arrivals, not one per arrival. */
export const CLAIM_BLOCK = 16;

/**
 * The next iteration number of `scenario` in the whole test: the next of the block of CLAIM_BLOCK numbers
 * this worker holds, a new block claimed (the first block number whose claim file this worker creates)
 * when it has used its own. Numbers stay unique in the whole run, so a budget counted in them holds.
 */
function claimIteration(l: Loaded, scenario: string): number {
  const held = l.blocks[scenario];
  if (held && held.next < held.end) return held.next++;
  const dir = join(CLAIMS_DIR, `iterations-${SCRIPT}-${scenario}`);
  if (!held) mkdirSync(dir, { recursive: true });
  for (let b = held ? held.end / CLAIM_BLOCK : 0; ; b++) {
    try {
      closeSync(openSync(join(dir, String(b)), 'wx'));
      l.blocks[scenario] = { next: b * CLAIM_BLOCK + 1, end: (b + 1) * CLAIM_BLOCK };
      return b * CLAIM_BLOCK;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

async function runJob(l: Loaded, scenario: string, exec: string, iteration: number): Promise<void> {
  const job = l.profile.jobs[exec];
  try {
    if (!job) throw new Error(`the profile has no job ${exec}`);
    await job(l.setup, iteration);
  } catch (err) {
    count(jobErrors);
    if (printedErrors++ < 10) console.error(`load: ${SCRIPT}: ${scenario} iteration ${iteration} stopped: ${(err as Error).message.split('\n')[0]}`);
  }
}

async function runSequences(l: Loaded): Promise<void> {
  for (const [name, s] of Object.entries(l.profile.scenarios)) {
    if (s.kind !== 'sequence' || !firstToTake(`sequence-${SCRIPT}-${name}`)) continue;
    for (let i = 0; i < s.iterations; i++) await runJob(l, name, s.exec, i);
  }
}

// Loaded as Artillery loads this module, while its workers wait for the phases to start: the first
// arrival would otherwise hold the worker's event loop with the profile's loading, and the arrivals due
// meanwhile would fire late.
if (SCRIPT) {
  loaded = load();
  // A failure is the first arrival's to report.
  loaded.catch(() => undefined);
}

// The arrivals' records, written to the worker's file at most about once a second while arrivals overlap,
// and whenever the last arrival under way ends: Artillery's launcher stops a worker without waiting for
// it (a message, then its own exit), so nothing may wait for the worker's end; the rest on its exit.
let pending: string[] = [];
let underWay = 0;
let pendingFile = '';
let pendingSince = 0;
function flush(): void {
  if (pending.length === 0) return;
  const lines = pending.join('');
  pending = [];
  appendFileSync(pendingFile, lines);
}
process.on('exit', flush);
function keep(file: string, records: unknown): void {
  pendingFile = file;
  if (pending.length === 0) pendingSince = Date.now();
  pending.push(`${JSON.stringify(records)}\n`);
  if (underWay === 0 || Date.now() - pendingSince >= 1000 || pending.length >= 1000) flush();
}

let sequencesStarted = false;

// This worker's event loop, sampled at most once a second: the share of the time it was busy. A
// worker near 100% fires its arrivals late and times its requests late (the wait for the loop counts
// in the duration), so the run says so (load/artillery/delivery.ts).
let busySince = performance.eventLoopUtilization();
let busySampledAt = Date.now();
function sampleBusy(events: ArtilleryEvents): void {
  const now = Date.now();
  if (now - busySampledAt < 1000) return;
  const elu = performance.eventLoopUtilization(busySince);
  busySince = performance.eventLoopUtilization();
  busySampledAt = now;
  events.emit('histogram', GENERATOR_BUSY, Math.round(elu.utilization * 1000) / 10);
}

/** Artillery's function step: one arrival. */
export async function arrive(_context: unknown, events?: ArtilleryEvents): Promise<void> {
  // When Artillery fired this arrival, before any wait of the worker's own (its first arrival loads the profile).
  const arrivedAt = Date.now();
  underWay++;
  loaded ??= load();
  const l = await loaded;
  const began = Date.now();
  const work: Promise<void>[] = [];
  if (!sequencesStarted) {
    sequencesStarted = true;
    work.push(runSequences(l));
  }
  const name = l.pick(l.mixOnly ? 0 : (Date.now() - l.startedAt) / 1000);
  if (name !== undefined) {
    const s = l.profile.scenarios[name];
    const i = claimIteration(l, name);
    work.push(runJob(l, name, s.exec, i));
  }
  await Promise.all(work);
  underWay--;
  const records = takeRecords();
  records.span = [began, Date.now()];
  records.arrivals = { [RUNNER]: oneArrival(arrivedAt) };
  if (events) {
    emitMetrics(events, records, { apdexMs: l.apdexMs, byEndpoint: l.byEndpoint });
    sampleBusy(events);
  }
  if (AS_COUNTERS && events) for (const [name, n] of toCounters(records)) events.emit('counter', name, n);
  else keep(l.file, records);
  // A request that failed (no answer, the network's, not of the status expected) fails the virtual user, as
  // Artillery's HTTP engine fails one: vusers.failed and errors.<code>, which its ensure.maxErrorRate reads.
  const failure = events ? failureOf(records) : undefined;
  if (failure !== undefined) throw new ArrivalFailed(failure);
}
