// An Artillery plugin (v2, bundled by load/artillery/run.ts into the run's data folder and found
// through ARTILLERY_PLUGIN_PATH as `artillery-plugin-console-progress`): prints progressLine for each
// period Artillery reports. Artillery runs it in its main thread, where every worker's period is
// merged; in the workers it gets no `stats` events and stays silent. `--quiet` keeps Artillery's own
// block of every metric off the console, which would bury these lines.
import { type PeriodStats, progressLine } from './progress.ts';

interface PluginEvents {
  on(event: 'stats', listener: (stats: PeriodStats) => void): void;
}

export const LEGACY_METRICS_FORMAT = false;

export class Plugin {
  constructor(script: { config?: { plugins?: Record<string, { label?: string }> } }, events: PluginEvents) {
    const label = script.config?.plugins?.['console-progress']?.label ?? 'load';
    events.on('stats', (stats) => console.log(progressLine(label, stats)));
  }
}
