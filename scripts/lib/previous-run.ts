// Before a verify run: clear the last run's outputs from reports/, and keep its observations aside
// (reports/previous/observations.json) when they can serve the new run for drift.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { historyTarget } from '../../core/history.ts';
import { clearLedger } from '../../core/ledger.ts';
import { readVerify, type VerifyRun } from '../../core/formats.ts';

/** The target a previous run was against, so that drift is only reported between like runs. */
export const targetId = (v: Pick<VerifyRun, 'target' | 'manifest'>) => historyTarget(v.target, v.manifest);

/**
 * Clears the last run's outputs; keeps its observations aside (reports/previous/) when they can serve
 * for drift: the same target and manifest, the whole suite (a --grep run observed only a part, and
 * every clause it missed would read as drift), carried out to the end.
 */
export function prepareReports(dir: string, current: Pick<VerifyRun, 'target' | 'manifest'>): string | undefined {
  mkdirSync(dir, { recursive: true });
  const prevDir = join(dir, 'previous');
  let last: VerifyRun | undefined;
  try {
    last = readVerify(dir);
  } catch {
    // no previous verify run here (or an unreadable one): nothing to compare with
  }
  const sameTarget = last !== undefined && targetId(last) === targetId(current);
  if (!sameTarget) rmSync(prevDir, { recursive: true, force: true });
  else if (!last!.options?.grep && last!.exitCode !== 3 && existsSync(join(dir, 'observations.json'))) {
    rmSync(prevDir, { recursive: true, force: true });
    mkdirSync(prevDir, { recursive: true });
    renameSync(join(dir, 'observations.json'), join(prevDir, 'observations.json'));
  }
  // else: the last run cannot serve, and what it kept aside from the one before still can.
  for (const old of [
    'verify.json',
    'conformance.json',
    'observations.json',
    'junit.xml',
    'index.html',
    'target-check.json',
    'playwright-report',
    'test-results',
    'load',
  ])
    rmSync(join(dir, old), { recursive: true, force: true });
  // What an earlier run cut short still owes a target stays until a run gives it back.
  clearLedger(dir);
  return sameTarget && existsSync(join(prevDir, 'observations.json')) ? join(prevDir, 'observations.json') : undefined;
}
