// What the report is made of: everything a run left in reports/, read once, each part optional (a
// run that stopped early, or `npm run report` after the conformance suite alone, still gets a page).
// Shapes are those the producers write: conformance.json and observations.json (README "Reports",
// contracts/support/reporter.ts), load/compare.json and load/<script>/summary.json (docs/load.md),
// load/<script>/timeseries.json (./timeseries.ts) and verify.json (below).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../lib/config.ts';
import type { CompareResult as Compare } from '../baseline.ts';
import type { TimeSeries } from './timeseries.ts';

export type StageStatus = 'pass' | 'fail' | 'regression' | 'error' | 'skipped';

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
  options: { strict: boolean; profile: string; skipLoad: boolean; observationsBaseline: string | null; grep: string | null };
  versions: Record<string, string>;
  stages: StageResult[];
}

export type ClauseStatus = 'pass' | 'fail' | 'warn' | 'observed' | 'uncovered';
export type Level = 'stated' | 'inferred' | 'open';

export interface Exchange { method: string; path: string; requestHeaders?: Record<string, string>; requestBody?: unknown; status: number; responseBody?: unknown; curl: string }
export interface Clause {
  id: string; section: string | null; level: Level; status: ClauseStatus; text: string | null; tests: string[];
  evidence: { test: string; level: Level; error?: string; exchanges: Exchange[] }[];
  observations: { test: string; aspect: string; value: unknown }[];
  uncovered?: string[];
}
export interface Failure { test: string; file: string; level: Level; clauses: string[]; counts: boolean; error?: string; exchanges: Exchange[] }
export interface Drift { clause: string; aspect: string; before: unknown; now: unknown }
/** observations.json: per open clause, the value seen for each aspect and one exchange per aspect. */
export type Observations = Record<string, { value: Record<string, unknown>; evidence: { aspect: string; test: string; method: string; path: string; status: number; curl: string }[] }>;
export interface Conformance {
  summary: {
    verdict: 'pass' | 'fail'; strict: boolean; target: string | null; manifest: string | null; startedAt: string; durationMs: number;
    tests: { total: number; passed: number; failed: number; failedCounting: number };
    clauses: Record<'total' | ClauseStatus, number>;
    byLevel: Record<Level, Record<ClauseStatus, number>>;
    drift: number;
  };
  clauses: Clause[];
  failures: Failure[];
  drift: Drift[];
}

// reports/load/compare.json is written by scripts/baseline.ts: its types are the one description of it.
export type { EndpointRow, ProfileResult as ProfileCompare, CompareResult as Compare } from '../baseline.ts';

export interface LoadSummary {
  script: string; profile: string; target?: string; finishedAt?: string; durationMs: number; thresholdsOk?: boolean;
  checks?: { passes: number; fails: number };
  endpoints: Record<string, { p50: number; p95: number; p99: number; count: number; rps: number; errorRate: number }>;
  thresholds?: { metric: string; threshold: string; ok: boolean }[];
}

export interface LoadRun { script: string; summary: LoadSummary | null; series: TimeSeries | null; dashboard: string | null; junit: string | null }

export interface ReportInputs {
  reportsDir: string;
  verify: VerifyRun | null;
  conformance: Conformance | null;
  observations: Observations | null;
  compare: Compare | null;
  load: LoadRun[];
  /** Relative links that exist next to index.html. */
  links: { playwright: string | null; conformance: string | null; junit: string | null; observations: string | null; compare: string | null };
  /** Spec section numbers to the operationIds they describe (from contracts/schemas/index.json), for labels. */
  sectionNames: Record<string, string>;
}

function readJson<T>(file: string): T | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
}

const SCRIPTS = ['paging', 'mutation'];

export function readInputs(reportsDir: string, contractIndex = join(ROOT, 'contracts/schemas/index.json')): ReportInputs {
  const rel = (p: string) => (existsSync(join(reportsDir, p)) ? p : null);
  const load = SCRIPTS.map((script) => ({
    script,
    summary: readJson<LoadSummary>(join(reportsDir, 'load', script, 'summary.json')),
    series: readJson<TimeSeries>(join(reportsDir, 'load', script, 'timeseries.json')),
    dashboard: rel(`load/${script}/dashboard.html`),
    junit: rel(`load/${script}/junit.xml`),
  })).filter((l) => l.summary || l.series || l.dashboard);
  const index = readJson<{ operations: Record<string, { section: string }> }>(contractIndex);
  const sectionNames: Record<string, string> = {};
  for (const [op, o] of Object.entries(index?.operations ?? {})) sectionNames[o.section] = sectionNames[o.section] ? `${sectionNames[o.section]}, ${op}` : op;
  return {
    reportsDir,
    verify: readJson<VerifyRun>(join(reportsDir, 'verify.json')),
    conformance: readJson<Conformance>(join(reportsDir, 'conformance.json')),
    observations: readJson<Observations>(join(reportsDir, 'observations.json')),
    compare: readJson<Compare>(join(reportsDir, 'load', 'compare.json')),
    load,
    links: {
      playwright: rel('playwright-report/index.html'),
      conformance: rel('conformance.json'),
      junit: rel('junit.xml'),
      observations: rel('observations.json'),
      compare: rel('load/compare.json'),
    },
    sectionNames,
  };
}
