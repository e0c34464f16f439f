// npm run report -- [DIR]: rewrites DIR/index.html (default reports/) from what a run left there, e.g.
// after `npm run conformance` alone, or after editing the page's code. verify writes it by itself.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail, parseCommand, runCommand } from '../core/command.ts';
import { loadConfig } from '../core/config.ts';
import { writeReport } from './html.ts';

const HELP = `usage: npm run report -- [DIR]

Writes DIR/index.html (default: reports/, or CONSOLE_REPORTS_DIR) from DIR/conformance.json,
observations.json, verify.json and load/ (each optional but conformance.json).
Exit codes: 0 written; 3 nothing to write it from.`;

const { positionals } = parseCommand({ name: 'report', help: HELP, options: {}, positionals: true });
if (positionals.length > 1) fail('report', `expected at most one folder, got ${JSON.stringify(positionals)} (see --help)`);

runCommand('report', () => {
  const dir = positionals[0] ? resolve(positionals[0]) : loadConfig().reportsDir;
  if (!existsSync(resolve(dir, 'conformance.json'))) fail('report', `no conformance.json in ${dir}: run npm run verify or npm run conformance first`);
  console.log(`report: wrote ${writeReport(dir)}`);
  return 0;
});
