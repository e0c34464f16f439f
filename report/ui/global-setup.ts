// Makes the page the test opens from real runs of `npm run verify`:
// 1. a "previous run": the whole suite, no load, against a reference server with the legal variant
//    pagination-other-fields (pagination is {page, limit, hasMore}: spec 2.1 leaves its fields open);
// 2. the run shown: the whole conformance suite and both load smoke profiles (Artillery) against a reference server
//    with one injected fault, so that there is a failure to open, and with the first run's
//    observations as the previous run's, so that drift (other pagination fields then and now) is real.
// The fault, metric-name-3-accepted, breaks only a stated clause of spec 8 (metric names of 4 to 200)
// that the load profiles never touch: the run fails on the contract and passes its load compare
// (against the committed smoke baselines, marked as recorded for that server).
import { LOAD_SCRIPTS, readRunSummary, writeRunSummary } from '../../core/formats.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadConfig } from '../../core/config.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';
import { randomApiKey, startReference } from '../../core/reference.ts';

export const FAULT = 'metric-name-3-accepted';
export const VARIANT = 'pagination-other-fields';
export const reportDir = () => join(loadConfig().reportsDir, 'report-test');
export const previousDir = () => join(loadConfig().reportsDir, 'report-test-previous');

function verify(server: { baseUrl: string; apiKey: string }, reports: string, args: string[], manifest: string) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  return spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'scripts/verify.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...clean, CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: reports, CONSOLE_TARGET_MANIFEST: manifest },
  });
}

/**
 * The committed smoke baselines, as recorded for this server: verify runs against it as a target,
 * and a target's load is compared only with baselines of a target (load/compare/measured-against.ts).
 */
function targetBaselines(baseUrl: string): string {
  const out = join(`${reportDir()}-baselines`, 'load', 'baselines');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const script of LOAD_SCRIPTS) {
    const baseline = readRunSummary(join(ROOT, 'load/baselines', `${script}.json`))!;
    writeRunSummary(join(out, `${script}.json`), { ...baseline, target: { kind: 'external', origin: new URL(baseUrl).origin } });
  }
  return out;
}

export default async function globalSetup(): Promise<void> {
  const config = loadConfig();
  const dir = reportDir();
  const prev = previousDir();
  for (const d of [dir, prev]) rmSync(d, { recursive: true, force: true });
  // npm test's key when it sets one, so its last stage (scan:secrets) looks for this run's key too.
  const apiKey = config.apiKey ?? randomApiKey();

  const before = await startReference({ apiKey, variants: [VARIANT], stderr: 'ignore' });
  try {
    const r = verify(before, prev, ['--skip-load'], config.manifestPath);
    if (r.status !== 0 || !existsSync(join(prev, 'observations.json')))
      throw new Error(`the previous run (variant ${VARIANT}) should pass; verify exited ${r.status}:\n${r.stdout.slice(-3000)}\n${r.stderr}`);
  } finally {
    await before.stop();
  }

  const server = await startReference({ apiKey, faults: [FAULT], stderr: 'ignore' });
  try {
    const baselines = targetBaselines(server.baseUrl);
    const r = verify(server, dir, ['--observations-baseline', join(prev, 'observations.json'), '--baselines', baselines], config.manifestPath);
    if (r.status !== 1 || !existsSync(join(dir, 'index.html'))) {
      throw new Error(`verify against the faulty reference should exit 1 and write index.html; it exited ${r.status}:\n${r.stdout.slice(-3000)}\n${r.stderr}`);
    }
    if (readFileSync(join(dir, 'index.html'), 'utf8').includes(apiKey)) throw new Error('the page holds the API key');
    console.log(`report page from a real verify run (exit 1, fault ${FAULT}; drift against a run with variant ${VARIANT}) in ${dir}`);
  } finally {
    await server.stop();
  }
}
