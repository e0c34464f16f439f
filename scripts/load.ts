// npm run load:paging | load:mutation | load:smoke -- [--profile smoke|baseline|stress] [--compare] [--seed N] [--scale N]
// Runs a k6 load profile against the target (or a reference server it starts), writing
// reports/load/<script>/{summary.json,junit.xml,dashboard.html}. docs/load.md has the whole story.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generate, newRunId } from '../fixtures/generate.ts';
import { buildValidators } from '../load/lib/build-validators.ts';
import { compareRun, printCompare } from './baseline.ts';
import { ConfigError, isLoopback, loadConfig, ROOT, type Config } from '../core/config.ts';
import { worst } from '../core/exit.ts';
import { startReference, type ReferenceServer } from '../core/reference.ts';

const HELP = `usage: npm run load:paging   -- [options]   (k6 load/paging.ts)
       npm run load:mutation -- [options]   (k6 load/mutation.ts)
       npm run load:smoke    -- [options]   (both, at smoke size: what npm test runs)

Runs a k6 load profile against CONSOLE_BASE_URL, or, when it is unset, against a reference server
started on a free loopback port for the run (and stopped after it).

  --profile NAME  smoke (a few seconds), baseline (about a minute, constant arrival rate) or
                  stress (ramping arrival rate); default smoke
  --compare       compare with load/baselines/<script>.json afterwards (reports/load/compare.json)
  --seed N        seed of the generated request bodies (default 1)
  --scale N       experiments the started reference server seeds (default: its own); ignored with a target
  --help          this text

Environment: CONSOLE_BASE_URL, CONSOLE_API_KEY, CONSOLE_FIXTURES (target manifest),
CONSOLE_ALLOW_REMOTE_LOAD=1 (needed for a target that is not loopback), K6_BIN (a k6 to use).
The key reaches k6 through its environment only, never its arguments or output.

Writes reports/load/<script>/summary.json, junit.xml and dashboard.html (k6 web dashboard export).
Exit codes: 0 pass; 1 a threshold crossed or a check failed; 2 regression against the baseline
(--compare); 3 the run could not be carried out (k6 missing, target refused or unreachable, bad option).`;

const SCRIPTS = ['paging', 'mutation'] as const;
type Script = (typeof SCRIPTS)[number];

interface Args { scripts: Script[]; profile: string; compare: boolean; seed: number; scale: number | undefined }

function parse(argv: string[]): Args | 'help' {
  const [which, ...rest] = argv;
  const { values } = parseArgs({ args: rest, options: { profile: { type: 'string' }, compare: { type: 'boolean' }, seed: { type: 'string' }, scale: { type: 'string' }, help: { type: 'boolean' } }, strict: true });
  if (values.help) return 'help';
  const scripts: Script[] = which === 'smoke' ? [...SCRIPTS] : SCRIPTS.includes(which as Script) ? [which as Script] : [];
  if (scripts.length === 0) throw new ConfigError(`first argument must be paging, mutation or smoke, got ${JSON.stringify(which)} (see --help)`);
  const profile = values.profile ?? 'smoke';
  if (!['smoke', 'baseline', 'stress'].includes(profile)) throw new ConfigError(`--profile must be smoke, baseline or stress, got ${JSON.stringify(profile)}`);
  if (which === 'smoke' && profile !== 'smoke') throw new ConfigError('load:smoke runs the smoke profile only; use load:paging or load:mutation with --profile');
  const seed = Number(values.seed ?? 1);
  if (!Number.isInteger(seed) || seed < 0) throw new ConfigError(`--seed must be a non-negative integer, got ${JSON.stringify(values.seed)}`);
  const scale = values.scale === undefined ? undefined : Number(values.scale);
  if (scale !== undefined && (!Number.isInteger(scale) || scale < 1 || scale > 1_000_000)) throw new ConfigError(`--scale must be an integer from 1 to 1000000, got ${JSON.stringify(values.scale)}`);
  return { scripts, profile, compare: values.compare ?? false, seed, scale };
}

/** The k6 binary, as scripts/install-k6 resolves it (K6_BIN, else .tools/bin/k6); missing is exit 3. */
function findK6(): string {
  const r = spawnSync('bash', [join(ROOT, 'scripts/install-k6'), '--which'], { encoding: 'utf8' });
  if (r.status !== 0) throw new ConfigError((r.stderr || 'k6 is not installed: run npm run k6:install').trim().replace(/^install-k6: /, ''));
  return r.stdout.trim();
}

/** The key must be in no artifact: look for it in everything this run wrote (README, "Reports"). */
function assertNoKey(dir: string, key: string): void {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isFile() && readFileSync(file, 'latin1').includes(key)) throw new ConfigError(`${file} holds the API key: refusing to keep it`);
  }
}

function runK6(k6: string, script: Script, profile: string, target: { baseUrl: string; apiKey: string }, dataDir: string, reportDir: string): Promise<number> {
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  const env = {
    ...process.env,
    CONSOLE_BASE_URL: target.baseUrl,
    CONSOLE_API_KEY: target.apiKey, // environment only: argv shows in process listings
    LOAD_PROFILE: profile,
    LOAD_REPORT_DIR: reportDir,
    LOAD_DATA_DIR: dataDir,
    // The dashboard's HTML export without an open port (port -1: k6 docs, "Web dashboard").
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_PORT: '-1',
    K6_WEB_DASHBOARD_EXPORT: join(reportDir, 'dashboard.html'),
    // The dashboard aggregates per period (default 10 s) and skips its report below two periods: a
    // 1 s period gives the few-second smoke a report too.
    K6_WEB_DASHBOARD_PERIOD: profile === 'smoke' ? '1s' : '5s',
    K6_NO_USAGE_REPORT: 'true',
  };
  const child = spawn(k6, ['run', '--quiet', '--no-color', join(ROOT, 'load', `${script}.ts`)], { cwd: ROOT, env, stdio: 'inherit' });
  return new Promise((done) => child.on('exit', (code, signal) => done(code ?? (signal ? 3 : 0))));
}

async function main(): Promise<number> {
  const args = parse(process.argv.slice(2));
  if (args === 'help') {
    console.log(HELP);
    return 0;
  }
  const config: Config = loadConfig();
  if (config.baseUrl && !isLoopback(config.baseUrl) && !config.allowRemoteLoad) {
    throw new ConfigError(`refusing to load ${new URL(config.baseUrl).host}: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);
  }
  const k6 = findK6();
  const runId = newRunId();
  const dataDir = join(ROOT, 'load/data', `run-${runId}`);
  // Validators are built into a temporary name then renamed, so a parallel run never reads half a file.
  const tmp = await buildValidators(join(ROOT, 'load/data', `validators.${runId}.tmp.js`));
  renameSync(tmp, join(ROOT, 'load/data/validators.js'));
  generate({ seed: args.seed, runId, manifest: config.manifest, outDir: dataDir });

  let server: ReferenceServer | undefined;
  let target: { baseUrl: string; apiKey: string };
  if (config.baseUrl) {
    target = { baseUrl: config.baseUrl, apiKey: config.apiKey! };
  } else {
    try {
      server = await startReference({ apiKey: config.apiKey, scale: args.scale, stderr: 'ignore' });
    } catch (err) {
      throw new ConfigError(`cannot start the reference server: ${(err as Error).message}`);
    }
    target = { baseUrl: server.baseUrl, apiKey: server.apiKey };
  }
  const stop = () => { void server?.stop(); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const codes: number[] = [];
  const t0 = Date.now();
  try {
    for (const script of args.scripts) {
      const reportDir = join(config.reportsDir, 'load', script);
      const code = await runK6(k6, script, args.profile, target, dataDir, reportDir);
      assertNoKey(reportDir, target.apiKey);
      // k6: 99 thresholds crossed; 107/108 script error or aborted (setup's clear reason is printed above).
      const mapped = code === 0 ? 0 : code === 99 ? 1 : 3;
      if (mapped === 3) console.error(`load: k6 ${script} could not be carried out (k6 exit ${code})`);
      codes.push(mapped);
      console.log(`load: ${script} (${args.profile}) -> ${reportDir}`);
    }
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`load: ${args.scripts.join(' + ')} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (args.compare && !codes.includes(3)) {
    const result = compareRun({ scripts: args.scripts, reportsDir: config.reportsDir });
    printCompare(result);
    if (result.verdict === 'regression') codes.push(2);
  }
  return worst(codes);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    // Every failure before or around k6 (bad option, config, k6 missing, reference not starting) is exit 3.
    console.error(`load: ${(err as Error).message.split('\n')[0]}`);
    process.exit(3);
  },
);
