#!/usr/bin/env node
// `npm test`: the project's own tests, in order, stopping at the first failing stage.
// Plain .mjs (not .ts) so that it runs before anything else is known to work.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

// Each stage is an npm script; together they are the whole of `npm test` (README, "Project tests").
const stages = [
  ['contracts:check', 'generated schemas are fresh and compile under Ajv2020 strict'],
  ['contracts:lint', 'openapi.yaml is lint-clean under Redocly'],
  ['typecheck', 'TypeScript strict typecheck (tsconfig.json: every folder, load/ included)'],
  ['lint', 'Biome lint and format check (biome.jsonc): no errors, formatted'],
  ['test:unit', 'unit tests (node:test): contract, clauses, reference server, reliability, scripts'],
  ['clauses:coverage', 'every stated clause of contracts/clauses.yaml has a conformance test'],
  ['fuzz:smoke', 'seeded fuzz of the reference server: no 5xx, error shape, nothing persisted'],
  ['conformance:strict', 'the conformance suite against the reference server, --strict'],
  // Grouped: the strict-pass variants share a server per group (contracts/selftest-groups.ts), about half the time.
  ['conformance:selftest', 'the suite fails against every injected fault and passes every legal variant (variants in groups)', ['--grouped']],
  ['crosscheck', 'Schemathesis (pinned, in .venv) finds no failure of the reference server against contracts/openapi.yaml'],
  ['load:smoke', 'paging and mutation smoke profiles on Artillery against the reference, compared with the baselines'],
  ['report:test', 'reports/index.html of a real verify run (one injected fault) in Debian Chromium: verdict, filters, failure evidence, load, no network'],
  ['scan:secrets', 'nothing the run wrote holds the API key'],
];

const only = process.argv.slice(2);
if (only.includes('--help') || only.includes('-h')) {
  console.log(`usage: npm test [-- STAGE...]

Runs the project's own tests, stage by stage in this order, stopping at the first that fails;
with STAGE names, only those. Exit 0 when every stage run passed, 1 otherwise, 3 on an unknown stage.

${stages.map(([script, what]) => `  ${script.padEnd(22)} ${what}`).join('\n')}`);
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
const started = Date.now();
const results = [];
for (const [script, what, args = []] of stages) {
  if (only.length > 0 && !only.includes(script)) continue;
  const t0 = Date.now();
  console.log(`\n=== npm test: ${script} (${what})`);
  const r = spawnSync('npm', ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])], { stdio: 'inherit', env });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  const ok = r.status === 0;
  results.push({ script, ok, seconds });
  if (!ok) break;
}
console.log('\n=== npm test summary');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.script.padEnd(22)} ${r.seconds}s`);
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`total ${((Date.now() - started) / 1000).toFixed(1)}s`);
// The plain closing line CI reads: stages passed and failed.
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length > 0 ? 0 : 1);
