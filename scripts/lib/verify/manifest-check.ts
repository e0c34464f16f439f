// The target check stage (manifest-check/run-check.ts): the manifest read against the target before the
// suite, and how many nights its triggers last.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TARGET_CHECK_FILE } from '../../../manifest-check/check.ts';
import { runManifestCheck, type ManifestCheckOutcome } from '../../../manifest-check/run-check.ts';
import type { StageResult } from '../../../core/formats.ts';
import { type Run, secs, shortPath } from './run.ts';

/** The target check (manifest-check/run-check.ts): the manifest read against the target, and how many nights it lasts. */
export async function manifestCheckStage(run: Run): Promise<{ stage: StageResult; stop: boolean; outcome: ManifestCheckOutcome }> {
  run.say(`target check: the manifest ${shortPath(run.config.manifestPath)} against ${run.config.baseUrl}`);
  const ts = Date.now();
  const outcome = await runManifestCheck(run.config, { baseUrl: run.config.baseUrl!, apiKey: run.key, reference: false });
  for (const line of outcome.lines) console.log(line);
  const check = outcome.check;
  if (check) writeFileSync(join(run.reportsDir, TARGET_CHECK_FILE), `${JSON.stringify(check, null, 2)}\n`);
  const nights = check?.nightsLeft === null || check?.nightsLeft === undefined ? 'not bounded' : String(check.nightsLeft);
  const detail = outcome.stop
    ? (outcome.reason ?? 'the manifest does not fit the target')
    : `${check?.experiments.length ?? 0} experiments and ${check?.triggers.length ?? 0} triggers found; nights left: ${nights}${check?.warnings.length ? `; WARNING ${check.warnings.join('; WARNING ')}` : ''}`;
  return {
    stage: { name: 'target check', status: outcome.stop ? 'error' : 'pass', exitCode: outcome.stop ? 3 : 0, seconds: secs(ts), detail },
    stop: outcome.stop,
    outcome,
  };
}
