// The unit-test tiers (scripts/test-tiers.mjs): a test that reaches node:child_process through its
// imports is a process test (npm test only); every other runs in `npm run check` too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { IN_PROCESS_RUNNER, importsOf, startsProcesses, testFiles, tiers, unitRun } from './test-tiers.mjs';

test('a test is a process test when it reaches node:child_process through its value imports, at any depth', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'cc-tiers-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'core/launcher.ts': "import { spawn } from 'node:child_process';\nexport const start = () => spawn('true');\n",
    'core/runner.ts': "export { start } from './launcher.ts';\n",
    'core/pure.ts': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
    'reference/direct.test.ts': "import { execFileSync } from 'child_process';\n",
    'reference/deep.test.ts': "import {\n  start,\n} from '../core/runner.ts';\n",
    'reference/dynamic.test.ts': "const m = await import('../core/launcher.ts');\n",
    'reference/side-effect.test.ts': "import '../core/launcher.ts';\n",
    'reference/types-only.test.ts': "import type { start } from '../core/launcher.ts';\nimport { read } from '../core/pure.ts';\n",
    'scripts/pure.test.ts': "import { test } from 'node:test';\nimport { read } from '../core/pure.ts';\nconst s = 'spawn from \"node:child_process\"';\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  assert.deepEqual(tiers(root), {
    inProcess: ['reference/types-only.test.ts', 'scripts/pure.test.ts'],
    process: ['reference/deep.test.ts', 'reference/direct.test.ts', 'reference/dynamic.test.ts', 'reference/side-effect.test.ts'],
  });
  assert.equal(startsProcesses(join(root, 'core/pure.ts')), false);
  assert.deepEqual(importsOf(files['reference/types-only.test.ts']), ['../core/pure.ts']);
});

test("the project's unit tests fall into exactly one tier each, and both tiers hold tests", () => {
  const all = testFiles(ROOT);
  const { inProcess, process } = tiers(ROOT);
  assert.deepEqual([...inProcess, ...process].sort(), all);
  assert.equal(new Set(all).size, all.length);
  assert.ok(inProcess.length >= 10 && process.length >= 10, `in-process ${inProcess.length}, process ${process.length}`);
});

test('test:unit runs both tiers the tiers find (no folder list): the in-process one in one process, beside the process one a file each; check runs test:fast', () => {
  const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  // A folder list in test:unit would leave out the tests of a folder added after it.
  assert.equal(scripts['test:unit'], 'tsx scripts/test-unit.mjs');
  assert.match(readFileSync(join(ROOT, 'scripts/test-unit.mjs'), 'utf8'), /run\(\{ files: unitRun\(\)/);
  // Every process test once, and the in-process tier's runner once; the longest first.
  const run = unitRun(ROOT);
  assert.deepEqual([...run].sort(), [...tiers(ROOT).process, IN_PROCESS_RUNNER].sort());
  assert.equal(new Set(run).size, run.length);
  assert.equal(run[0], 'scripts/exit-codes.test.ts');
  assert.ok(run.indexOf(IN_PROCESS_RUNNER) < run.indexOf('core/reference.test.ts'), 'the in-process tier before the short process tests');
  assert.ok(testFiles(ROOT).includes('scripts/test-tiers.test.ts'));
  assert.ok(!testFiles(ROOT).some((f) => f.includes('node_modules')));
  assert.match(scripts['test:fast'], /^tsx (--test-reporter=\S+ )?scripts\/test-fast\.mjs$/);
  assert.match(readFileSync(join(ROOT, 'scripts/test-fast.mjs'), 'utf8'), /tiers\(\)\.inProcess/);
  assert.equal(scripts.check, 'node scripts/check.mjs');
  const check = readFileSync(join(ROOT, 'scripts/check.mjs'), 'utf8');
  for (const stage of ['typecheck', 'lint', 'test:fast']) assert.ok(check.includes(`['${stage}', `), `npm run check runs ${stage}`);
});

test('typecheck and lint take every source file wherever it is: tsconfig.json and biome.jsonc name patterns, not folders', () => {
  // A folder list leaves out a folder added after it (candidate/ was, from both); exclusions are what is
  // installed, generated or written by a run.
  const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[]; exclude: string[] };
  assert.deepEqual(tsconfig.include, ['**/*.ts', '**/*.mts']);
  const biome = readFileSync(join(ROOT, 'biome.jsonc'), 'utf8');
  const includes = JSON.parse(/"includes": (\[[^\]]*\])/.exec(biome)![1]) as string[];
  assert.deepEqual(
    includes.filter((p) => !p.startsWith('!')),
    ['**/*.ts', '**/*.mts', '**/*.mjs'],
  );
  for (const p of includes.filter((x) => x.startsWith('!')))
    assert.ok(!testFiles(ROOT).some((f) => f.startsWith(`${p.slice(1)}/`)), `biome.jsonc leaves out ${p.slice(1)}/, which holds tests`);
});
