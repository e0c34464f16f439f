#!/usr/bin/env node
// `npm run check`: the inner loop. Typecheck, lint, the licence check and the in-process unit tests,
// run side by side (each is mostly one core; the machine this suite targets has two; the licence check
// takes under a second), each one's output held back and printed only when it fails, then one line per
// stage. Exit 0 when all pass, 1 otherwise. The process-spawning tests, the conformance run and the rest are `npm test`.
import { spawn } from 'node:child_process';

const stages = [
  ['typecheck', 'tsc --strict: tsconfig.json'],
  ['lint', 'Biome lint and format check (biome.jsonc)'],
  ['licenses:check', 'every installed package permissively licensed (npm, Biome, Chromium, .venv)'],
  ['test:fast', 'the in-process unit tests (scripts/test-tiers.mjs)'],
];

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`usage: npm run check

Runs these npm scripts side by side and prints the output of any that fails; exit 0 when all pass, 1 otherwise.

${stages.map(([script, what]) => `  ${script.padEnd(15)} ${what}`).join('\n')}`);
  process.exit(0);
}

function run(script) {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => done({ script, ok: code === 0, output, seconds: (Date.now() - started) / 1000 }));
  });
}

const started = Date.now();
const results = await Promise.all(stages.map(([script]) => run(script)));
for (const r of results.filter((x) => !x.ok)) console.log(`\n=== check: ${r.script} failed\n${r.output.trimEnd()}`);
console.log('');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.script.padEnd(15)} ${r.seconds.toFixed(1)}s`);
const failed = results.filter((r) => !r.ok).length;
console.log(`check: ${failed === 0 ? 'PASS' : `${failed} of ${results.length} failed`} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
process.exit(failed === 0 ? 0 : 1);
