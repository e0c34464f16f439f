// The duration histograms of a load run, kept in its summary.json under `samples` (and, through
// `baseline:update`, in the baseline), read back and checked here.
import type { DurationHistogram, RunSamples } from './samples.ts';

export const SAMPLES_FORMAT: RunSamples['format'] = 'console-conformance.duration-histograms/1';

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
