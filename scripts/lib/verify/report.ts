// The report stage: verify.json, the run added to the history, and index.html, each refused when it
// would hold the key.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_FILES, writeVerify, type VerifyRun } from '../../../core/formats.ts';
import { recordRun } from '../../../core/history.ts';
import { keyForms } from '../../../core/keys.ts';
import { historyRunOf } from '../../../report/history-record.ts';
import { renderPage } from '../../../report/html.ts';
import { readInputs, type ReportInputs } from '../../../report/inputs.ts';
import { type Run, shortPath } from './run.ts';

/**
 * The report: verify.json, the run added to the history, and index.html (its trends from the
 * history, this run included); verify.json and the page are refused when they would hold the key.
 * Returns the page's path when written, and what it was made of.
 */
export function reportStage(run: Run, result: VerifyRun): { page: string | undefined; inputs: ReportInputs | undefined } {
  run.say('report');
  const forms = keyForms(run.key);
  writeVerify(run.reportsDir, result, (text) => clean(join(run.reportsDir, RUN_FILES.verify), text, forms));
  recordHistory(run);
  // Written also when the suite never ran (target down, not the Console API): the page says why.
  const page = join(run.reportsDir, 'index.html');
  const inputs = readInputs(run.reportsDir, run.historyFile);
  writeIfClean(page, renderPage(inputs), forms);
  return { page, inputs };
}

/** Adds this run to the history; whatever goes wrong is one warning line, never the run's verdict. */
function recordHistory(run: Run): void {
  const warn = (line: string) => console.error(`verify: ${line}`);
  try {
    const row = historyRunOf(readInputs(run.reportsDir, run.historyFile));
    if (row && recordRun(run.historyFile, row, warn)) console.log(`verify: run added to the history ${shortPath(run.historyFile)}`);
  } catch (err) {
    warn(`warning: run history not written to ${shortPath(run.historyFile)}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** `text` when it holds no form of the key; else the file is refused. */
function clean(file: string, text: string, forms: string[]): string {
  if (forms.some((f) => text.includes(f))) throw new Error(`${file} would hold the API key: not written`);
  return text;
}

function writeIfClean(file: string, text: string, forms: string[]): void {
  writeFileSync(file, clean(file, text, forms));
}
