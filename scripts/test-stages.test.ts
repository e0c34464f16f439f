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
