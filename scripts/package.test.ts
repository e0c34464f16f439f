// The npm package as another team gets it: `npm pack`, installed into an empty project from the local
// npm cache (the registry only for what the cache lacks), and run from there with npx: the reference
// server from the package, verify against it with reports in the project's folder, every command's
// --help, --version, a bad option. And what the tarball holds: every file the commands load, nothing
// that is a test, a self-test file, a docs image or a secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { ROOT } from '../core/config.ts';
import { randomApiKey } from '../core/reference.ts';
import { scan } from '../core/scan.ts';
import { ALIASES, COMMANDS } from './cli.ts';

const WORK = mkdtempSync(join(tmpdir(), 'cc-package-'));
const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

/** `npm pack` of this repository (its prepack records the commit), the tarball in WORK. */
function pack(): Packed {
  const r = spawnSync('npm', ['pack', '--json', '--pack-destination', WORK], { cwd: ROOT, encoding: 'utf8', env: NPM_ENV });
  assert.equal(r.status, 0, `npm pack failed: ${r.stderr}`);
  // prepack and postpack print their own lines before npm's JSON.
  return (JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as Packed[])[0];
}

/** The files the commands load, by following their imports (esbuild's metafile), relative to ROOT. */
async function filesTheCommandsLoad(): Promise<string[]> {
  const specs = readdirSync(join(ROOT, 'contracts/conformance')).filter((f) => f.endsWith('.spec.ts'));
  const entryPoints = [
    'bin/console-conformance.mjs',
    ...Object.values(COMMANDS).map((c) => c.file),
    // Loaded by Playwright, by path.
    'playwright.config.ts',
    'contracts/support/global-setup.ts',
    'contracts/support/reporter.ts',
    ...specs.map((f) => `contracts/conformance/${f}`),
    // Started as a command by the load.
    'fixtures/generate.ts',
  ].map((f) => join(ROOT, f));
  const result = await build({
    entryPoints,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    metafile: true,
    outdir: WORK,
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs).map((f) => relative(ROOT, join(ROOT, f)));
}

/**
 * The native SQLite driver for Node before Node-API 10 (better-sqlite3 12, package.json's alias) has no
 * build inside its package: its install fetches one from GitHub, else compiles SQLite (minutes on two
 * cores). The repository's own build of the same version for this Node is given to it as a local
 * prebuild (prebuild-install's npm_config_<package>_local_prebuilds): the install the user runs, with
 * the download replaced by a local file. On every Node, not only those that load it: `npm ci` builds
 * the alias on Node 24 too (the package installs both drivers), and the package's install would
 * compile it again there, about 80 s of CPU, for a driver Node 24 never loads. Undefined where there is
 * nothing to give (no build in node_modules).
 */
function localPrebuilds(): string | undefined {
  const built = join(ROOT, 'node_modules/better-sqlite3-node20/build/Release/better_sqlite3.node');
  if (!existsSync(built)) return undefined;
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3-node20/package.json'), 'utf8')) as { version: string };
  const dir = join(WORK, 'prebuilds');
  mkdirSync(join(dir, 'build/Release'), { recursive: true });
  writeFileSync(join(dir, 'build/Release/better_sqlite3.node'), readFileSync(built));
  const tarball = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const r = spawnSync('tar', ['-czf', tarball, 'build'], { cwd: dir, encoding: 'utf8' });
  return r.status === 0 ? dir : undefined;
}

/** An empty project with the tarball installed. */
function install(tarball: string): string {
  const project = join(WORK, 'my-server');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'my-server', version: '1.0.0', private: true }, null, 2)}\n`);
  const prebuilds = localPrebuilds();
  // As docs/install.md tells users: Artillery's @playwright/browser-chromium downloads a browser the suite never starts.
  const env = { ...NPM_ENV, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', ...(prebuilds ? { npm_config_better_sqlite3_local_prebuilds: prebuilds } : {}) };
  const r = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project, encoding: 'utf8', env, timeout: 600_000 });
  assert.equal(r.status, 0, `npm install of the tarball failed: ${(r.stderr || r.stdout || String(r.error ?? '')).split('\n').slice(-15).join('\n')}`);
  return project;
}

/**
 * `npx console-conformance ARGS` in `project`, no target or key from this process's environment; with
 * `bin`, the installed command itself (node_modules/.bin, what npx runs), without npm's start-up.
 */
function npx(project: string, args: string[], how: 'npx' | 'bin' = 'npx') {
  const [command, ...first] = how === 'npx' ? ['npx', '--no-install', 'console-conformance'] : [join(project, 'node_modules/.bin/console-conformance')];
  return spawnSync(command, [...first, ...args], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, CONSOLE_API_KEY: '', CONSOLE_BASE_URL: '', CONSOLE_REPORTS_DIR: '', CONSOLE_TARGET_MANIFEST: '' },
    timeout: 300_000,
  });
}

/** `npx console-conformance serve --port 0`, in a process group of its own, and the URL it prints. */
async function serve(project: string, key: string): Promise<{ url: string; stop(): void }> {
  const child: ChildProcess = spawn('npx', ['--no-install', 'console-conformance', 'serve', '--port', '0', '--exit-with-stdin'], {
    cwd: project,
    env: { ...process.env, CONSOLE_API_KEY: key },
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  const stop = () => {
    child.stdin?.end();
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve printed no "listening on" within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  }).catch((err: Error) => {
    stop();
    throw err;
  });
  return { url, stop };
}

test('the npm package, installed into an empty project, runs from there', { timeout: 900_000 }, async (t) => {
  t.after(() => rmSync(WORK, { recursive: true, force: true }));
  const packed = pack();
  const inTarball = new Set(packed.files.map((f) => f.path));
  console.log(`package: ${packed.filename}, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.entryCount} files`);

  await t.test('the tarball holds every file the commands load', async () => {
    const missing = (await filesTheCommandsLoad()).filter((f) => !inTarball.has(f));
    assert.deepEqual(missing, []);
    for (const f of [
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'build-info.json',
      'contracts/spec/console-v1.md',
      'contracts/clauses.yaml',
      'contracts/openapi.yaml',
    ])
      assert.ok(inTarball.has(f), `${f} is not in the tarball`);
    assert.ok(
      [...inTarball].some((f) => f.startsWith('load/baselines/')),
      'the load baselines are not in the tarball',
    );
  });

  await t.test('nothing in the tarball is a test, a self-test file, a docs image or a secret', () => {
    const notShipped =
      /(^|\/)[^/]+\.test\.(ts|mjs)$|^harness\/|^contracts\/(selftest|proof)|^report\/ui\/|^reports\/|^docs\/.*\.png$|(^|\/)\.env|\.(pem|key|p12|db)$|(^|\/)\.npmrc$|(^|\/)id_(rsa|ed25519)/;
    assert.deepEqual(
      [...inTarball].filter((f) => notShipped.test(f)),
      [],
    );
    const unpacked = join(WORK, 'unpacked');
    mkdirSync(unpacked);
    assert.equal(spawnSync('tar', ['-xzf', join(WORK, packed.filename), '-C', unpacked]).status, 0);
    // Credentials' own shapes, and the key of this run of npm test when there is one.
    const secret = /-----BEGIN [A-Z ]*PRIVATE KEY-----|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{36}\b|\bnpm_[A-Za-z0-9]{36}\b|\bxox[abp]-[A-Za-z0-9-]{10,}/;
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    assert.deepEqual(
      walk(unpacked).filter((f) => secret.test(readFileSync(f, 'latin1'))),
      [],
    );
    const key = process.env.CONSOLE_API_KEY;
    if (key) assert.deepEqual(scan([unpacked], key).found, []);
  });

  const project = install(join(WORK, packed.filename));

  await t.test('--version, and --help of the command and of each of its commands, exit 0', () => {
    const version = npx(project, ['--version']);
    assert.equal(version.status, 0, version.stderr);
    const { version: ours } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.match(version.stdout, new RegExp(`^console-conformance ${ours.replaceAll('.', '\\.')}\\nspec: .+ v1\\ncommit: [0-9a-f]{12}`));
    for (const args of [['--help'], ...[...Object.keys(COMMANDS), ...Object.keys(ALIASES)].map((c) => [c, '--help'])]) {
      const r = npx(project, args, args.length === 1 ? 'npx' : 'bin');
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /^usage: console-conformance/, args.join(' '));
      const script = /npm run ([a-z0-9:*]+)/.exec(r.stdout.replaceAll(/npm run (k6:install|load:testrun)/g, ''));
      assert.equal(script, null, `${args.join(' ')} names an npm script of the repository: ${script?.[0]}`);
    }
  });

  await t.test('a bad option, or the key as an option, exits 3 with one line', () => {
    for (const args of [['verify', '--no-such-option'], ['--no-such-option'], ['conformance', '--api-key', 'k'], ['no-such-command']]) {
      const r = npx(project, args, args[0] === 'verify' ? 'npx' : 'bin');
      assert.equal(r.status, 3, `${args.join(' ')}: exit ${r.status}`);
      assert.equal(r.stdout, '', args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: ${r.stderr}`);
    }
  });

  await t.test('verify --skip-load against the packaged reference server passes, with reports in the project', async () => {
    const key = randomApiKey();
    const server = await serve(project, key);
    try {
      writeFileSync(join(project, 'key.txt'), `${key}\n`);
      const r = npx(project, ['verify', '--skip-load', '--base-url', server.url, '--api-key-file', 'key.txt']);
      assert.equal(r.status, 0, `verify exit ${r.status}: ${(r.stdout + r.stderr).split('\n').slice(-25).join('\n')}`);
      assert.match(r.stdout, /verdict\s+PASS \(exit 0\)/);
      assert.ok(existsSync(join(project, 'reports/index.html')), 'no reports/index.html in the project');
      assert.ok(!existsSync(join(project, 'node_modules/console-conformance/reports')), 'the run wrote reports inside the package');
      rmSync(join(project, 'key.txt'));
      assert.deepEqual(scan([join(project, 'reports')], key).found, []);
    } finally {
      server.stop();
    }
  });
});
