// `npm test` (scripts/test.mjs): its stages are the ones docs/testing.md lists, in the same
// order, and its arguments are checked before anything runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';

const runTests = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), ...args], { cwd: ROOT, encoding: 'utf8' });

/** Stage names from `--help`: the lines `  name   what it checks`. */
function stagesFromHelp(): string[] {
  const run = runTests('--help');
  assert.equal(run.status, 0, run.stderr);
  return run.stdout
    .split('\n')
    .filter((l) => /^ {2}\S/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]);
}

test('npm test --help lists the stages that docs/testing.md lists, in its order', () => {
  const section = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8');
  const listed = [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]);
  const stages = stagesFromHelp();
  assert.ok(stages.length >= 10, `stages read from --help: ${stages.join(', ')}`);
  assert.deepEqual(listed, stages);
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  for (const s of stages) assert.ok(scripts[s], `stage ${s} is not an npm script`);
});

test('npm test with an unknown stage name exits 3 with one line, and runs nothing', () => {
  const run = runTests('contracts:check', 'no-such-stage');
  assert.equal(run.status, 3);
  assert.equal(run.stdout, '');
  assert.match(run.stderr.trim(), /^npm test: no stage named no-such-stage \(stages: contracts:check, /);
  assert.equal(run.stderr.trim().split('\n').length, 1);
});

test('npm test runs the stages of one [group] side by side, each output whole under its header, and counts each', () => {
  const help = runTests('--help').stdout;
  // The stages timed against a baseline, and those that fill both cores, run alone.
  for (const alone of ['test:unit', 'conformance:strict', 'conformance:selftest', 'load:smoke', 'report:test', 'scan:secrets'])
    assert.match(help, new RegExp(`^ {2}${alone} +(?!\\[)`, 'm'), `${alone} runs alone`);
  const run = runTests('contracts:check', 'clauses:coverage');
  assert.equal(run.status, 0, run.stdout + run.stderr);
  for (const stage of ['contracts:check', 'clauses:coverage']) {
    assert.match(run.stdout, new RegExp(`=== npm test: ${stage} \\(`));
    assert.match(run.stdout, new RegExp(`^ok +${stage} +\\d+\\.\\ds$`, 'm'));
  }
  // Side by side: the whole took less than the two one after the other would have.
  const seconds = [...run.stdout.matchAll(/^ok +\S+ +(\d+\.\d)s$/gm)].map((m) => Number(m[1]));
  const total = Number(/^total (\d+\.\d)s$/m.exec(run.stdout)?.[1]);
  assert.ok(total < seconds[0] + seconds[1], `total ${total} s, stages ${seconds.join(' s and ')} s`);
  assert.match(run.stdout, /\n2 passed, 0 failed\n$/);
});
