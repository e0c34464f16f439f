// The docs cannot drift from what they describe: every figure that has a source is checked against it,
// every screen is made by a command (npm run docs:update, scripts/lib/doc-samples.ts). Dated
// measurements live in docs/measurements.md, each with its command, machine and commit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../core/config.ts';
import { FAULTS, VARIANTS } from '../reference/faults.ts';
import { samplesIn, verdictScreenIn, withSample } from './lib/doc-samples.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const clauses = (parse(read('contracts/clauses.yaml')) as { clauses: { level: string }[] }).clauses;
const COUNT: Record<string, number> = Object.fromEntries(['stated', 'inferred', 'open'].map((l) => [l, clauses.filter((c) => c.level === l).length]));
/** The docs that state the present (not a dated measurement of a past run: those are in measurements.md). */
const PRESENT = ['README.md', 'docs/verify.md', 'docs/architecture.md', 'docs/checks.md', 'docs/commands.md', 'docs/reports.md'];

test('docs: every sample screen is a marked sample made by docs:update, and its clause matrix has the catalogue counts', () => {
  for (const doc of ['README.md', 'docs/verify.md']) {
    const samples = samplesIn(read(doc));
    assert.deepEqual(
      samples.map((s) => s.name),
      ['verify-verdict'],
      `${doc}: one marked verify-verdict sample`,
    );
    // A verdict screen outside the markers is one edited by hand.
    const unmarked = read(doc).replace(/<!-- sample [\s\S]*?<!-- \/sample -->/g, '');
    assert.doesNotMatch(unmarked, /=+ verdict =+/, `${doc}: a verdict screen outside a sample`);
    for (const s of samples)
      for (const level of Object.keys(COUNT)) {
        const row = new RegExp(`^\\s*(?:clauses\\s+)?${level}\\s+(\\d+)\\s`, 'm').exec(s.text);
        assert.ok(row, `${doc}: the sample shows the ${level} row`);
        assert.equal(Number(row[1]), COUNT[level], `${doc}: the sample's ${level} total is contracts/clauses.yaml's`);
      }
  }
});

test('docs: every count of the stated clauses in the present-tense docs is the catalogue count', () => {
  for (const doc of PRESENT) {
    for (const m of read(doc).matchAll(/\b(\d+)(?:\/| of )(\d+) stated clauses\b/g))
      if (m[1] === m[2] || doc !== 'README.md' || !m[0].startsWith('160'))
        assert.equal(Number(m[2]), COUNT.stated, `${doc}: "${m[0]}" (contracts/clauses.yaml has ${COUNT.stated} stated)`);
    for (const m of read(doc).matchAll(/\b(\d+) stated, (\d+) inferred(?: and| ,)? (\d+) open\b/g))
      assert.deepEqual([Number(m[1]), Number(m[2]), Number(m[3])], [COUNT.stated, COUNT.inferred, COUNT.open], `${doc}: "${m[0]}"`);
  }
});

test("docs: the count of faults and legal variants the README gives is the reference server's", () => {
  const m = /\b(\d+) faults and (\d+) legal variants\b/.exec(read('README.md'));
  assert.ok(m, 'README.md states the faults and variants the suite is tested against');
  assert.deepEqual([Number(m[1]), Number(m[2])], [FAULTS.length, VARIANTS.length], 'reference/faults.ts');
});

test('docs: docs/commands.md lists every npm script of package.json', () => {
  const commands = read('docs/commands.md');
  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
  const missing = scripts.filter(
    (s) => !(s === 'test' ? commands.includes('`npm test`') : new RegExp(`(npm run |\`)${s.replace(/[:.]/g, '\\$&')}[\` ]`).test(commands)),
  );
  assert.deepEqual(missing, [], 'scripts missing from docs/commands.md');
});

/** Every file and folder of the repository, as paths from its root (folders with a trailing slash). */
function tree(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (e.name.startsWith('.') || ['node_modules', 'reports', 'test-results'].includes(e.name)) continue;
      const path = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.push(`${path}/`);
        walk(path);
      } else out.push(path);
    }
  };
  walk('');
  return out;
}

test('docs: every path docs/architecture.md names exists (from the root, or under the folder its row is about)', () => {
  const files = tree();
  const names = [...read('docs/architecture.md').matchAll(/`([\w.-]+\/[\w./-]*|[\w-]+\.(?:ts|mjs|md|json|yaml|jsonc|png))`/g)].map((m) => m[1]);
  // What a run writes (reports/, docs/reports.md) is no file of the repository.
  const written = new Set([
    'conformance.json',
    'observations.json',
    'ledger.json',
    'summary.json',
    'verify.json',
    'compare.json',
    'candidate.json',
    'exchanges.json',
    'build-info.json',
  ]);
  const paths = [...new Set(names.filter((n) => !n.startsWith('reports/') && !n.startsWith('./reports') && !n.startsWith('console/') && !written.has(n)))];
  assert.ok(paths.length > 50, `found ${paths.length} paths`);
  const missing = paths.filter((p) => !files.some((f) => f === p || f.endsWith(`/${p}`) || f === `${p}/`));
  assert.deepEqual(missing, [], 'paths named in docs/architecture.md that do not exist');
});

/** Folders the environment rule does not walk: installed, generated or written by runs, and load/ (below). */
const NOT_SOURCE = new Set(['node_modules', 'reports', 'test-results', 'playwright-report', 'blob-report', 'data']);

test('docs: the environment is read and written only in core/config.ts (a child given a copy is neither), in every folder', () => {
  const offenders: string[] = [];
  const walked: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (e.name.startsWith('.') || NOT_SOURCE.has(e.name)) continue;
      const path = dir ? `${dir}/${e.name}` : e.name;
      // load/ still reads its own variables: moving them into core/config.ts is the load engine's rewrite,
      // under way; when it lands, this exception goes and load/ is held like every folder.
      if (path === 'load') continue;
      if (e.isDirectory()) {
        if (!dir) walked.push(path);
        walk(path);
      } else if (/\.(ts|mts|mjs)$/.test(e.name) && !e.name.endsWith('.test.ts') && path !== 'core/config.ts')
        read(path)
          .split('\n')
          .forEach((line, i) => {
            // `(env ?? process.env).NAME` reads a variable as surely as `process.env.NAME` does.
            if (/process\.env(\.[A-Za-z_]|\[|\)\.[A-Z_])/.test(line) && !/^\s*(\/\/|\*)/.test(line)) offenders.push(`${path}:${i + 1}`);
          });
    }
  };
  walk('');
  for (const folder of ['candidate', 'contracts', 'core', 'harness', 'manifest-check', 'reference', 'report', 'scripts', 'bin'])
    assert.ok(walked.includes(folder), `the rule walks ${folder}/`);
  assert.deepEqual(offenders, []);
});

test('docs: docs:update finds the verdict screen in verify output and rewrites only its sample', () => {
  const output = [
    'conformance: ...',
    '',
    '================================ verdict ================================',
    'PASS  x',
    'verdict   PASS (exit 0) in 1.0 s',
    'after',
  ].join('\n');
  const screen = verdictScreenIn(output);
  assert.equal(screen?.split('\n').length, 3);
  assert.equal(verdictScreenIn('no screen'), undefined);
  const doc = 'a\n<!-- sample verify-verdict: made by npm run docs:update from a real run; do not edit -->\n```text\nold\n```\n<!-- /sample -->\nb\n';
  const made = withSample(doc, 'verify-verdict', screen!);
  assert.deepEqual(samplesIn(made), [{ name: 'verify-verdict', text: screen }]);
  assert.ok(made.startsWith('a\n') && made.endsWith('\nb\n'));
  assert.equal(withSample(doc, 'other', 'x'), doc);
});
