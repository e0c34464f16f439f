// npm run report -- [--history FILE] [DIR]: rewrites DIR/index.html (default reports/) from what a run left there and the run history, e.g.
// after `npm run conformance` alone, or after editing the page's code. verify writes it by itself.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fail, parseCommand, runCommand } from '../core/command.ts';
import { loadConfig } from '../core/config.ts';
import { writeReport } from './html.ts';

const HELP = `usage: npm run report -- [--history FILE] [DIR]

Writes DIR/index.html (default: reports/, or CONSOLE_REPORTS_DIR) from DIR/conformance.json,
observations.json, verify.json and load/ (each optional but conformance.json), and its trends from
the run history: --history FILE, else CONSOLE_HISTORY, else DIR/history.sqlite (verify adds each run).
Exit codes: 0 written; 3 nothing to write it from.`;

const { values, positionals } = parseCommand({ name: 'report', help: HELP, options: { history: { type: 'string' } }, positionals: true });
if (positionals.length > 1) fail('report', `expected at most one folder, got ${JSON.stringify(positionals)} (see --help)`);

runCommand('report', () => {
  const config = loadConfig();
  const dir = positionals[0] ? resolve(positionals[0]) : config.reportsDir;
  // verify.json alone makes a page too: a run whose suite could not be carried out says why.
  if (!existsSync(resolve(dir, 'conformance.json')) && !existsSync(resolve(dir, 'verify.json')))
    fail('report', `no conformance.json or verify.json in ${dir}: run npm run verify or npm run conformance first`);
  // The configured history (CONSOLE_HISTORY) wherever the page goes; else the one beside the reports.
  const historyDefault = config.historyFile === join(config.reportsDir, 'history.sqlite');
  const history = values.history ? resolve(values.history) : historyDefault ? join(dir, 'history.sqlite') : config.historyFile;
  console.log(`report: wrote ${writeReport(dir, history)}`);
  return 0;
});
