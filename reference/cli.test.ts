// The server's command line, as a user runs it: --help, bad arguments (one line, exit 3), the one
// stdout line `listening on ...`, SIGTERM shutting down cleanly, and --db FILE persisting across
// restarts in WAL mode.
import { METRIC_TYPES } from '../contracts/index.ts';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from './store/sqlite.ts';
import { FAULTS, PARAMETRISED_FAULTS, VARIANTS } from './faults.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

/** A metric type the spec allows (the contract's first). */
const TYPE = METRIC_TYPES[0];

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const node = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const { CONSOLE_API_KEY: _, ...rest } = process.env;
  return { cmd: process.execPath, args: [...TS_NODE_OPTIONS, CLI, ...args], env: { ...rest, ...env } };
};

function run(args: string[]) {
  const c = node(args);
  return spawnSync(c.cmd, c.args, { env: c.env, encoding: 'utf8', timeout: 30_000 });
}

/** run(), without waiting: the bad-argument cases start together (each is mostly tsx start-up). */
function runAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const c = node(args);
  const child = spawn(c.cmd, c.args, { env: c.env });
  const r = { status: null as number | null, stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (r.stdout += d));
  child.stderr.on('data', (d) => (r.stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ ...r, status: code })));
}

// Servers this file started: killed at the end whatever happened, so a failed assertion cannot
// leave one running (and the test runner waiting for it).
const started: ReturnType<typeof spawn>[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Resolves when `read()` matches `re` (checked on every chunk), with the first group. */
function waitFor(stream: NodeJS.ReadableStream, read: () => string, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}: ${read()}`)), 20_000);
    const check = () => {
      const m = re.exec(read());
      if (m) {
        clearTimeout(timer);
        stream.off('data', check);
        resolve(m[1]);
      }
    };
    stream.on('data', check);
    check();
  });
}

/** Starts the server; resolves with its URL, the process and what it printed, once it listens. */
function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const c = node(['--port', '0', '--scale', '50', ...args], env);
  const child = spawn(c.cmd, c.args, { env: c.env });
  started.push(child);
  const out = { stdout: '', stderr: '' };
  child.stderr.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out.stdout += d;
      const m = /^listening on (http:\/\/\S+)$/m.exec(out.stdout);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening: ${out.stderr}`)));
  });
  return { child, out, url, exited };
}

test('--help prints usage and exits 0', () => {
  const r = run(['--help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /usage: npm run serve/);
  assert.match(r.stdout, /--fault NAME/);
  assert.match(r.stdout, /^Environment: CONSOLE_API_KEY/m);
  assert.match(r.stdout, /^Exit 0 .*, 3 /m);
});

test('bad arguments: one line on stderr, exit 3', async () => {
  const cases = [
    ['--port', 'abc'],
    ['--port', '70000'],
    ['--scale', '-1'],
    ['--fault', 'no-such-fault'],
    ['--variant', 'nope'],
    ['--bogus'],
    ['--seed', '1.5'],
    ['--db', '/nonexistent-dir/x/console.db'],
    ['--host', 'not a host!'],
    ['--fault', 'slow:noSuchOperation:25'],
    ['--fault', 'slow:listExperiments:x'],
    ['--latency', 'abc'],
    ['--latency', '40:-1'],
    ['--fault', 'gen:type:no.such.clause'],
    ['--generated'],
  ];
  const results = await Promise.all(cases.map(runAsync));
  for (const [i, args] of cases.entries()) {
    const r = results[i];
    assert.equal(r.status, 3, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^serve: /);
    assert.equal(r.stdout, '');
  }
  assert.equal(results[cases.findIndex((c) => c[0] === '--bogus')].stderr, 'serve: unknown option --bogus (see --help)\n');
});

test('--list-faults prints the faults and variants as JSON', () => {
  const r = run(['--list-faults']);
  assert.equal(r.status, 0);
  const list = JSON.parse(r.stdout);
  assert.deepEqual(
    list,
    JSON.parse(JSON.stringify({ faults: FAULTS, variants: VARIANTS, parametrised: PARAMETRISED_FAULTS })),
    'every fault and variant, as listed in reference/faults.ts',
  );
  assert.ok(list.parametrised.some((f: { name: string }) => f.name.startsWith('slow:')));
  assert.ok(list.faults.length >= 30 && list.variants.length >= 10);
  // With --generated: the generated faults too, each saying the edit it is made of (the list is longer
  // than a pipe's 64 KiB: it is read whole).
  const all = run(['--list-faults', '--generated']);
  assert.equal(all.status, 0, all.stderr);
  const both = JSON.parse(all.stdout);
  const generated = both.faults.filter((f: { generated?: string }) => f.generated);
  assert.ok(all.stdout.length > 65_536 && generated.length > 200, `${generated.length} generated in ${all.stdout.length} bytes`);
  assert.deepEqual(
    both.faults.filter((f: { generated?: string }) => !f.generated),
    list.faults,
  );
  assert.ok(generated.every((f: { name: string }) => f.name.startsWith('gen:')));
});

test('without a key, a random key is printed once on stderr and accepted; CONSOLE_API_KEY is used when set, --api-key before it', async () => {
  const s = start([]);
  const url = await s.url;
  const key = await waitFor(s.child.stderr!, () => s.out.stderr, /SERVICE-API-KEY (\S+)\n/);
  assert.ok(key && key.length >= 32, s.out.stderr);
  assert.ok(!s.out.stdout.includes(key), 'the key is never on stdout');
  assert.equal((await fetch(`${url}/console/v1/release_pipelines`, { headers: { 'SERVICE-API-KEY': key } })).status, 200);
  s.child.kill('SIGTERM');
  assert.equal(await s.exited, 0);

  const e = start([], { CONSOLE_API_KEY: 'env-key-0123456789' });
  const eurl = await e.url;
  assert.equal((await fetch(`${eurl}/console/v1/release_pipelines`, { headers: { 'SERVICE-API-KEY': 'env-key-0123456789' } })).status, 200);
  assert.ok(!e.out.stderr.includes('env-key'), 'a given key is not echoed');
  e.child.kill('SIGINT');
  assert.equal(await e.exited, 0);

  // --api-key wins over CONSOLE_API_KEY.
  const both = start(['--api-key', 'cli-key-0123456789'], { CONSOLE_API_KEY: 'env-key-0123456789' });
  const burl = await both.url;
  assert.equal((await fetch(`${burl}/console/v1/release_pipelines`, { headers: { 'SERVICE-API-KEY': 'cli-key-0123456789' } })).status, 200);
  assert.equal((await fetch(`${burl}/console/v1/release_pipelines`, { headers: { 'SERVICE-API-KEY': 'env-key-0123456789' } })).status, 401);
  both.child.kill('SIGTERM');
  assert.equal(await both.exited, 0);
});

test('--db FILE: WAL, one stdout line, SIGTERM exits 0, and writes survive a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ref-cli-'));
  const file = join(dir, 'console.db');
  const headers = { 'SERVICE-API-KEY': 'cli-key-0123456789', 'content-type': 'application/json' };
  try {
    const first = start(['--db', file, '--api-key', 'cli-key-0123456789']);
    const url = await first.url;
    const d = await fetch(`${url}/console/v1/gates/gate_cc_beta/disable`, { method: 'PUT', headers: { 'SERVICE-API-KEY': headers['SERVICE-API-KEY'] } });
    assert.equal((await d.json()).data.isEnabled, false);
    const m = await fetch(`${url}/console/v1/metrics`, { method: 'POST', headers, body: JSON.stringify({ name: 'cc_kept', type: TYPE }) });
    assert.equal(m.status, 200);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    assert.equal(first.out.stdout.trim().split('\n').length, 1, first.out.stdout);

    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    db.close();

    const second = start(['--db', file, '--api-key', 'cli-key-0123456789']);
    const url2 = await second.url;
    const g = await fetch(`${url2}/console/v1/gates/gate_cc_beta/rules`, { method: 'POST', headers, body: JSON.stringify({ rules: [] }) });
    assert.equal((await g.json()).data.isEnabled, false, 'the disable of the first run is still there');
    const again = await fetch(`${url2}/console/v1/metrics`, { method: 'POST', headers, body: JSON.stringify({ name: 'cc_kept', type: TYPE }) });
    assert.equal(again.status, 409, 'the metric of the first run is still there');
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
