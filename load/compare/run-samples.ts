// The duration histograms of a load run, kept in its summary.json under `samples` (and, through
// `baseline:update`, in the baseline): k6's end-of-test summary holds aggregates only, so after k6
// exits they are read from its CSV output and added to the summary it wrote.
import { readRunSummary, writeRunSummary } from '../../core/formats.ts';
import { type DurationHistogram, readK6Samples, type RunSamples } from './samples.ts';

export const SAMPLES_FORMAT: RunSamples['format'] = 'console-conformance.duration-histograms/1';

/**
 * The file of the one CSV output a K6_OUT value names, else null (none, or several). k6 splits
 * K6_OUT at commas into outputs (`json=a.json,csv=b.csv`), and a CSV output is `csv=PATH` or
 * `csv=fileName=PATH` (checked with k6 v1: `csv=file_name=...` is refused).
 */
export function csvOutput(k6Out: string | undefined): string | null {
  const files = (k6Out ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o.startsWith('csv='))
    .map((o) => o.slice(4).replace(/^fileName=/, ''));
  return files.length === 1 && files[0] !== '' && !files[0].includes('=') ? files[0] : null;
}

/** Adds the histograms of k6's CSV output to the summary.json k6 wrote; returns them. */
export async function attachSamples(summaryFile: string, csvFile: string): Promise<RunSamples> {
  const samples = await readK6Samples(csvFile);
  const summary = readRunSummary(summaryFile);
  if (!summary) throw new Error(`no ${summaryFile}`);
  writeRunSummary(summaryFile, { ...summary, samples });
  return samples;
}

export { formatJson } from '../../core/formats.ts';

function isHistogram(h: unknown): h is DurationHistogram {
  if (typeof h !== 'object' || h === null) return false;
  const { growth, start, counts } = h as Record<string, unknown>;
  return typeof growth === 'number' && growth > 1 && Number.isInteger(start) && Array.isArray(counts) && counts.every((c) => Number.isInteger(c) && c >= 0);
}

/**
 * The histograms a summary or baseline carries: null when it has none (written before they were
 * kept), an Error naming the file when they are there but not in the expected shape.
 */
export function samplesOf(summary: object, file: string): RunSamples | null {
  const s = (summary as { samples?: unknown }).samples;
  if (s === undefined || s === null) return null;
  const ok =
    typeof s === 'object' &&
    (s as RunSamples).format === SAMPLES_FORMAT &&
    typeof (s as RunSamples).endpoints === 'object' &&
    (s as RunSamples).endpoints !== null &&
    Object.values((s as RunSamples).endpoints).every(isHistogram);
  if (!ok) throw new Error(`${file}: "samples" is not ${SAMPLES_FORMAT} (per-endpoint histograms)`);
  return s as RunSamples;
}
