// After the runners of one test have stopped: each runner's summary.json gets what a single run's
// gets (the target it measured, its request-duration histograms from its CSV output), then they are
// merged into the run's own summary.json (load/compare/merge.ts), which the verdict, the compare,
// baseline:update and the history read as they read a single run's. The runners' own files stay in
// `runners/<i>/` beside it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ConfigError } from '../../core/config.ts';
import { type LoadTarget, type RunSummary, readRunSummary, writeRunSummary } from '../../core/formats.ts';
import { mergedExit, mergeSummaries } from '../compare/merge.ts';
import { attachSamples, csvOutput, formatJson } from '../compare/run-samples.ts';
import { attachTarget } from '../compare/target.ts';
import { combineCsv } from './outputs.ts';
import type { RunnerResult } from './run.ts';

export interface MergedRun {
  summary: RunSummary;
  /** The exit code k6 would have given the whole run (mergedExit), for the verdict. */
  k6Exit: number;
}

/**
 * Merges the runners' summaries into `summaryFile`. `csv` is the CSV file the caller asked k6 for
 * (verify's time series), which gets every runner's rows; the runners' own CSV files are removed
 * once their histograms are kept. A runner without a summary is a run that could not be carried out.
 */
export async function mergeRunners(runners: RunnerResult[], summaryFile: string, target: LoadTarget, csv?: string): Promise<MergedRun> {
  const summaries: RunSummary[] = [];
  const csvParts: string[] = [];
  for (const r of runners) {
    const file = `${r.dir}/summary.json`;
    if (!existsSync(file)) throw new ConfigError(`runner ${r.index} of ${runners.length} (segment ${r.segment}) wrote no summary.json (k6 exit ${r.exit})`);
    attachTarget(file, target);
    const rows = csvOutput(r.k6Out);
    if (rows && existsSync(rows)) {
      // Without them the merge falls back to the mean of the runners' percentiles and says so.
      await attachSamples(file, rows).catch((err: Error) => console.error(`runner ${r.index}: request samples not kept: ${err.message.split('\n')[0]}`));
      csvParts.push(rows);
    }
    const s = readRunSummary(file);
    if (s) summaries.push(s);
  }
  const summary = mergeSummaries(summaries);
  writeRunSummary(summaryFile, summary);
  if (csv) await combineCsv(csvParts, csv);
  for (const part of csvParts) rmSync(part, { force: true });
  return {
    summary,
    k6Exit: mergedExit(
      summary,
      runners.map((r) => r.exit),
    ),
  };
}
