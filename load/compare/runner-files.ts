// The summaries of runs to merge (`baseline:compare --merge`): runs of npm run load:* on several
// machines, or of npm run load:cloud --report, each a summary.json or its folder. Each keeps its
// request-duration histograms, so the merge is exact and the merged run is judged by the statistical rule.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../core/config.ts';
import { type RunSummary, readRunSummary } from '../../core/formats.ts';
import { samplesOf } from './run-samples.ts';
import { measuredAgainst } from './measured-against.ts';

/** A runner's summary, given as its summary.json or its folder (its histograms checked when it keeps them). */
export async function readRunnerSummary(path: string): Promise<RunSummary> {
  const given = resolve(path);
  if (!existsSync(given)) throw new ConfigError(`${path}: no such file or folder`);
  const file = statSync(given).isDirectory() ? join(given, 'summary.json') : given;
  let summary: RunSummary;
  try {
    const read = readRunSummary(file);
    if (!read) throw new Error('no such file');
    summary = read;
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof summary !== 'object' || summary === null || typeof summary.script !== 'string' || typeof summary.endpoints !== 'object')
    throw new ConfigError(`${file} is not a load summary (written by load/lib/summary.ts)`);
  // A summary may hold the base URL it loaded; what a run of load:* adds is the target's kind and origin.
  if (typeof summary.target === 'string') {
    try {
      summary.target = measuredAgainst(summary.target);
    } catch {
      delete summary.target;
    }
  }
  try {
    samplesOf(summary, file);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return summary;
}
