// What the report is made of: everything a run left in reports/, read once, each part optional (a
// run that stopped early, or `npm run report` after the conformance suite alone, still gets a page).
// Shapes are those the producers write: conformance.json and observations.json (docs/reports.md,
// contracts/support/reporter.ts), load/compare.json and load/<script>/summary.json (docs/load.md),
// load/<script>/timeseries.json (./timeseries.ts) and verify.json (below).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS } from '../contracts/index.ts';
import { ROOT } from '../core/config.ts';
import { readRuns, type HistoryRun } from '../core/history.ts';
import { readLedger } from '../core/ledger.ts';
import type { TimeSeries } from './timeseries.ts';
import {
  LOAD_SCRIPTS,
  type ClauseProof,
  type CompareResult as Compare,
  type ConformanceReport as Conformance,
  type Ledger,
  type Observations,
} from '../core/formats.ts';

export type StageStatus = 'pass' | 'fail' | 'regression' | 'incomplete' | 'error' | 'skipped';

export interface StageResult {
  name: string;
  status: StageStatus;
  /** The stage command's own exit code (null when it did not run). */
  exitCode: number | null;
  seconds: number;
  detail: string;
}

/** reports/verify.json: what `npm run verify` ran, against what, and how each stage ended. */
export interface VerifyRun {
  format: 'console-conformance.verify/1';
  exitCode: number;
  startedAt: string;
  durationMs: number;
  /** The conformance target; with `reference`, a reference server verify started (load ran against fresh ones of its own). */
  target: { url: string; reference: boolean };
  manifest: string;
  options: { strict: boolean; readOnly?: boolean; profile: string; skipLoad: boolean; observationsBaseline: string | null; grep: string | null };
  versions: Record<string, string>;
  stages: StageResult[];
}

// conformance.json and observations.json are written by the suite's reporter: its types are the one description of them.
export type { Status as ClauseStatus, ClauseResult as Clause, FailureResult as Failure, ConformanceReport as Conformance } from '../core/formats.ts';
export type { Exchange } from '../core/formats.ts';
export type { Level } from '../core/formats.ts';
export type { Drift, Observations } from '../core/formats.ts';

// reports/load/compare.json is written by load/compare/baseline.ts: its types are the one description of it.
export type { EndpointRow, ProfileResult as ProfileCompare, CompareResult as Compare } from '../core/formats.ts';

export interface LoadSummary {
  script: string;
  profile: string;
  target?: string;
  finishedAt?: string;
  durationMs: number;
  thresholdsOk?: boolean;
  checks?: { passes: number; fails: number };
  endpoints: Record<string, { p50: number; p95: number; p99: number; count: number; rps: number; errorRate: number }>;
  thresholds?: { metric: string; threshold: string; ok: boolean }[];
}

export interface LoadRun {
  script: string;
  summary: LoadSummary | null;
  series: TimeSeries | null;
  dashboard: string | null;
  junit: string | null;
}

export interface ReportInputs {
  reportsDir: string;
  verify: VerifyRun | null;
  conformance: Conformance | null;
  observations: Observations | null;
  compare: Compare | null;
  /** What the run wrote to the target (core/ledger.ts). */
  ledger: Ledger | null;
  load: LoadRun[];
  /** Relative links that exist next to index.html. */
  links: {
    playwright: string | null;
    conformance: string | null;
    junit: string | null;
    observations: string | null;
    compare: string | null;
    ledger: string | null;
  };
  /** The run history (core/history.ts), oldest first, this run included when verify recorded it; `error` when it could not be read. */
  history: { file: string; runs: HistoryRun[]; error: string | null };
  /** Spec section numbers to the operationIds they describe (from the contract index), for labels. */
  sectionNames: Record<string, string>;
  /**
   * The proof map (`npm run clauses:proof`): which fault shows each clause's check can fail. The one
   * in the reports folder, else the committed one (docs/clause-proof.json); null when there is neither.
   */
  proof: { map: ClauseProof; file: string } | null;
}

/** Where the proof map is committed (docs/proof.md says how it is made). */
export const COMMITTED_PROOF = join(ROOT, 'docs', 'clause-proof.json');

function readJson<T>(file: string): T | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** The history, or why it could not be read: the page is written without its trends then, never refused. */
function readHistory(file: string): ReportInputs['history'] {
  try {
    return { file, runs: readRuns(file), error: null };
  } catch (err) {
    return { file, runs: [], error: (err as Error).message.split('\n')[0] };
  }
}

/** The proof map of the reports folder, else the committed one; a file of another format is not one. */
function readProof(reportsDir: string, committed: string): ReportInputs['proof'] {
  for (const [file, shown] of [
    [join(reportsDir, 'clause-proof.json'), 'clause-proof.json'],
    [committed, 'docs/clause-proof.json'],
  ]) {
    const map = readJson<ClauseProof>(file);
    if (map?.format === 'console-conformance.clause-proof/1') return { map, file: shown };
  }
  return null;
}

export function readInputs(reportsDir: string, historyFile = join(reportsDir, 'history.sqlite'), committedProof = COMMITTED_PROOF): ReportInputs {
  const rel = (p: string) => (existsSync(join(reportsDir, p)) ? p : null);
  const load = LOAD_SCRIPTS.map((script) => ({
    script,
    summary: readJson<LoadSummary>(join(reportsDir, 'load', script, 'summary.json')),
    series: readJson<TimeSeries>(join(reportsDir, 'load', script, 'timeseries.json')),
    dashboard: rel(`load/${script}/dashboard.html`),
    junit: rel(`load/${script}/junit.xml`),
  })).filter((l) => l.summary || l.series || l.dashboard);
  const sectionNames: Record<string, string> = {};
  for (const [op, o] of Object.entries(OPERATIONS)) sectionNames[o.section] = sectionNames[o.section] ? `${sectionNames[o.section]}, ${op}` : op;
  return {
    reportsDir,
    verify: readJson<VerifyRun>(join(reportsDir, 'verify.json')),
    conformance: readJson<Conformance>(join(reportsDir, 'conformance.json')),
    observations: readJson<Observations>(join(reportsDir, 'observations.json')),
    compare: readJson<Compare>(join(reportsDir, 'load', 'compare.json')),
    ledger: readLedger(reportsDir) ?? null,
    load,
    links: {
      playwright: rel('playwright-report/index.html'),
      conformance: rel('conformance.json'),
      junit: rel('junit.xml'),
      observations: rel('observations.json'),
      compare: rel('load/compare.json'),
      ledger: rel('ledger.json'),
    },
    history: readHistory(historyFile),
    sectionNames,
    proof: readProof(reportsDir, committedProof),
  };
}
