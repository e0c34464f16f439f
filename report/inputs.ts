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
import type { TimeSeries } from './timeseries.ts';
import {
  LOAD_SCRIPTS,
  RUN_FILES,
  readCandidate,
  readClauseProofFile,
  readCompareFile,
  readConformance,
  readLedgerFile,
  readObservationsFile,
  readRunSummary,
  readVerify,
  type CandidateReport,
  type ClauseProof,
  type CompareResult,
  type ConformanceReport,
  type Ledger,
  type Observations,
  type RunSummary,
  type VerifyRun,
} from '../core/formats.ts';

// Every file here has its one type and reader in core/formats.ts.
export type { StageResult, StageStatus, VerifyRun } from '../core/formats.ts';

export interface LoadRun {
  script: string;
  summary: RunSummary | null;
  series: TimeSeries | null;
  /** Artillery's own JSON report of the run, linked beside the summary. */
  dashboard: string | null;
  junit: string | null;
}

export interface ReportInputs {
  reportsDir: string;
  verify: VerifyRun | null;
  conformance: ConformanceReport | null;
  observations: Observations | null;
  compare: CompareResult | null;
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
  /** `npm run candidate`'s comparison of two deployments, when the folder holds one. */
  candidate: CandidateReport | null;
}

/** Where the proof map is committed (docs/proof.md says how it is made). */
export const COMMITTED_PROOF = join(ROOT, 'docs', 'clause-proof.json');

/** timeseries.json: the report's own file, written by ./timeseries.ts from the load run's request rows. */
function readTimeSeries(file: string): TimeSeries | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as TimeSeries;
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
    [join(reportsDir, RUN_FILES.clauseProof), RUN_FILES.clauseProof],
    [committed, 'docs/clause-proof.json'],
  ]) {
    const map = readClauseProofFile(file);
    if (map) return { map, file: shown };
  }
  return null;
}

export function readInputs(reportsDir: string, historyFile = join(reportsDir, 'history.sqlite'), committedProof = COMMITTED_PROOF): ReportInputs {
  const rel = (p: string) => (existsSync(join(reportsDir, p)) ? p : null);
  const load = LOAD_SCRIPTS.map((script) => ({
    script,
    summary: readRunSummary(join(reportsDir, RUN_FILES.summary(script))) ?? null,
    series: readTimeSeries(join(reportsDir, 'load', script, 'timeseries.json')),
    dashboard: rel(`load/${script}/artillery.json`),
    junit: rel(`load/${script}/junit.xml`),
  })).filter((l) => l.summary || l.series || l.dashboard);
  const sectionNames: Record<string, string> = {};
  for (const [op, o] of Object.entries(OPERATIONS)) sectionNames[o.section] = sectionNames[o.section] ? `${sectionNames[o.section]}, ${op}` : op;
  return {
    reportsDir,
    verify: readVerify(reportsDir) ?? null,
    conformance: readConformance(reportsDir) ?? null,
    observations: readObservationsFile(join(reportsDir, RUN_FILES.observations)) ?? null,
    compare: readCompareFile(join(reportsDir, RUN_FILES.compare)) ?? null,
    ledger: readLedgerFile(reportsDir) ?? null,
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
    candidate: readCandidate(reportsDir) ?? null,
  };
}
