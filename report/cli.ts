// npm run report -- [DIR]: rewrites DIR/index.html (default reports/) from what a run left there, e.g.
// after `npm run conformance` alone, or after editing the page's code. verify writes it by itself.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../core/config.ts';
import { writeReport } from './html.ts';

const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log(`usage: npm run report -- [DIR]

Writes DIR/index.html (default: reports/, or CONSOLE_REPORTS_DIR) from DIR/conformance.json,
observations.json, verify.json and load/ (each optional but conformance.json).
Exit codes: 0 written; 3 nothing to write it from.`);
  process.exit(0);
}
try {
  const dir = args[0] ? resolve(args[0]) : loadConfig().reportsDir;
  if (!existsSync(resolve(dir, 'conformance.json'))) throw new Error(`no conformance.json in ${dir}: run npm run verify or npm run conformance first`);
  console.log(`report: wrote ${writeReport(dir)}`);
} catch (err) {
  console.error(`report: ${(err as Error).message.split('\n')[0]}`);
  process.exit(3);
}
