// The files of runners copied out of their pods (a k6-operator TestRun written by `npm run
// load:testrun`: each runner pod leaves summary.json and its k6 CSV output, requests.csv.gz, in a
// folder of its own), read for the merge. A runner's summary has no histograms of its own there (the
// pod runs k6 alone, nothing adds them after it exits), so they are read from the CSV beside it:
// with them the merge is exact and the merged run is judged by the statistical rule.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../../core/config.ts';
import { type RunSummary, readRunSummary } from '../../core/formats.ts';
import { samplesOf } from './run-samples.ts';
import { readK6Samples } from './samples.ts';
import { loadTarget } from './target.ts';

/** The names a runner's CSV output may have beside its summary.json. */
export const RUNNER_CSV = ['requests.csv.gz', 'requests.csv'];

/** A runner's summary, given as its summary.json or its folder, with its request-duration histograms when it or its CSV output keeps them. */
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
  // k6 alone writes the base URL it loaded; what a run of load:* adds after k6 exits is the target's kind and origin.
  if (typeof summary.target === 'string') {
    try {
      summary.target = loadTarget(summary.target);
    } catch {
      delete summary.target;
    }
  }
  try {
    if (samplesOf(summary, file)) return summary;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const csv = RUNNER_CSV.map((name) => join(dirname(file), name)).find((f) => existsSync(f));
  if (!csv) return summary;
  try {
    return { ...summary, samples: await readK6Samples(csv) };
  } catch (err) {
    throw new ConfigError(`${csv}: ${(err as Error).message.split('\n')[0]}`);
  }
}
