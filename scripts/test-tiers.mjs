#!/usr/bin/env node
// The two tiers of the project's unit tests (node:test, *.test.ts):
//   process     a test that starts a process (the reference server, Artillery, Chromium, a CLI): it reaches
//               node:child_process through its own imports, directly or through the reference
//               launcher (core/reference.ts) or a runner. It runs in `npm test` only (test:unit).
//   in-process  every other test. It also runs in `npm run check` (test:fast), the inner loop.
// The tier is read from the import graph, not from a list or a file name, so it follows a test
// wherever it moves and cannot go stale; scripts/test-tiers.test.ts checks the rule.
// Plain .mjs, so that it runs under node as well as under tsx.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The project root, as core/config.ts's ROOT (which the runners import): written again here, unexported,
// because this file stays plain JavaScript.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Folders that hold no tests of the project: installed packages and tools (also every dot folder),
// and what runs write.
const SKIP_DIRS = new Set(['node_modules', 'reports', 'test-results', 'playwright-report', 'blob-report']);
const PROCESS_MODULES = new Set(['node:child_process', 'child_process']);

// Value imports and re-exports (`import type` / `export type` load nothing at run time), side-effect
// imports and dynamic imports with a literal specifier.
const IMPORT = /(?:^|[;\n])\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every *.test.ts of the project under `root`, wherever it is, relative to `root`, sorted. */
export function testFiles(root = ROOT) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(join(dir, entry.name));
      } else if (entry.name.endsWith('.test.ts')) {
        out.push(relative(root, join(dir, entry.name)));
      }
    }
  };
  walk(root);
  return out.sort();
}

/** The specifiers a source file imports at run time. */
export function importsOf(source) {
  return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
}

/** Whether `file` reaches node:child_process through its relative imports (followed transitively). */
export function startsProcesses(file) {
  const seen = new Set();
  const stack = [resolve(file)];
  while (stack.length > 0) {
    const path = stack.pop();
    if (seen.has(path)) continue;
    seen.add(path);
    for (const spec of importsOf(readFileSync(path, 'utf8'))) {
      if (PROCESS_MODULES.has(spec)) return true;
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(path), spec);
      if (/\.(ts|mjs|js)$/.test(target) && existsSync(target)) stack.push(target);
    }
  }
  return false;
}

/** The unit tests under `root`, by tier. */
export function tiers(root = ROOT) {
  const inProcess = [];
  const processes = [];
  for (const file of testFiles(root)) (startsProcesses(join(root, file)) ? processes : inProcess).push(file);
  return { inProcess, process: processes };
}

/** The in-process tier as one file of the process tier: it imports every in-process test into one process. */
export const IN_PROCESS_RUNNER = 'scripts/test-fast.mjs';

// The files of test:unit that take longest, longest first (CPU seconds of each alone, 2026-11-28,
// docs/measurements.md "npm test cut"; measured again where a file's tests were made cheaper). Two run
// at a time, each as it ends making way for the next in order, so a long file started last leaves a
// core idle until it ends (scripts/exit-codes.test.ts, 100 s of CPU, came last but one); started
// first, the short ones fill in beside them. Only an order: a file not named here runs too, after
// these, in path order.
const LONGEST_FIRST = [
  'scripts/exit-codes.test.ts',
  'scripts/ci/action.test.ts',
  'scripts/package.test.ts',
  'candidate/selftest.test.ts',
  'scripts/nightly.test.ts',
  // About 48 s of CPU but 2 min of wall time, mostly waiting on the runs it cuts: started early, the short files fill in beside it.
  'harness/reliability/cuts.test.ts',
  'harness/transport/transport.test.ts',
  IN_PROCESS_RUNNER,
  'load/command/load-verdict.test.ts',
  'candidate/latency-writes.test.ts',
  'harness/commands.test.ts',
  'load/command/baseline.test.ts',
  'candidate/latency.test.ts',
  'contracts/proof.test.ts',
  'contracts/merge-shards.test.ts',
];

/**
 * What test:unit runs, in its order: the process tier a file each and the in-process tier as one more
 * file (its runner), side by side two at a time, the longest first.
 */
export function unitRun(root = ROOT) {
  const files = [...tiers(root).process, IN_PROCESS_RUNNER];
  const rank = (f) => (LONGEST_FIRST.includes(f) ? LONGEST_FIRST.indexOf(f) : LONGEST_FIRST.length);
  return files.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tier = process.argv[2];
  if (tier !== 'in-process' && tier !== 'process' && tier !== 'unit') {
    console.error(
      'usage: node scripts/test-tiers.mjs in-process|process|unit   (prints the unit test files of that tier; unit: what test:unit runs, in order)',
    );
    process.exit(3);
  }
  const t = tiers();
  console.log((tier === 'in-process' ? t.inProcess : tier === 'process' ? t.process : unitRun()).join('\n'));
}
