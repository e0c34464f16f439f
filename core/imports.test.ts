// Folders import each other only through the kernel (core/) and the contract's typed index
// (contracts/index.ts), so a folder can be read, moved or replaced knowing only those two. scripts/
// (the commands) and harness/ (fuzz, reliability, benchmarks, crosscheck: they drive the whole system,
// the reference server's internals included) may import anything; nothing imports them. The load
// profiles run in Node (Artillery's workers, their processor bundled by esbuild) and follow the rule
// of every folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './config.ts';
import { repositoryFiles } from './repository-files.ts';

const CONTRACT_INDEX = 'contracts/index.ts';

/** The TypeScript modules of the repository (declaration files declare, they import nothing that runs). */
const tsFiles = () => repositoryFiles().filter((f) => /\.(ts|mts)$/.test(f) && !f.endsWith('.d.ts'));

/** Every relative module specifier of a file: static imports and exports, and dynamic import(). */
export function specifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm,
  )) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec.startsWith('.')) out.push(spec);
  }
  return out;
}

/** The folders that drive the rest and may import anything. */
const DRIVERS = new Set(['scripts', 'harness']);
/**
 * Modules a folder may import beyond core/ and the contract index, each named: candidate/ (current
 * against candidate) runs the conformance runner on each side, the reference's list of switches for its
 * self-test, the load statistics for its latency ratios and the load runner (load/command/run-plan.ts, with
 * load/command/plan.ts's paired plan) of its side-by-side latency. Nothing imports candidate/.
 */
const ENTRY_POINTS: Record<string, Set<string>> = {
  candidate: new Set([
    'contracts/conformance-run.ts',
    'contracts/selftest-runs.ts',
    'load/compare/stats.ts',
    'load/command/plan.ts',
    'load/command/run-plan.ts',
  ]),
};
const top = (rel: string) => (rel.includes('/') ? rel.split('/')[0] : '.');

/** Why an import from `file` to `target` (both relative to the root) crosses a line it should not; undefined when it is fine. */
export function crossing(file: string, target: string): string | undefined {
  const from = top(file);
  const to = top(target);
  if (from === to || DRIVERS.has(from)) return undefined;
  if (to === 'core' || target === CONTRACT_INDEX || ENTRY_POINTS[from]?.has(target)) return undefined;
  if (to === 'candidate') return 'imports candidate/ (it drives the conformance runner, never the reverse)';
  return DRIVERS.has(to) ? `imports ${to}/ (it drives the folders, never the reverse)` : `imports ${to}/ other than through core/ or ${CONTRACT_INDEX}`;
}

test('crossing: the rule itself', () => {
  assert.equal(crossing('contracts/support/suite-test.ts', 'core/config.ts'), undefined);
  assert.equal(crossing('reference/schemas.ts', 'contracts/index.ts'), undefined);
  assert.equal(crossing('scripts/verify.ts', 'contracts/support/reporter.ts'), undefined);
  assert.equal(crossing('contracts/support/junit.ts', 'contracts/support/reporter.ts'), undefined);
  assert.match(crossing('contracts/selftest.ts', 'scripts/lib/progress.ts')!, /scripts/);
  assert.equal(crossing('harness/fuzz/run.ts', 'reference/app.ts'), undefined);
  assert.match(crossing('reference/app.ts', 'harness/fuzz/contract.ts')!, /harness/);
  assert.match(crossing('fixtures/generate.ts', 'contracts/support/validators.ts')!, /contracts/);
  assert.equal(crossing('load/paging.ts', 'core/config.ts'), undefined);
  assert.match(crossing('load/paging.ts', 'report/timeseries.ts')!, /other than through core/);
  assert.equal(crossing('load/lib/checks.ts', 'core/transport-rule.ts'), undefined);
  assert.equal(crossing('load/lib/checks.ts', 'load/data/validators.js'), undefined);
  assert.equal(crossing('load/compare/samples.test.ts', 'core/reference.ts'), undefined);
  assert.match(crossing('load/compare/detect.ts', 'scripts/baseline.ts')!, /scripts/);
  assert.match(crossing('playwright.config.ts', 'contracts/support/reporter.ts')!, /contracts/);
  assert.equal(crossing('candidate/run.ts', 'contracts/conformance-run.ts'), undefined);
  assert.match(crossing('candidate/run.ts', 'contracts/support/reporter.ts')!, /contracts/);
  assert.match(crossing('contracts/conformance-run.ts', 'candidate/run.ts')!, /candidate/);
});

test('specifiers: static, re-exported, side-effect and dynamic imports', () => {
  const src = `import a from './a.ts';\nimport type { B } from "../b.ts";\nexport { c } from './c.ts';\nimport './d.ts';\nconst e = await import('./e.ts');\nimport x from 'node:fs';`;
  assert.deepEqual(specifiers(src).sort(), ['../b.ts', './a.ts', './c.ts', './d.ts', './e.ts']);
});

test('no file imports across folders except through core/ and the contract index', () => {
  const problems: string[] = [];
  let seen = 0;
  for (const file of tsFiles()) {
    const path = join(ROOT, file);
    for (const spec of specifiers(readFileSync(path, 'utf8'))) {
      seen++;
      const target = relative(ROOT, resolve(dirname(path), spec));
      const why = crossing(file, target);
      if (why) problems.push(`${file} -> ${target}: ${why}`);
    }
  }
  assert.ok(seen > 200, `only ${seen} imports found: the scan is not reading the sources`);
  assert.deepEqual(problems, []);
});

test("a clause's level has one type, core/formats.ts's Level", () => {
  const declaring = tsFiles().filter((file) => /^export type Level\s*=/m.test(readFileSync(join(ROOT, file), 'utf8')));
  assert.deepEqual(declaring, ['core/formats.ts']);
});

/**
 * The ways an order statistic has been written by hand in this project, each named: interpolating
 * between two order statistics, reading the element at a fraction of the count (nearest rank), and
 * reading the middle element or pair. Two "p95"s or medians written two ways come to differ.
 */
export const HAND_QUANTILE: Record<string, RegExp> = {
  interpolation: /\(\w+ - \w+\) \* \(\w+\[\w+\] - \w+\[\w+\]\)/,
  'nearest rank': /\[\s*(?:Math\.min\([^,\]\n]+,\s*)?Math\.(?:ceil|floor|round)\(\s*(?:0?\.\d+\s*\*\s*[\w.]+\.length|[\w.]+\.length\s*(?:\*\s*0?\.\d+|\/\s*2))/,
  'middle element': /\[\s*\(?[\w.]+\.length\s*(?:-\s*1\s*\)\s*)?\/\s*2(?:\s*-\s*1)?\s*\]|\.length\s*%\s*2\b/,
};

/** The names of the hand-written order statistics in `source` (none: []). */
export function handQuantiles(source: string): string[] {
  return Object.entries(HAND_QUANTILE)
    .filter(([, re]) => re.test(source))
    .map(([name]) => name);
}

test('handQuantiles: each way a median or p95 was once written by hand is found, a random pick is not', () => {
  // The forms report/timeseries.ts, harness/bench/scale.ts and harness/bench/power-judge.ts had.
  assert.deepEqual(handQuantiles('return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)];'), ['nearest rank']);
  assert.deepEqual(handQuantiles('const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];'), ['nearest rank']);
  assert.deepEqual(handQuantiles('e.length % 2 ? e[(e.length - 1) / 2] : (e[e.length / 2 - 1] + e[e.length / 2]) / 2'), ['middle element']);
  assert.deepEqual(handQuantiles('return asc[lo] + (h - lo) * (asc[hi] - asc[lo]);'), ['interpolation']);
  assert.deepEqual(handQuantiles('pick: (xs) => xs[Math.floor(next() * xs.length)]'), []);
  assert.deepEqual(handQuantiles('randomOf(alphabet, Math.max(1, Math.floor(key.length / 2)))'), []);
});

test('a quantile is computed in one place, core/quantile.ts', () => {
  // Every other file calls quantile, quantileSorted or median from there. Tests may state an
  // expected figure by hand; load/compare/stats.ts's bootstrapMedian draws a resample's median
  // from the Beta distribution of its order statistics, which no sorted array gives.
  const hand = Object.fromEntries(
    tsFiles()
      .filter((file) => !file.endsWith('.test.ts'))
      .map((file) => [file, handQuantiles(readFileSync(join(ROOT, file), 'utf8'))] as const)
      .filter(([, found]) => found.length > 0),
  );
  assert.deepEqual(hand, { 'core/quantile.ts': ['interpolation'] });
});
