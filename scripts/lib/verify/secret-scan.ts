// The secret scan stage: everything the run wrote to reports/, searched for the key and its near misses.
import { relative } from 'node:path';
import type { StageResult } from '../../../core/formats.ts';
import { scan } from '../../../core/scan.ts';
import { type Run, secs } from './run.ts';

/** The secret scan of everything written so far (the page and verify.json are checked before they are written). */
export function secretScanStage(run: Run): StageResult {
  run.say('secret scan of reports/');
  const ts = Date.now();
  const found = scan([run.reportsDir], run.key);
  return {
    name: 'secret scan',
    // The key in a report is the suite's own fault, not the target's: exit 1 is a contract violation only.
    status: found.found.length ? 'error' : 'pass',
    exitCode: found.found.length ? 3 : 0,
    seconds: secs(ts),
    detail: found.found.length
      ? `the key is in ${found.found.map((f) => relative(run.reportsDir, f)).join(', ')}: do not share these reports`
      : `${found.scanned} files, no trace of the key or its near misses (raw, URL, base64, hex, inside ZIP archives too)`,
  };
}
