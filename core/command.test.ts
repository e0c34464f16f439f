import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from './config.ts';
import { parseCommand, parseKnown } from './command.ts';

const spec = { name: 'x', help: 'usage: x', options: { strict: { type: 'boolean' }, deadline: { type: 'string' } } } as const;

test('parseKnown: its own options taken out, everything else passed on in order', () => {
  const { values, rest } = parseKnown(spec, ['--grep', 'metrics', '--deadline', '5', '--strict', '--repeat-each', '3', 'file.spec.ts']);
  assert.deepEqual({ ...values }, { deadline: '5', strict: true });
  assert.deepEqual(rest, ['--grep', 'metrics', '--repeat-each', '3', 'file.spec.ts']);
  assert.deepEqual(parseKnown(spec, ['--deadline=7', '--shard', '1/2']).rest, ['--shard', '1/2']);
  assert.equal(parseKnown(spec, ['--deadline=7']).values.deadline, '7');
});

test('parseCommand: values and operands', () => {
  const { values, positionals } = parseCommand({ ...spec, positionals: true }, ['--deadline', '9', 'a', 'b']);
  assert.equal(values.deadline, '9');
  assert.deepEqual(positionals, ['a', 'b']);
});

/** A command made of the helper alone, run as a process: what the user sees and the exit code. (With -e, argv[1] is the first operand: `demo` stands in for the script.) */
function command(args: string[]) {
  const script = `import { parseCommand, runCommand } from './core/command.ts'; const { values } = parseCommand({ name: 'demo', help: 'usage: demo', options: { n: { type: 'string' } } }); runCommand('demo', () => { if (values.n === 'boom') throw new Error('it broke\\nsecond line'); return Number(values.n ?? 0); });`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, '--', 'demo', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("a command: --help is exit 0, a mistake or a thrown error one line and exit 3, else the work's code", () => {
  assert.deepEqual(command(['--help']), { code: 0, out: 'usage: demo\n', err: '' });
  assert.deepEqual(command(['--bogus']), { code: 3, out: '', err: 'demo: unknown option --bogus (see --help)\n' });
  assert.deepEqual(command(['--n', 'boom']), { code: 3, out: '', err: 'demo: it broke second line\n' });
  assert.equal(command(['--n', '2']).code, 2);
  assert.equal(command(['--n']).code, 3);
});

test('a command that reaches a target: the options of its environment variables set them, paths made absolute', () => {
  const names = [
    'CONSOLE_BASE_URL',
    'CONSOLE_API_KEY',
    'CONSOLE_TARGET_MANIFEST',
    'CONSOLE_REPORTS_DIR',
    'CONSOLE_REQUEST_TIMEOUT',
    'CONSOLE_ALLOW_REMOTE_LOAD',
  ];
  const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  const dir = mkdtempSync(join(tmpdir(), 'cc-command-'));
  try {
    writeFileSync(join(dir, 'key'), 'cc_from_a_file\nignored second line\n');
    const { values } = parseCommand({ ...spec, target: true }, [
      '--strict',
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key-file',
      join(dir, 'key'),
      '--manifest',
      'staging.json',
      '--reports-dir',
      'out',
      '--request-timeout',
      '5',
      '--allow-remote-load',
    ]);
    assert.equal(values.strict, true);
    assert.deepEqual(
      names.map((n) => process.env[n]),
      ['http://127.0.0.1:9', 'cc_from_a_file', resolve('staging.json'), resolve('out'), '5', '1'],
    );
  } finally {
    for (const n of names)
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A command that reaches a target, run as a process. */
function targetCommand(args: string[]) {
  const script = `import { parseCommand } from './core/command.ts'; parseCommand({ name: 'demo', help: 'usage: demo', options: {}, target: true }); console.log(process.env.CONSOLE_BASE_URL);`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, '--', 'demo', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('the key is never an option: --api-key is refused in one line, an unreadable key file too; --help lists the target options', () => {
  const refused = targetCommand(['--api-key', 'cc_secret_value']);
  assert.equal(refused.code, 3);
  assert.match(refused.err, /^demo: the key is never an option .* CONSOLE_API_KEY or give --api-key-file FILE\n$/);
  assert.doesNotMatch(refused.err + refused.out, /cc_secret_value/);
  const missing = targetCommand(['--api-key-file', '/nonexistent/key']);
  assert.deepEqual([missing.code, missing.err], [3, 'demo: --api-key-file: cannot read /nonexistent/key (ENOENT)\n']);
  const help = targetCommand(['--help']);
  assert.equal(help.code, 0);
  for (const option of ['--base-url URL', '--api-key-file FILE', '--manifest FILE', '--reports-dir DIR', '--request-timeout SECONDS', '--allow-remote-load'])
    assert.ok(help.out.includes(option), option);
});
