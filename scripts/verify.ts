// npm run verify -- [--strict] [--skip-load] [--profile smoke|baseline|stress] [--help]
// The main job (architecture guide, section 3): with no target configured it starts the reference
// server, runs the conformance suite, writes reports/ (index.html, conformance.json, junit.xml,
// observations.json, the Playwright report), scans them for the API key and prints a verdict.
// Exit codes: 0 pass, 1 contract failure, 2 performance regression, 3 run could not be carried out.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError, ROOT, loadConfig } from './lib/config.ts';
import { referenceUnlessTarget } from './lib/reference-process.ts';
import { writeReport, type Stage } from './report/html.ts';

const HELP = `usage: npm run verify -- [--strict] [--skip-load] [--profile smoke|baseline|stress]

Runs the conformance suite against CONSOLE_BASE_URL (or a reference server it starts), writes
reports/index.html and the machine-readable reports, scans them for the API key, prints a verdict.

  --strict        inferred clauses fail instead of warn (also CONSOLE_STRICT=1)
  --skip-load     do not run the load profiles
  --profile NAME  load profile size: smoke (default), baseline, stress
  --help          this text

exit codes: 0 pass, 1 contract failure, 2 performance regression, 3 run could not be carried out`;

function fail3(reason: string): never {
  console.error(`verify: ${reason}`);
  process.exit(3);
}

function tsx(script: string, args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, script), ...args], { cwd: ROOT, env, stdio: 'inherit' });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    console.log(HELP);
    return 0;
  }
  const known = new Set(['--strict', '--skip-load', '--profile']);
  for (let i = 0; i < args.length; i++) {
    if (!known.has(args[i])) fail3(`unknown option ${args[i]} (see --help)`);
    if (args[i] === '--profile') {
      const p = args[++i];
      if (!['smoke', 'baseline', 'stress'].includes(p)) fail3(`--profile must be smoke, baseline or stress, got ${JSON.stringify(p)}`);
    }
  }
  const env = { ...process.env };
  if (args.includes('--strict')) env.CONSOLE_STRICT = '1';
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) fail3(err.message);
    throw err;
  }
  const started = Date.now();
  mkdirSync(config.reportsDir, { recursive: true });
  for (const old of ['conformance.json', 'observations.json', 'junit.xml', 'index.html', 'playwright-report', 'test-results']) rmSync(join(config.reportsDir, old), { recursive: true, force: true });

  if (!config.baseUrl) console.log('verify: [1/3] starting the reference server (no CONSOLE_BASE_URL set)');
  const server = await referenceUnlessTarget(config, env).catch((err: Error) => fail3(err.message));
  const stages: Stage[] = [];
  let code = 0;
  try {
    console.log(`verify: [2/3] conformance suite against ${env.CONSOLE_BASE_URL}`);
    const conf = tsx('scripts/conformance.ts', [], env);
    if (conf.status === 3) return 3;
    stages.push({ name: 'conformance', status: conf.status === 0 ? 'pass' : 'fail', detail: `exit ${conf.status}` });
    if (conf.status !== 0) code = 1;
    // The k6 load profiles (issue 5) are not built yet: say so rather than pretend.
    stages.push({ name: 'load', status: 'not run', detail: args.includes('--skip-load') ? 'skipped (--skip-load)' : 'the k6 load profiles are not part of this version yet (see README, "What it does not do yet")' });
  } finally {
    await server?.stop();
  }

  const report = writeReport(config.reportsDir, stages, {
    target: server ? `reference server (started by verify) at ${env.CONSOLE_BASE_URL}` : String(config.baseUrl),
    manifest: relative(ROOT, config.manifestPath),
    versions: `console-conformance ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}, node ${process.version}`,
  });
  console.log('verify: [3/3] scanning reports/ for the API key');
  const scan = tsx('scripts/scan-secrets.ts', [config.reportsDir], { ...env });
  stages.push({ name: 'secret scan', status: scan.status === 0 ? 'pass' : 'fail', detail: scan.status === 0 ? 'no trace of the key' : 'the key was found in an artifact' });
  if (scan.status !== 0) code = code || 1;

  const summary = existsSync(join(config.reportsDir, 'conformance.json')) ? JSON.parse(readFileSync(join(config.reportsDir, 'conformance.json'), 'utf8')).summary : undefined;
  console.log('\n================ verdict ================');
  for (const s of stages) console.log(`${s.status.padEnd(8)} ${s.name.padEnd(12)} ${s.detail}`);
  if (summary) {
    const c = summary.clauses;
    console.log(`clauses  ${c.total}: pass ${c.pass}, fail ${c.fail}, warn ${c.warn}, observed ${c.observed}, uncovered ${c.uncovered} (stated ${summary.byLevel.stated}, inferred ${summary.byLevel.inferred}, open ${summary.byLevel.open})`);
  }
  console.log(`report   ${report ? relative(process.cwd(), report) : '(none)'}`);
  console.log(`verdict  ${code === 0 ? 'PASS' : 'FAIL'} (exit ${code}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return code;
}

main().then((c) => process.exit(c), (err) => fail3((err as Error).message));
