// The commands on core/command.ts outside scripts/, run as package.json runs them: `--help` prints
// usage naming the environment and the exit codes, exit 0; an unknown option is one line naming the
// command, exit 3, and nothing else happens (no server, no Schemathesis, no file written).
// (npm run serve has its own, reference/cli.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

/** npm script -> the name its one-line mistakes start with. */
const SCRIPTS: Record<string, string> = {
  fuzz: 'fuzz',
  'fuzz:smoke': 'fuzz',
  'reliability:crash': 'reliability:crash',
  'reliability:concurrency': 'reliability:concurrency',
  'reliability:memory': 'reliability:memory',
  crosscheck: 'crosscheck',
  'clauses:coverage': 'clauses:coverage',
  'clauses:proof': 'clauses:proof',
  'contracts:build': 'contracts:build',
  'contracts:check': 'contracts:check',
  'bench:server': 'bench:server',
  'bench:transport': 'bench:transport',
  'bench:power': 'bench:power',
  'bench:nights': 'bench:nights',
  'manifest:check': 'manifest:check',
  'load:testrun': 'load:testrun',
  'load:cloud': 'load:cloud',
  'bench:runners': 'bench:runners',
  'bench:export': 'bench:export',
};

/** The command line of each: package.json's `tsx FILE ARGS...`, plus fixtures/generate.ts and load/lib/build-validators.ts, which have no script. */
function commands(): { name: string; argv: string[] }[] {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  const out = Object.entries(SCRIPTS).map(([script, name]) => {
    const m = /^tsx (\S+)((?: [^\s;&|]+)*)$/.exec(scripts[script] ?? '');
    assert.ok(m, `package.json: ${script} is not "tsx FILE ARGS...": ${scripts[script]}`);
    return { name, argv: [m[1], ...m[2].split(' ').filter(Boolean)] };
  });
  return [...out, { name: 'generate', argv: ['fixtures/generate.ts'] }, { name: 'build-validators', argv: ['load/lib/build-validators.ts'] }];
}

function run(argv: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  // `tsx FILE` starts a second node that runs FILE under tsx's loader; `node --import tsx FILE` is that
  // second node alone: the same loader and output, one start-up instead of two for each of the 44 runs.
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, ...argv], { cwd: ROOT, env: clean });
  const r = { status: null as number | null, stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (r.stdout += d));
  child.stderr.on('data', (d) => (r.stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ ...r, status: code })));
}

test('every command: --help is usage with its environment and exit codes (exit 0); --bogus is one line and exit 3', async () => {
  const list = commands();
  // Together: each is mostly tsx start-up.
  const results = await Promise.all(list.flatMap((c) => [run([...c.argv, '--help']), run([...c.argv, '--bogus'])]));
  for (const [i, c] of list.entries()) {
    const [help, bogus] = [results[2 * i], results[2 * i + 1]];
    const what = c.argv.join(' ');
    assert.equal(help.status, 0, `${what} --help: ${help.stderr}`);
    assert.match(help.stdout, /^usage: /, what);
    assert.match(help.stdout, /^Environment: /m, what);
    assert.match(help.stdout, /^Exit 0 [\s\S]*\b3\b/m, what);
    assert.equal(bogus.status, 3, `${what} --bogus: ${bogus.stdout}${bogus.stderr}`);
    assert.equal(bogus.stderr, `${c.name}: unknown option --bogus (see --help)\n`, what);
    assert.equal(bogus.stdout, '', what);
  }
});

test('target:check, the first name of manifest:check, still runs the same command', () => {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  assert.equal(scripts['target:check'], scripts['manifest:check']);
});

test('clauses:proof: a mistake in its options, or no map to verify, is one line and exit 3 before any run', async () => {
  const proof = (...args: string[]) => run(['contracts/proof.ts', ...args]);
  const [lanes, sample, verify] = await Promise.all([proof('--lanes', '0'), proof('--sample', '3'), proof('--verify', join(ROOT, 'no-such-map.json'))]);
  assert.equal(lanes.status, 3);
  assert.equal(lanes.stderr, 'clauses:proof: --lanes must be an integer of at least 1, got "0"\n');
  assert.equal(sample.status, 3);
  assert.equal(sample.stderr, 'clauses:proof: --sample and --seed go with --verify\n');
  assert.equal(verify.status, 3);
  assert.match(verify.stderr, /^clauses:proof: no proof map at \S*no-such-map\.json \(make one with npm run clauses:proof\)\n$/);
  for (const r of [lanes, sample, verify]) assert.equal(r.stdout, '');
});
