// The docs cannot drift from what they describe: every figure that has a source is checked against it,
// every screen is made by a command (npm run docs:update, scripts/lib/doc-samples.ts). Dated
// measurements live in docs/measurements.md, each with its command, machine and commit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../core/config.ts';
import { repositoryFiles, repositoryFolders } from '../core/repository-files.ts';
import { FAULTS, VARIANTS } from '../reference/faults.ts';
import { DATED, figures, staleFigures, withFigures } from './lib/doc-figures.ts';
import { samplesIn, verdictScreenIn, withSample } from './lib/doc-samples.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** Every document of the repository but the spec (quoted, not ours): README.md, reference/README.md, CHANGELOG.md and docs/. */
const DOCS = [
  'README.md',
  'reference/README.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const clauses = (parse(read('contracts/clauses.yaml')) as { clauses: { level: string }[] }).clauses;
const COUNT: Record<string, number> = Object.fromEntries(['stated', 'inferred', 'open'].map((l) => [l, clauses.filter((c) => c.level === l).length]));

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

test("docs: every figure a doc states about the project is its source's (docs:update -- --figures rewrites them)", () => {
  const all = figures();
  const stale = DOCS.filter((doc) => !DATED.has(doc)).flatMap((doc) =>
    staleFigures(read(doc), all).map((f) => `${doc}:${f.line}: ${f.stated} ${f.figure}, ${f.source} has ${f.value}`),
  );
  assert.deepEqual(stale, [], 'run npm run docs:update -- --figures');
  // The phrases are found at all: a figure the docs no longer state in a phrase this test knows is unchecked.
  const stated = new Set(DOCS.flatMap((doc) => all.filter((f) => f.phrases.some((re) => new RegExp(re.source, 'g').test(read(doc)))).map((f) => f.name)));
  assert.deepEqual(
    all.map((f) => f.name).filter((name) => !stated.has(name)),
    [],
    'figures no doc states in a known phrase',
  );
});

test('docs: a figure phrase is found across a line break, and rewritten to its source', () => {
  const all = figures();
  const doc = 'The suite is tested against 1 faults and 2 legal\nvariants; 5 of 6 stated clauses (7: 8 stated, 9\ninferred, 10 open).';
  const stale = staleFigures(doc, all).map((f) => f.figure);
  assert.deepEqual(stale, ['clauses', 'stated clauses', 'stated clauses', 'inferred clauses', 'open clauses', 'hand-written faults', 'legal variants']);
  assert.deepEqual(staleFigures(withFigures(doc, all), all), []);
  assert.match(
    withFigures(doc, all),
    new RegExp(`^The suite is tested against ${FAULTS.length} faults and ${VARIANTS.length} legal\nvariants; 5 of ${COUNT.stated} stated`),
  );
});

test('README.md: at most 150 lines, and what tools and users depend on stays in it or one link away', () => {
  const readme = read('README.md');
  const lines = readme.trimEnd().split('\n').length;
  assert.ok(lines <= 150, `README.md has ${lines} lines`);
  for (const must of [
    'npm ci && npm run verify',
    'npm test ',
    'CONSOLE_BASE_URL',
    'CONSOLE_API_KEY',
    'CONSOLE_TARGET_MANIFEST',
    'npm run manifest:check',
    '## Exit codes',
    '## What it does not do yet',
    '(docs/reports.md)',
    '(docs/environment.md)',
    '(docs/commands.md)',
    '(docs/architecture.md)',
    '(docs/measurements.md)',
  ])
    assert.ok(readme.includes(must), `README.md: ${must}`);
  for (const code of [0, 1, 2, 3]) assert.match(readme, new RegExp(`^\\| ${code} \\| `, 'm'), `README.md: exit code ${code}`);
  // Every doc README links to exists.
  const links = [...readme.matchAll(/\]\(((?:docs\/)?[\w.-]+\.md)\)/g)].map((m) => m[1]);
  assert.deepEqual(
    links.filter((l) => !tree().includes(l)),
    [],
  );
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
  const files = repositoryFiles();
  return [...files, ...repositoryFolders(files).map((f) => `${f}/`)];
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

/**
 * The modules that read the environment: core/config.ts for every command, and load/lib/env.ts for the
 * processes the load runner starts (Artillery's workers, the profile's setup), which get their settings
 * from it as environment and load no configuration of their own. docs/environment.md names what both read.
 */
const ENV_READERS = ['core/config.ts', 'load/lib/env.ts'];

test('docs: the environment is read and written only in core/config.ts and load/lib/env.ts (a child given a copy is neither), in every folder', () => {
  const offenders: string[] = [];
  const files = repositoryFiles();
  const walked = new Set(files.filter((f) => f.includes('/')).map((f) => f.slice(0, f.indexOf('/'))));
  for (const path of files.filter((f) => /\.(ts|mts|mjs)$/.test(f) && !f.endsWith('.test.ts') && !ENV_READERS.includes(f)))
    read(path)
      .split('\n')
      .forEach((line, i) => {
        // `(env ?? process.env).NAME` reads a variable as surely as `process.env.NAME` does.
        if (/process\.env(\.[A-Za-z_]|\[|\)\.[A-Z_])/.test(line) && !/^\s*(\/\/|\*)/.test(line)) offenders.push(`${path}:${i + 1}`);
      });
  for (const folder of ['candidate', 'contracts', 'core', 'harness', 'load', 'manifest-check', 'reference', 'report', 'scripts', 'bin'])
    assert.ok(walked.has(folder), `the rule walks ${folder}/`);
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

/**
 * Dates a page may state that are no measurement: each a fact with its date (an end of life, a pinned
 * copy, a change of behaviour), a screen's sample output or an example input. A measurement's date and
 * commit live in docs/measurements.md, where every figure can be found again; CHANGELOG.md is dated by
 * nature.
 */
const NOT_MEASUREMENTS: { file: string; date: string; why: string }[] = [
  { file: 'docs/blame.md', date: '2026-11-25', why: 'when blame per clause began: a change of behaviour' },
  { file: 'docs/ci.md', date: '2026-04-30', why: "Node 20's end of life" },
  { file: 'docs/ci.md', date: '2026-06-26', why: 'the date of the pinned SchemaStore commit' },
  { file: 'docs/ci.md', date: '2026-08-07', why: 'the copy of SchemaStore that commit was read from' },
  { file: 'docs/development.md', date: '2026-04-30', why: "Node 20's end of life" },
  { file: 'docs/load.md', date: '2026-11-27', why: 'the day the profiles left k6: a change of engine' },
  { file: 'docs/verify.md', date: '2026-11-13', why: "a run history's line in a sample of verify's output" },
  { file: 'reference/README.md', date: '2026-02-30', why: 'a date that does not exist, as input the reference refuses' },
];
const DATE = /\b20\d{2}-[01]\d-[0-3]\d\b/g;
/** Every document but the page of measurements and the changelog. */
const UNDATED = DOCS.filter((doc) => doc !== 'docs/measurements.md' && doc !== 'CHANGELOG.md');

/** Each `file:line: date` of a page that states a date not listed as no measurement. */
function datedOutsideMeasurements(pages: Record<string, string>): string[] {
  return Object.entries(pages).flatMap(([file, text]) =>
    text.split('\n').flatMap((line, i) =>
      [...line.matchAll(DATE)]
        .map((m) => m[0])
        .filter((date) => !NOT_MEASUREMENTS.some((a) => a.file === file && a.date === date))
        .map((date) => `${file}:${i + 1}: ${date}`),
    ),
  );
}

test('docs: a dated measurement is only in docs/measurements.md (with its commit); other pages state the method and link there', () => {
  const found = datedOutsideMeasurements(Object.fromEntries(UNDATED.map((doc) => [doc, read(doc)])));
  assert.deepEqual(
    found,
    [],
    `dates outside docs/measurements.md:\n${found.join('\n')}\nmove each measurement (its figures, date and commit) to a section of docs/measurements.md ` +
      'and link to it from where it was; a date that is no measurement goes in NOT_MEASUREMENTS (scripts/docs.test.ts) with why',
  );
  // The list stays small and true: a date no longer on its page leaves it.
  const gone = NOT_MEASUREMENTS.filter((a) => !read(a.file).includes(a.date)).map((a) => `${a.file}: ${a.date}`);
  assert.deepEqual(gone, [], 'dates listed in NOT_MEASUREMENTS that their page no longer states');
});

test('docs: the date rule finds a dated figure on its line, and lets a listed date pass', () => {
  const page = 'The method.\nMeasured 2026-11-28 (commit abc1234): 10 of 10.\nNode 20 (end of life 2026-04-30).\n';
  assert.deepEqual(datedOutsideMeasurements({ 'docs/load.md': page }), ['docs/load.md:2: 2026-11-28', 'docs/load.md:3: 2026-04-30']);
  assert.deepEqual(datedOutsideMeasurements({ 'docs/ci.md': page }), ['docs/ci.md:2: 2026-11-28']);
});

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens; a repeat gets -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const m of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

test('docs: every link to a page of the repository, and to a heading in it, resolves', () => {
  const files = tree();
  const broken: string[] = [];
  for (const doc of DOCS) {
    const dir = doc.includes('/') ? doc.slice(0, doc.lastIndexOf('/') + 1) : '';
    const text = read(doc).replace(/^```[\s\S]*?^```/gm, '');
    for (const m of text.matchAll(/\]\(([\w./-]*\.md)?(?:#([\w-]+))?\)/g)) {
      const [, page, anchor] = m;
      if (!page && !anchor) continue;
      const target = page ? join(dir, page).replace(/\\/g, '/') : doc;
      if (!files.includes(target)) broken.push(`${doc}: ${m[0]} (no ${target})`);
      else if (anchor && !anchorsOf(read(target)).has(anchor)) broken.push(`${doc}: ${m[0]} (no heading #${anchor} in ${target})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('docs: a heading anchor is made as GitHub makes it', () => {
  const anchors = anchorsOf(
    "## Power of the compare (`npm run bench:power`)\n## Figures on this project's machine\n## 3. The x (a/b.ts, by `--variant`)\n## Load\n### Load\n",
  );
  assert.deepEqual(
    [...anchors],
    ['power-of-the-compare-npm-run-benchpower', 'figures-on-this-projects-machine', '3-the-x-abts-by---variant', 'load', 'load-1'],
  );
});
