// An Artillery plugin (v2, bundled by load/artillery/run.ts into the run's data folder and found
// through ARTILLERY_PLUGIN_PATH as `artillery-plugin-console-progress`): prints progressLine for each
// period Artillery reports, and writes what Artillery's ensure plugin concluded to `ensureFile`, which
// the run reads to tell a broken limit (exit 2) from Artillery failing (exit 3): both exit 1. Artillery
// runs it in its main thread, where every worker's period is merged; in the workers it gets no `stats`
// events and stays silent. `--quiet` keeps Artillery's own block of every metric off the console,
// which would bury these lines.
import { writeFileSync } from 'node:fs';
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
}

export const LEGACY_METRICS_FORMAT = false;

export class Plugin {
  constructor(script: { config?: { plugins?: Record<string, { label?: string; ensureFile?: string }> } }, events: PluginEvents) {
    const settings = script.config?.plugins?.['console-progress'] ?? {};
    events.on('stats', (stats) => console.log(progressLine(settings.label ?? 'load', stats)));
    const file = settings.ensureFile;
    if (file)
      (globalThis as ArtilleryGlobal).artillery?.globalEvents?.on('checks', (checks) =>
        writeFileSync(file, JSON.stringify(checks.map((c) => ({ check: c.original, strict: c.strict, ok: c.result === 1 })))),
      );
  }
}
