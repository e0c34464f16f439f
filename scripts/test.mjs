#!/usr/bin/env node
// `npm test`: the project's own tests, in order, stopping at the first failing stage.
// Plain .mjs (not .ts) so that it runs before anything else is known to work.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Each stage is an npm script; together they are the whole of `npm test` (docs/testing.md). Stages
// next to each other that are marked (static: they read the tree; servers: they start servers of their
// own on port 0 and write temporary files) run at the same time as one batch: none of them is timed
// against a baseline, and crosscheck keeps about one core busy for half a minute while the static ones
// take the other (load:smoke and report:test, which are timed, run alone, as do test:unit and the
// self-test, which fill both cores).
const stages = [
  ['contracts:check', 'what contracts:build generates from the spec is fresh; the schemas compile under Ajv2020 strict', [], 'static'],
  ['contracts:lint', 'openapi.yaml is lint-clean under Redocly', [], 'static'],
  ['typecheck', 'TypeScript strict typecheck (tsconfig.json: every file of every folder)', [], 'static'],
  ['lint', 'Biome lint and format check (biome.jsonc): no errors, formatted', [], 'static'],
  ['clauses:coverage', 'every stated clause of contracts/clauses.yaml has a conformance test', [], 'static'],
  ['fuzz:smoke', 'seeded fuzz of the reference server: no 5xx, error shape, nothing persisted', [], 'servers'],
  ['crosscheck', 'Schemathesis (pinned, in .venv) finds no failure of the reference server against contracts/openapi.yaml', [], 'servers'],
  ['test:unit', 'unit tests (node:test): every *.test.ts of the repository, both tiers'],
  ['conformance:strict', 'the conformance suite against the reference server, --strict'],
  // Grouped: the strict-pass variants share a server per group (contracts/selftest-groups.ts), about half the time.
  ['conformance:selftest', 'the suite fails against every injected fault and passes every legal variant (variants in groups)', ['--grouped']],
  ['load:smoke', 'paging and mutation smoke profiles on Artillery against the reference, compared with the baselines'],
  ['report:test', 'reports/index.html of a real verify run (one injected fault) in Debian Chromium: verdict, filters, failure evidence, load, no network'],
  ['scan:secrets', 'nothing the run wrote holds the API key'],
];

const only = process.argv.slice(2);
if (only.includes('--help') || only.includes('-h')) {
  console.log(`usage: npm test [-- STAGE...]

Runs the project's own tests, stage by stage in this order, stopping at the first that fails;
with STAGE names, only those. Marked stages next to each other ([static], [servers]) run at the
same time, each one's output printed when it ends. Exit 0 when every stage run passed, 1 otherwise, 3 on an
unknown stage.

${stages.map(([script, what, , together]) => `  ${script.padEnd(22)} ${together ? `[${together}] ` : ''}${what}`).join('\n')}`);
  process.exit(0);
}
const unknown = only.filter((name) => !stages.some(([script]) => script === name));
if (unknown.length > 0) {
  console.error(`npm test: no stage named ${unknown.join(', ')} (stages: ${stages.map(([s]) => s).join(', ')})`);
  process.exit(3);
}
// One key for the whole run: every stage's reference server uses it, and the last stage
// (scan:secrets) looks for it in everything the run wrote. It travels only in the environment.
const env = { ...process.env };
if (!env.CONSOLE_BASE_URL && !env.CONSOLE_API_KEY) env.CONSOLE_API_KEY = `cc_test_${randomBytes(24).toString('hex')}`;
// Node 22 and later keep the compiled code of the modules every process loads (Playwright's and
// Artillery's bundles are most of a run's start-up) in this folder, for the next process; Node 20 has no
// such cache and ignores the variable. Measured on Node 24: five fault runs of the self-test kind 6.2 s
// without it, 4.7 s with it (9.1 s on Node 20; docs/measurements.md).
env.NODE_COMPILE_CACHE ??= join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.cache', 'node-compile-cache');
const started = Date.now();
const results = [];

/** One stage: its output straight through when it runs alone, held back and printed at its end when not. */
function run([script, what, args = []], alone) {
  const t0 = Date.now();
  const argv = ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])];
  if (alone) console.log(`\n=== npm test: ${script} (${what})`);
  return new Promise((done) => {
    const child = spawn('npm', argv, { stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'], env });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      if (!alone) console.log(`\n=== npm test: ${script} (${what})\n${output.trimEnd()}`);
      done({ script, ok: code === 0, seconds: ((Date.now() - t0) / 1000).toFixed(1) });
    });
  });
}

const chosen = stages.filter(([script]) => only.length === 0 || only.includes(script));
for (let i = 0; i < chosen.length; ) {
  let j = i + 1;
  while (chosen[i][3] && j < chosen.length && chosen[j][3]) j++;
  const batch = chosen.slice(i, j);
  results.push(...(await Promise.all(batch.map((stage) => run(stage, batch.length === 1)))));
  i = j;
  if (results.some((r) => !r.ok)) break;
}
console.log('\n=== npm test summary');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.script.padEnd(22)} ${r.seconds}s`);
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`total ${((Date.now() - started) / 1000).toFixed(1)}s`);
// The plain closing line CI reads: stages passed and failed.
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length > 0 ? 0 : 1);
