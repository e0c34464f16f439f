// The work of manifest:check, for its command and for verify's first stage: the preflight, the run
// history of this target and manifest, the check itself, and what it means for the run.
import { relative } from 'node:path';
import { ROOT, type Config } from '../core/config.ts';
import { historyTarget, readRuns, type HistoryRun } from '../core/history.ts';
import { waiverOf } from '../core/waivers.ts';
import { checkManifest, describeCheck, type ManifestCheck } from './check.ts';
import { PREFLIGHT_TIMEOUT_MS, preflight } from '../core/preflight.ts';

export interface ManifestCheckOutcome {
  check?: ManifestCheck;
  /** Why the manifest cannot work on this target (exit 3 of manifest:check), one line. */
  reason?: string;
  /** True when running the suite would mislead: the target is not the Console API, or a manifest id is unknown to it. */
  stop: boolean;
  lines: string[];
}

/** The check against `t` (the configured target, or a reference server started for it). */
export async function runManifestCheck(config: Config, t: { baseUrl: string; apiKey: string; reference: boolean }): Promise<ManifestCheckOutcome> {
  const unfit = await preflight(t.baseUrl, t.apiKey, Math.min(PREFLIGHT_TIMEOUT_MS, config.requestTimeoutMs));
  if (unfit) return { reason: unfit, stop: true, lines: [] };
  const manifest = relative(ROOT, config.manifestPath);
  const lines: string[] = [];
  let runs: HistoryRun[] = [];
  try {
    runs = readRuns(config.historyFile, { target: historyTarget({ reference: t.reference, url: t.baseUrl }, manifest), limit: 60 });
  } catch (err) {
    lines.push(`WARNING the run history cannot be read (${(err as Error).message.split('\n')[0]}): consumption is taken from the suite's design`);
  }
  let check: ManifestCheck;
  try {
    check = await checkManifest({ baseUrl: t.baseUrl, apiKey: t.apiKey, timeoutMs: config.requestTimeoutMs }, config.manifest, manifest, runs);
  } catch (err) {
    return { reason: `target ${t.baseUrl}: the lists could not be read (${(err as Error).message.split('\n')[0]})`, stop: true, lines };
  }
  lines.push(...describeCheck(check));
  if (check.problems.length)
    return { check, reason: `${check.problems[0]}${check.problems.length > 1 ? ` (and ${check.problems.length - 1} more)` : ''}`, stop: true, lines };
  // Triggers the user waived may run out: nothing checks them.
  const triggersWaived = Boolean(waiverOf(config.manifest.waive, 'triggers.skip.status200') && waiverOf(config.manifest.waive, 'triggers.unpause.status200'));
  if (check.nightsLeft === 0 && config.manifest.triggers.length > 0 && !triggersWaived)
    return {
      check,
      reason:
        "the manifest has run out of trigger phases: skip and unpause cannot be checked; add triggers with phases to the manifest (or waive them: the manifest's waive)",
      stop: false,
      lines,
    };
  return { check, stop: false, lines };
}
