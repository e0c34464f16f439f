// The run history: one row per `npm run verify` run in a SQLite file (--history, CONSOLE_HISTORY,
// default reports/history.sqlite), so that a slow drift over nights can be seen and dated (the
// report's trend section, report/trend.ts). In the kernel because verify (scripts/) writes it and the
// report page (report/) reads it.
//
// Two tables: `runs`, one row per run (its verdict and clause counts), and `load`, one row per
// endpoint of a run's load profiles (p50/p95/p99, count, the median of its request samples, the
// calibration scale). The schema's version is SQLite's user_version: a file written by a newer
// version is left alone (an older program cannot know what its rows mean).
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database, { type Db } from './sqlite.ts';
import { coverageOf, type ConformanceVerdict, type FootprintTotals, type Level, type StatedCoverage, type Status, type ManifestState } from './formats.ts';

/** 2: each run's stated coverage and footprint (what it wrote to the target), so a drop or a growth shows over nights. */
export const HISTORY_SCHEMA = 2;

export interface HistoryEndpoint {
  script: string;
  endpoint: string;
  p50: number;
  p95: number;
  p99: number;
  count: number;
  /** The median of the endpoint's request samples (summary.json `samples`), when the run kept them. */
  median: number | null;
  /** The calibration scale of the script's compare (this machine against the baseline's), when compared. */
  scale: number | null;
}

export interface HistoryRun {
  /** The row's id, set when read back. */
  id?: number;
  startedAt: string;
  /** Which target the run was against (reference, or its URL, and the manifest): trends compare like with like. */
  target: string;
  /** The suite's version and commit as verify.json's versions say it, e.g. `0.1.0 (3afac32)`. */
  version: string | null;
  exitCode: number;
  /** The conformance verdict; null when the suite did not report. */
  verdict: ConformanceVerdict | null;
  strict: boolean;
  /** The load profile; null when load did not run. */
  profile: string | null;
  /** A --grep run or one stopped early: its clause counts cover part of the suite. */
  partial: boolean;
  /** Clause counts by level and status; a row written before a status existed lacks it (read as 0). */
  clauses: Record<Level, Partial<Record<Status, number>>> | null;
  /** What became of the stated clauses; null in rows written before schema 2, or when the suite did not report. */
  coverage?: StatedCoverage | null;
  /** What the run wrote to the target (core/ledger.ts), and the manifest's resources as its last answers showed them. */
  footprint?: { totals: FootprintTotals; state: ManifestState } | null;
  endpoints: HistoryEndpoint[];
}

/** The share of stated clauses in scope that the run judged (core/formats.ts, coverageOf); null when not known. */
export function coverageRate(run: Pick<HistoryRun, 'coverage'>): number | null {
  return run.coverage ? coverageOf(run.coverage) : null;
}

/**
 * How the history names a target: the reference (any server verify started) or the URL, and the
 * manifest, so that trends, drift and a manifest's consumption compare like with like.
 */
export const historyTarget = (t: { reference: boolean; url: string }, manifest: string) => `${t.reference ? 'reference' : t.url} ${manifest}`;

/** The share of judged clauses (pass, fail, warn) that passed; null when none were judged. */
export function passRate(clauses: HistoryRun['clauses']): number | null {
  if (!clauses) return null;
  let pass = 0;
  let judged = 0;
  for (const row of Object.values(clauses)) {
    pass += row.pass ?? 0;
    judged += (row.pass ?? 0) + (row.fail ?? 0) + (row.warn ?? 0);
  }
  return judged ? pass / judged : null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  target TEXT NOT NULL,
  version TEXT,
  exit_code INTEGER NOT NULL,
  verdict TEXT,
  strict INTEGER NOT NULL,
  profile TEXT,
  partial INTEGER NOT NULL,
  clauses TEXT,
  pass_rate REAL,
  coverage TEXT,
  coverage_rate REAL,
  footprint TEXT
);
CREATE TABLE IF NOT EXISTS load (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  script TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  p50 REAL NOT NULL,
  p95 REAL NOT NULL,
  p99 REAL NOT NULL,
  count INTEGER NOT NULL,
  median REAL,
  scale REAL,
  PRIMARY KEY (run_id, script, endpoint)
);
CREATE INDEX IF NOT EXISTS runs_target ON runs (target, started_at);
`;

/** Opens (and creates) the file at the schema this code writes; throws when it is another's. */
function open(file: string, readonly: boolean): Db {
  if (!readonly) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, readonly ? { readonly: true, fileMustExist: true } : {});
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > HISTORY_SCHEMA) throw new Error(`${file} has history schema ${version}, newer than this code's ${HISTORY_SCHEMA}`);
    if (version < HISTORY_SCHEMA && !readonly) {
      db.transaction(() => {
        // Schema 1 had no coverage or footprint: its rows keep null there.
        if (version === 1) for (const column of ['coverage TEXT', 'coverage_rate REAL', 'footprint TEXT']) db.exec(`ALTER TABLE runs ADD COLUMN ${column}`);
        db.exec(SCHEMA);
        db.pragma(`user_version = ${HISTORY_SCHEMA}`);
      })();
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Appends one run (its row and its endpoints, in one transaction); returns its id. */
export function appendRun(file: string, run: HistoryRun): number {
  const db = open(file, false);
  try {
    const insertRun = db.prepare(
      'INSERT INTO runs (started_at, target, version, exit_code, verdict, strict, profile, partial, clauses, pass_rate, coverage, coverage_rate, footprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertLoad = db.prepare('INSERT INTO load (run_id, script, endpoint, p50, p95, p99, count, median, scale) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    return db.transaction(() => {
      const id = Number(
        insertRun.run(
          run.startedAt,
          run.target,
          run.version,
          run.exitCode,
          run.verdict,
          run.strict ? 1 : 0,
          run.profile,
          run.partial ? 1 : 0,
          run.clauses ? JSON.stringify(run.clauses) : null,
          passRate(run.clauses),
          run.coverage ? JSON.stringify(run.coverage) : null,
          coverageRate(run),
          run.footprint ? JSON.stringify(run.footprint) : null,
        ).lastInsertRowid,
      );
      for (const e of run.endpoints) insertLoad.run(id, e.script, e.endpoint, e.p50, e.p95, e.p99, e.count, e.median, e.scale);
      return id;
    })();
  } finally {
    db.close();
  }
}

interface RunRow {
  id: number;
  started_at: string;
  target: string;
  version: string | null;
  exit_code: number;
  verdict: HistoryRun['verdict'];
  strict: number;
  profile: string | null;
  partial: number;
  clauses: string | null;
  coverage?: string | null;
  footprint?: string | null;
}

/** The runs against `target` (all targets when undefined), oldest first; at most the last `limit`. */
export function readRuns(file: string, opts: { target?: string; limit?: number } = {}): HistoryRun[] {
  if (!existsSync(file)) return [];
  const db = open(file, true);
  try {
    if ((db.pragma('user_version', { simple: true }) as number) === 0) return [];
    const where = opts.target === undefined ? '' : 'WHERE target = @target';
    const rows = db
      .prepare(`SELECT * FROM (SELECT * FROM runs ${where} ORDER BY started_at DESC, id DESC LIMIT @limit) ORDER BY started_at, id`)
      .all({ limit: opts.limit ?? -1, ...(opts.target === undefined ? {} : { target: opts.target }) }) as RunRow[];
    const load = db.prepare('SELECT script, endpoint, p50, p95, p99, count, median, scale FROM load WHERE run_id = ? ORDER BY script, endpoint');
    return rows.map((r) => ({
      id: r.id,
      startedAt: r.started_at,
      target: r.target,
      version: r.version,
      exitCode: r.exit_code,
      verdict: r.verdict,
      strict: r.strict === 1,
      profile: r.profile,
      partial: r.partial === 1,
      clauses: r.clauses ? JSON.parse(r.clauses) : null,
      coverage: r.coverage ? JSON.parse(r.coverage) : null,
      footprint: r.footprint ? JSON.parse(r.footprint) : null,
      endpoints: load.all(r.id) as HistoryEndpoint[],
    }));
  } finally {
    db.close();
  }
}

/**
 * Appends the run and says so in one line; a failing write (a read-only folder, a file of another
 * schema, a full disk) is a one-line warning, never a failed run: the history serves later runs,
 * this run's verdict does not depend on it. Returns whether it was written.
 */
export function recordRun(file: string, run: HistoryRun, say: (line: string) => void = (l) => console.error(l)): boolean {
  try {
    appendRun(file, run);
    return true;
  } catch (err) {
    say(`warning: run history not written to ${file}: ${(err as Error).message.split('\n')[0]}`);
    return false;
  }
}

// History rows from load summaries: shared by verify's row (report/history-record.ts) and a merged
// TestRun's (load/command/merge-runs.ts).

/** A duration histogram of summary.json's `samples` (docs/load.md, "Request samples"). */
interface Histogram {
  growth: number;
  start: number;
  counts: number[];
}

/** The median of a histogram, read as its bucket's geometric middle (within 1%, as the compare reads it). */
export function histogramMedian(h: Histogram | undefined): number | null {
  const total = h?.counts.reduce((n, c) => n + c, 0) ?? 0;
  if (!h || total === 0) return null;
  let seen = 0;
  for (let j = 0; j < h.counts.length; j++) {
    seen += h.counts[j];
    if (seen * 2 >= total) return h.growth ** (h.start + j + 0.5);
  }
  return null;
}

/** The history rows of a run's load profiles: per endpoint its figures, the median of its samples, the compare's calibration scale. */
export function endpointRows(
  runs: {
    script: string;
    summary: { endpoints?: Record<string, { p50: number; p95: number; p99: number; count: number }>; samples?: unknown } | null;
    scale: number | null;
  }[],
): HistoryEndpoint[] {
  const endpoints: HistoryEndpoint[] = [];
  for (const run of runs) {
    const samples = (run.summary as { samples?: { endpoints?: Record<string, Histogram> } } | null)?.samples?.endpoints ?? {};
    for (const [endpoint, e] of Object.entries(run.summary?.endpoints ?? {}))
      endpoints.push({
        script: run.script,
        endpoint,
        p50: e.p50,
        p95: e.p95,
        p99: e.p99,
        count: e.count,
        median: histogramMedian(samples[endpoint]),
        scale: run.scale,
      });
  }
  return endpoints;
}

/**
 * A load run without a conformance run as a history row: the merged runners of a TestRun (compare
 * --merge --history), against `target` (`<origin> <manifest>`, as verify names it, so the trends of
 * both kinds of run against one target line up). Its verdict and clause counts are null: no suite ran.
 */
export function loadHistoryRun(o: {
  startedAt: string;
  target: string;
  exitCode: number;
  strict: boolean;
  profile: string;
  runs: {
    script: string;
    summary: { endpoints?: Record<string, { p50: number; p95: number; p99: number; count: number }>; samples?: unknown };
    scale: number | null;
  }[];
}): HistoryRun {
  return {
    startedAt: o.startedAt,
    target: o.target,
    version: null,
    exitCode: o.exitCode,
    verdict: null,
    strict: o.strict,
    profile: o.profile,
    partial: false,
    clauses: null,
    endpoints: endpointRows(o.runs),
  };
}
