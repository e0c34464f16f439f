// Where a clause is checked (contracts/where.ts): read from the tree itself, so each place it names
// must hold the clause it is named for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { CLAUSES } from './support/clauses.ts';
import { matching, shown, statementOf, titleIn, whereOf } from './where.ts';

const lineOf = (file: string, line: number) => readFileSync(join(ROOT, file), 'utf8').split('\n')[line - 1];

test('clauses:where: an id is one clause, a glob its family, an unknown id none', () => {
  assert.deepEqual(
    matching(CLAUSES, 'metric.id.shape').map((c) => c.id),
    ['metric.id.shape'],
  );
  const family = matching(CLAUSES, 'metric.field.*');
  assert.ok(family.length > 3 && family.every((c) => c.id.startsWith('metric.field.')));
  assert.deepEqual(matching(CLAUSES, 'no.such.clause'), []);
});

test('clauses:where: a clause with a step of its own: its test, the step line naming it, the faults that prove it', () => {
  const [w] = whereOf(matching(CLAUSES, 'metric.id.shape'));
  assert.ok(w.tests.length > 0 && w.tests.every((t) => t.at && titleIn(lineOf(t.at.file, t.at.line), t.title)));
  const step = w.asserted.find((p) => p.text.includes('t.clause('));
  assert.ok(step, 'the t.clause step is found');
  assert.ok(lineOf(step.file, step.line).includes("'metric.id.shape'"));
  assert.ok(w.provedBy.includes('metric-id-shape-wrong'));
  assert.match(
    shown(w),
    /^metric\.id\.shape \(stated, spec 2\.8\)\n {2}spec: contracts\/spec\/console-v1\.md:\d+\n {4}\| id \| string \| Shaped `<metric_name>::<type>` \|\n/,
  );
});

test('clauses:where: a field clause named by prefix points at clausesUnder and at the shared schema check', () => {
  const [w] = whereOf(matching(CLAUSES, 'metric.field.name'));
  assert.ok(w.byPrefix.some((p) => p.text.includes("clausesUnder('metric.field.')")));
  assert.ok(w.byPrefix.some((p) => p.file === 'contracts/support/checks.ts' && lineOf(p.file, p.line).includes('schemaCheck')));
});

test('clauses:where: every stated clause has a test and a way in (a line naming it, a prefix, or the contract)', () => {
  for (const w of whereOf(CLAUSES.filter((c) => c.level === 'stated'))) {
    assert.ok(w.tests.length > 0, `${w.id}: no test`);
    assert.ok(
      w.tests.every((t) => t.at),
      `${w.id}: a test title not found in contracts/conformance`,
    );
    assert.ok(w.asserted.length + w.named.length + w.byPrefix.length + w.contract.length > 0, `${w.id}: found nowhere`);
  }
});

test('statementOf: the lines that state a text, in its section first; a heading gives the paragraph under it; a colon line brings its table', () => {
  const spec = [
    '# 1 Intro',
    'A limit of 10 applies.',
    '## 4.4 List',
    '',
    'Query parameters',
    '(all optional):',
    '',
    '| a | b |',
    '| 1 | 2 |',
    '',
    'Items are returned in pages; a limit of 10',
    'applies to each page.',
    '### 4.5 Next',
    'Body follows.',
  ].join('\n');
  assert.deepEqual(statementOf(spec, '4.4', 'Query parameters (all optional):'), {
    at: { file: 'contracts/spec/console-v1.md', line: 5, text: 'Query parameters' },
    lines: ['Query parameters', '(all optional):', '| a | b |', '| 1 | 2 |'],
  });
  // In 4.4 the text runs over a line break; the same words in 1 are not the ones meant.
  assert.deepEqual(statementOf(spec, '4.4', 'a limit of 10 applies')?.lines, ['Items are returned in pages; a limit of 10', 'applies to each page.']);
  assert.equal(statementOf(spec, '4.5', 'A limit of 10 applies.')?.at.line, 2, 'found outside its section when not in it');
  assert.deepEqual(statementOf(spec, '4.5', '4.5 Next')?.lines, ['Body follows.']);
  assert.equal(statementOf(spec, '4.4', 'words the spec does not have'), undefined);
});

test("clauses:where: no clause's spec is a heading alone, and a line that introduces a table shows the table", () => {
  const all = whereOf(CLAUSES);
  for (const w of all) {
    if (!w.spec) continue;
    assert.doesNotMatch(w.spec.lines[0], /^#/, `${w.id}: a heading`);
    const colon = w.spec.lines.findIndex((l) => l.endsWith(':'));
    if (colon >= 0) assert.ok(w.spec.lines.length > colon + 1, `${w.id}: "${w.spec.lines[colon]}" shown without what it introduces`);
  }
  const [filters] = all.filter((w) => w.id === 'experiments.list.filters');
  assert.equal(filters.spec?.lines[0], 'Query parameters (all optional):');
  assert.ok(filters.spec?.lines.some((l) => l.startsWith('| layerID |')));
  // Stated clauses quote the spec: each is found in it.
  assert.deepEqual(
    all.filter((w) => w.level === 'stated' && !w.spec).map((w) => w.id),
    [],
  );
});

test('clauses:where: the faults aimed at a clause, each with what its proof-map run did to it, a miss flagged', () => {
  const aimedAt = new Map([['metric.id.shape', ['metric-id-shape-wrong', 'gen:type:metric.field.creatorEmail', 'not-a-fault-of-the-map']]]);
  const [w] = whereOf(matching(CLAUSES, 'metric.id.shape'), aimedAt);
  assert.deepEqual(
    w.aimed.map((f) => [f.name, f.proof]),
    [
      ['metric-id-shape-wrong', 'fails it'],
      ['gen:type:metric.field.creatorEmail', 'does not fail it'],
      ['not-a-fault-of-the-map', 'not in the proof map'],
    ],
  );
  const text = shown(w);
  assert.match(text, /aimed at it: metric-id-shape-wrong {2}\(fails it\)/);
  assert.match(text, /aimed at it: gen:type:metric\.field\.creatorEmail {2}DOES NOT FAIL IT \(its run in docs\/clause-proof\.json failed /);
  assert.match(text, /aimed at it: not-a-fault-of-the-map {2}\(not in docs\/clause-proof\.json: npm run clauses:proof -- --only not-a-fault-of-the-map\)/);
  assert.match(shown(whereOf(matching(CLAUSES, 'metric.id.shape'))[0]), /aimed at it: no fault of the reference names it/);
});
