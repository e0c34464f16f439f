// npm run crosscheck -- [--max-examples N] [--seed N] [--workers N]
// An independent tool agrees with us: Schemathesis, pinned, installed from PyPI into a
// local .venv, runs every check against the reference server with contracts/openapi.yaml. Its
// findings are fixed in the contract or the server, never by switching a check off here.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fail as failCommand, integerOption, parseCommand, runCommand } from '../../core/command.ts';
import { ROOT, loadConfigOr, type Manifest } from '../../core/config.ts';
import { startReference, type ReferenceServer } from '../../core/reference.ts';
import { keyForms } from '../../core/keys.ts';

export const SCHEMATHESIS_VERSION = '4.32.5';
const VENV = join(ROOT, '.venv');
const ST = join(VENV, 'bin', 'schemathesis');

const HELP = `usage: npm run crosscheck -- [options]

Runs Schemathesis ${SCHEMATHESIS_VERSION} (installed into .venv on first use: python3 -m venv, pip)
with every check (--checks all) against a reference server started on a free loopback port, using
contracts/openapi.yaml. The API key reaches Schemathesis only through its environment; its output
and reports (reports/crosscheck/) are redacted.

  --max-examples N   test cases per operation and phase (default 50)
  --seed N           Schemathesis seed (default 1, so a run can be repeated)
  --workers N        concurrent workers (default 1: with 2, Python 3.11's ast module raced inside
                     Hypothesis, "AST constructor recursion depth mismatch", a tool error)
  --help             this text

Environment: CONSOLE_API_KEY (the key the reference server accepts; default a random one),
CONSOLE_TARGET_MANIFEST (the ids used as path parameters), CONSOLE_REPORTS_DIR (default reports/).
CONSOLE_BASE_URL must be unset: the crosscheck is of the reference server.
Exit 0 no failures, 1 Schemathesis reported failures, 3 the run could not be carried out.`;

const NAME = 'crosscheck';
function fail(reason: string): never {
  return failCommand(NAME, reason);
}

function installedVersion(): string | undefined {
  if (!existsSync(ST)) return undefined;
  const r = spawnSync(ST, ['--version'], { encoding: 'utf8' });
  return /version (\S+)/.exec(r.stdout)?.[1];
}

/** The pinned Schemathesis in .venv, installed when missing or of another version. */
function ensureSchemathesis(): void {
  if (installedVersion() === SCHEMATHESIS_VERSION) return;
  console.log(`crosscheck: installing schemathesis==${SCHEMATHESIS_VERSION} into .venv (once)`);
  if (!existsSync(join(VENV, 'bin', 'python'))) {
    const venv = spawnSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
    if (venv.error || venv.status !== 0) fail(`python3 -m venv failed (${venv.error?.message ?? `exit ${venv.status}`}): install python3 and python3-venv`);
  }
  const pip = spawnSync(join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`], {
    stdio: 'inherit',
  });
  if (pip.status !== 0) fail(`pip install schemathesis==${SCHEMATHESIS_VERSION} failed (exit ${pip.status})`);
  if (installedVersion() !== SCHEMATHESIS_VERSION) fail(`schemathesis ${SCHEMATHESIS_VERSION} is not runnable from .venv after install`);
}

/**
 * The Schemathesis configuration: the key header read from the environment (${CONSOLE_API_KEY}),
 * output sanitisation on, and the ids of the target manifest as path ids so that tests reach past 404.
 */
function configText(manifest: Manifest): string {
  const ids: Record<string, string> = {
    addGateRules: manifest.gates[0],
    enableGate: manifest.gates[1] ?? manifest.gates[0],
    disableGate: manifest.gates[1] ?? manifest.gates[0],
    patchExperimentOverrides: manifest.experiments[0],
    skipTriggerPhase: manifest.triggers[0].id,
    unpauseTrigger: manifest.triggers[0].id,
  };
  const lines = [
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Schemathesis expands ${VAR} in its config, so the key stays out of the file
    'headers = { "SERVICE-API-KEY" = "${CONSOLE_API_KEY}" }',
    '',
    '[output.sanitization]',
    'enabled = true',
    'replacement = "<redacted>"',
  ];
  for (const [op, id] of Object.entries(ids))
    lines.push('', '[[operations]]', `include-operation-id = ${JSON.stringify(op)}`, `parameters = { "path.id" = ${JSON.stringify(id)} }`);
  return `${lines.join('\n')}\n`;
}

/** Copies a child's output line by line with every form of the key replaced. */
function redacted(stream: NodeJS.ReadableStream, out: NodeJS.WritableStream, forms: string[]): Promise<void> {
  return new Promise((done) => {
    const rl = createInterface({ input: stream });
    rl.on('line', (line) => {
      let clean = line;
      for (const f of forms) clean = clean.split(f).join('<redacted>');
      // A tool error can print a whole source file on one line; a screen of it is enough.
      out.write(`${clean.length > 2000 ? `${clean.slice(0, 2000)} ... (${clean.length} chars)` : clean}\n`);
    });
    rl.on('close', () => done());
  });
}

async function main(values: { 'max-examples'?: string; seed?: string; workers?: string }): Promise<number> {
  const maxExamples = integerOption(NAME, '--max-examples', values['max-examples'], { min: 1, fallback: 50 });
  const seed = integerOption(NAME, '--seed', values.seed, { min: 1, fallback: 1 });
  const workers = integerOption(NAME, '--workers', values.workers, { min: 1, fallback: 1 });
  const config = loadConfigOr(fail);
  // The crosscheck is of the reference server and the contract: a remote target is not its business.
  if (config.baseUrl) fail('crosscheck runs against the reference server; unset CONSOLE_BASE_URL');
  ensureSchemathesis();

  const dir = mkdtempSync(join(tmpdir(), 'cc-crosscheck-'));
  const configFile = join(dir, 'schemathesis.toml');
  writeFileSync(configFile, configText(config.manifest));
  const reports = join(config.reportsDir, 'crosscheck');
  mkdirSync(reports, { recursive: true });
  let server: ReferenceServer;
  try {
    server = await startReference({ apiKey: config.apiKey, stderr: 'ignore' });
  } catch (err) {
    fail(`cannot start the reference server: ${(err as Error).message}`);
  }
  try {
    const args = [
      '--config-file',
      configFile,
      'run',
      join(ROOT, 'contracts/openapi.yaml'),
      '--url',
      server.baseUrl,
      '--checks',
      'all',
      '--max-examples',
      String(maxExamples),
      '--seed',
      String(seed),
      '--workers',
      String(workers),
      '--no-color',
      '--report',
      'junit',
      '--report-junit-path',
      join(reports, 'junit.xml'),
    ];
    console.log(`crosscheck: schemathesis ${SCHEMATHESIS_VERSION} against the reference server at ${server.baseUrl} (seed ${seed}, ${maxExamples} examples)`);
    const child = spawn(ST, args, { cwd: dir, env: { ...process.env, CONSOLE_API_KEY: server.apiKey, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const forms = keyForms(server.apiKey);
    const [code] = await Promise.all([
      new Promise<number>((done) => child.once('exit', (c) => done(c ?? 1))),
      redacted(child.stdout!, process.stdout, forms),
      redacted(child.stderr!, process.stderr, forms),
    ]);
    if (code === 0) console.log('crosscheck: Schemathesis reports no failures');
    else if (code === 1) console.error('crosscheck: Schemathesis reports failures (above); fix the contract or the server, not the check');
    else console.error(`crosscheck: schemathesis exited ${code}: the run could not be carried out`);
    return code === 0 ? 0 : code === 1 ? 1 : 3;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values } = parseCommand({
  name: NAME,
  help: HELP,
  options: { 'max-examples': { type: 'string' }, seed: { type: 'string' }, workers: { type: 'string' } },
});
runCommand(NAME, () => main(values));
