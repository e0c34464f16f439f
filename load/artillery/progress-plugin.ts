// An Artillery plugin (v2, bundled by load/artillery/run.ts into the run's data folder and found
// through ARTILLERY_PLUGIN_PATH as `artillery-plugin-console-progress`): prints progressLine for each
// period Artillery reports, and writes what Artillery's ensure plugin concluded to `ensureFile`, which
// the run reads to tell a broken limit (exit 2) from Artillery failing (exit 3): both exit 1. Artillery
// runs it in its main thread, where every worker's period is merged; in the workers it gets no `stats`
// events and stays silent. `--quiet` keeps Artillery's own block of every metric off the console,
// which would bury these lines. With `aggregateFile` it writes Artillery's final report, its histograms
// serialised, for the limits judged on several runners merged (load/artillery/ensure.ts).
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { type PeriodStats, progressLine } from './progress.ts';

interface EnsureCheck {
  original: string;
  strict: boolean;
  result: number;
}

interface ArtilleryGlobal {
  artillery?: { globalEvents?: { on(event: 'checks', listener: (checks: EnsureCheck[]) => void): void } };
}

interface PluginEvents {
  on(event: 'stats', listener: (stats: PeriodStats) => void): void;
  on(event: 'done', listener: (stats: Parameters<typeof serializeReport>[0]) => void): void;
}

interface Sketch {
  toProto(): Uint8Array;
}

/** A final report of Artillery's (its `done` event) as its workers send it to its launcher: each histogram a serialised sketch. */
export function serializeReport(stats: { histograms?: Record<string, Sketch> }): string {
  const histograms: Record<string, Buffer> = {};
  for (const [name, h] of Object.entries(stats.histograms ?? {})) histograms[name] = Buffer.from(h.toProto());
  return JSON.stringify({ ...stats, histograms });
}

export const LEGACY_METRICS_FORMAT = false;

export class Plugin {
  constructor(script: { config?: { plugins?: Record<string, { label?: string; ensureFile?: string; aggregateFile?: string }> } }, events: PluginEvents) {
    const settings = script.config?.plugins?.['console-progress'] ?? {};
    events.on('stats', (stats) => console.log(progressLine(settings.label ?? 'load', stats)));
    const aggregate = settings.aggregateFile;
    // Artillery's launcher (its main thread; its workers are threads) emits `done` with the histograms still
    // sketches, before its own report replaces them by their summaries.
    if (aggregate && isMainThread) events.on('done', (stats) => writeFileSync(aggregate, serializeReport(stats)));
    const file = settings.ensureFile;
    if (file)
      (globalThis as ArtilleryGlobal).artillery?.globalEvents?.on('checks', (checks) =>
        writeFileSync(file, JSON.stringify(checks.map((c) => ({ check: c.original, strict: c.strict, ok: c.result === 1 })))),
      );
  }
}
