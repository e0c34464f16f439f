// npm run conformance -- [--strict] [playwright args...]
// Runs the Playwright conformance suite against CONSOLE_BASE_URL, or against a reference server it
// starts itself. Exit codes (architecture guide, section 3): 0 pass; 1 contract failure (a stated
// clause violated, or an inferred one under --strict); 3 the run could not be carried out.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadConfigOr } from './lib/config.ts';
import { referenceUnlessTarget } from './lib/reference-process.ts';

const HELP = `usage: npm run conformance -- [--strict] [playwright test options]

Runs the conformance suite. Target: CONSOLE_BASE_URL and CONSOLE_API_KEY, else a reference server
started on a free loopback port. Manifest: CONSOLE_FIXTURES (default fixtures/targets/reference.json).

  --strict      inferred clauses fail instead of warn (also CONSOLE_STRICT=1)
  --observations-baseline FILE
                a previous run's reports/observations.json: every difference is reported as drift
  --help        this text
  anything else is passed to \`playwright test\` (e.g. --grep metrics, --repeat-each 3, --shard 1/2)

exit codes: 0 pass, 1 contract failure, 3 run could not be carried out`;

function fail3(reason: string): never {
  console.error(`conformance: ${reason}`);
  process.exit(3);
}

async function preflight(baseUrl: string, apiKey: string): Promise<void> {
  let status: number;
  try {
    const r = await fetch(`${baseUrl}/console/v1/release_pipelines?limit=1`, { headers: { 'SERVICE-API-KEY': apiKey }, signal: AbortSignal.timeout(15000) });
    status = r.status;
  } catch (err) {
    fail3(`target ${baseUrl} unreachable: ${(err as Error).message}`);
  }
  if (status === 401 || status === 403) fail3(`target ${baseUrl} rejected the key (HTTP ${status}): check CONSOLE_API_KEY`);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  const strict = args.includes('--strict');
  const at = args.indexOf('--observations-baseline');
  const baseline = at >= 0 ? args[at + 1] : undefined;
  if (at >= 0 && (!baseline || !existsSync(baseline))) fail3(`--observations-baseline: no file ${JSON.stringify(baseline ?? '')}`);
  const passThrough = args.filter((a, i) => a !== '--strict' && (at < 0 || (i !== at && i !== at + 1)));
  const env = { ...process.env };
  if (baseline) env.CONSOLE_OBSERVATIONS_BASELINE = baseline;
  if (strict) env.CONSOLE_STRICT = '1';
  const config = loadConfigOr(fail3, env);
  const server = await referenceUnlessTarget(config, env).catch((err: Error) => fail3(err.message));
  if (server) console.log(`conformance: reference server at ${server.baseUrl}`);
  try {
    await preflight(env.CONSOLE_BASE_URL!, env.CONSOLE_API_KEY!);
    const report = join(config.reportsDir, 'conformance.json');
    rmSync(report, { force: true });
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'playwright.config.ts'), ...passThrough], { cwd: ROOT, env, stdio: 'inherit' });
    if (!existsSync(report)) fail3(`the suite did not run to the end (playwright exit ${r.status}); see its output above`);
    const summary = JSON.parse(readFileSync(report, 'utf8')).summary;
    if (summary.tests.total === 0) fail3('no test ran (check --grep / --shard)');
    return summary.verdict === 'pass' ? 0 : 1;
  } finally {
    await server?.stop();
  }
}

main().then((code) => process.exit(code), (err) => fail3((err as Error).message));
