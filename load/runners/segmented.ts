// `load:* --runners N` for one script: the runners started, released and awaited (run.ts), then
// merged into the run's summary.json (merge-runners.ts). What load:* does around a single k6 (the
// data, the reference server, the verdict, the key scan) it does around this the same way.
import { join } from 'node:path';
import { k6OutFromEnv } from '../../core/config.ts';
import type { LoadTarget } from '../../core/formats.ts';
import { csvOutput } from '../compare/run-samples.ts';
import { mergeRunners } from './merge-runners.ts';
import { runRunners, testBoundMs } from './run.ts';

export interface SegmentedRun {
  k6: string;
  /** The k6 script's path. */
  script: string;
  /** For progress lines: `load: paging`. */
  label: string;
  runners: number;
  /** The environment one k6 of the whole test would get. */
  env: NodeJS.ProcessEnv;
  reportDir: string;
  cwd: string;
  args: string[];
  target: LoadTarget;
}

/** Resolves to the exit code k6 would have given the whole test (merge.ts mergedExit), its merged summary written. */
export async function runSegmented(o: SegmentedRun): Promise<number> {
  // The bound past which a runner that has not stopped is stopped: the test's own length, from k6.
  const bound = (await testBoundMs(o.k6, o.script, o.env, o.cwd)) ?? 30 * 60_000;
  console.log(`${o.label}: ${o.runners} runners on this machine: the k6 operator's mechanism against one server, not more capacity`);
  const results = await runRunners({ ...o, stopWithinMs: bound });
  // The CSV file the caller asked k6 for (verify's time series) gets every runner's rows.
  const merged = await mergeRunners(results, join(o.reportDir, 'summary.json'), o.target, csvOutput(k6OutFromEnv()) ?? undefined);
  const total = Object.values(merged.summary.endpoints).reduce((n, e) => n + e.count, 0);
  console.log(
    `${o.label}: merged ${o.runners} runners (exit ${results.map((r) => r.exit).join(', ')}): ${total} requests; each runner's files in ${join(o.reportDir, 'runners')}`,
  );
  return merged.k6Exit;
}
