// Makes the page the test opens from a real run: `npm run verify` (conformance suite and k6 smoke
// profiles) against a reference server with one injected fault, so that there is a failure to open.
// The fault, metric-name-3-accepted, breaks only a stated clause of spec 8 (metric names of 4 to 200)
// that the load profiles never touch: the run fails on the contract and passes its load compare.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadConfig } from '../scripts/lib/config.ts';
import { randomApiKey, startReference } from '../scripts/lib/reference-process.ts';

export const FAULT = 'metric-name-3-accepted';
export const reportDir = () => join(loadConfig().reportsDir, 'report-test');

export default async function globalSetup(): Promise<void> {
  const config = loadConfig();
  const dir = reportDir();
  rmSync(dir, { recursive: true, force: true });
  // npm test's key when it sets one, so its last stage (scan:secrets) looks for this run's key too.
  const server = await startReference({ apiKey: config.apiKey ?? randomApiKey(), faults: [FAULT], stderr: 'ignore' });
  try {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'scripts/verify.ts')], {
      cwd: ROOT, encoding: 'utf8',
      env: { ...clean, CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: dir, CONSOLE_FIXTURES: config.manifestPath },
    });
    if (r.status !== 1 || !existsSync(join(dir, 'index.html'))) {
      throw new Error(`verify against the faulty reference should exit 1 and write index.html; it exited ${r.status}:\n${r.stdout.slice(-3000)}\n${r.stderr}`);
    }
    const page = readFileSync(join(dir, 'index.html'), 'utf8');
    if (page.includes(server.apiKey)) throw new Error('the page holds the API key');
    console.log(`report page from a real verify run (exit 1, fault ${FAULT}) in ${dir}`);
  } finally {
    await server.stop();
  }
}
