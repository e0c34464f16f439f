// config.ensure judged on the whole run when several Artillery processes share it (--runners N): each
// runner's Artillery would judge only its own share (a count limit holds in each half of a run that
// breaks it; a p95 of each half is not the p95 of the whole). So the runners' ensure plugins are left
// out, each runner's progress plugin writes its final report with its histograms as Artillery
// serialises them between its workers (`aggregateFile`, load/artillery/progress-plugin.ts), and here Artillery's own code merges them
// (SSMS.mergeBuckets and pack, as its launcher merges its workers' final reports) and its ensure
// plugin's own code evaluates the limits on the merged report (statsToVars, runChecks): one verdict per
// limit, with Artillery's semantics (filtrex expressions, `thresholds` as `metric < value`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dependencyDir } from '../../core/package.ts';

export interface LimitVerdict {
  check: string;
  strict: boolean;
  ok: boolean;
}

interface Report {
  counters: Record<string, number>;
  histograms: Record<string, unknown>;
  summaries?: Record<string, unknown>;
  rates?: Record<string, unknown>;
}

interface SsmsModule {
  SSMS: { deserializeMetrics(text: string): Report; mergeBuckets(pds: Report[]): Record<string, Report>; pack(pds: Report[]): Report };
  summarizeHistogram(h: unknown): unknown;
}

interface EnsureModule {
  Plugin: {
    statsToVars(data: { report: Report }): Record<string, unknown>;
    runChecks(checks: Record<string, unknown>, vars: Record<string, unknown>): { original: string; strict: boolean; result: unknown }[];
  };
}

const artilleryModule = <T>(path: string): Promise<T> => import(pathToFileURL(join(dependencyDir('artillery'), path)).href) as Promise<T>;

/** What Artillery's apdex plugin gives the ensure plugin (`apdex`, `ranking`), from the merged apdex counters, by its formula. */
function apdexVars(counters: Record<string, number>): Record<string, unknown> {
  const s = counters['apdex.satisfied'] ?? 0;
  const t = counters['apdex.tolerated'] ?? 0;
  const f = counters['apdex.frustrated'] ?? 0;
  if (s + t + f === 0) return {};
  const apdex = (s + t / 2) / (s + t + f);
  const ranking = apdex >= 0.94 ? 'excellent' : apdex >= 0.85 ? 'good' : apdex >= 0.7 ? 'fair' : apdex >= 0.49 ? 'poor' : 'unacceptable';
  return { apdex, ranking };
}

/** The runners' final reports (progress-plugin.ts serializeReport's text) merged as Artillery merges its workers', with the summaries it computes. */
export async function mergeReports(texts: string[]): Promise<Report> {
  const { SSMS, summarizeHistogram } = await artilleryModule<SsmsModule>('dist/lib/core/ssms.js');
  const stats = SSMS.pack(Object.values(SSMS.mergeBuckets(texts.map((t) => SSMS.deserializeMetrics(t)))));
  stats.summaries = Object.fromEntries(Object.entries(stats.histograms).map(([name, h]) => [name, summarizeHistogram(h)]));
  return stats;
}

/** `ensure` (config.ensure) judged by Artillery's ensure plugin on the merged final reports in `files`. */
export async function judgeMerged(ensure: Record<string, unknown>, files: string[]): Promise<LimitVerdict[]> {
  return judgeReport(ensure, await mergeReports(files.map((f) => readFileSync(f, 'utf8'))));
}

/**
 * `ensure` judged by Artillery's ensure plugin on a report's counters, rates and summaries: a merged
 * one, or the aggregate of Artillery's JSON report (`--output`) of a cloud run, which its platform merged.
 */
export async function judgeReport(ensure: Record<string, unknown>, report: Report): Promise<LimitVerdict[]> {
  const { Plugin } = await artilleryModule<EnsureModule>('dist/builtin-packages/artillery-plugin-ensure/dist/plugin.js');
  const vars = {
    ...apdexVars(report.counters),
    ...Plugin.statsToVars({ report: { ...report, rates: report.rates ?? {}, summaries: report.summaries ?? {} } }),
  };
  // runChecks logs through Artillery's global, which exists only inside an Artillery process.
  const g = globalThis as { artillery?: { log?: (...a: unknown[]) => void } };
  const had = g.artillery;
  g.artillery = { ...had, log: () => {} };
  try {
    return Plugin.runChecks(ensure, vars).map((c) => ({ check: c.original, strict: c.strict, ok: c.result === 1 }));
  } finally {
    g.artillery = had;
  }
}
