import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
