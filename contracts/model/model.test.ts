// The contract model read from the spec's Markdown, and what a revision of the spec does to everything
// generated from it: each revision of model/revisions.ts, applied to the committed spec, moves its clause
// in clauses.yaml, its facts in openapi.yaml and facts.ts, and is named by spec:diff.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';
import { CLAUSES_PATH, contractFromSpec, OVERLAY_PATH, SPEC_PATH } from '../build.ts';
import { OPERATIONS, SPEC_LIMITS } from '../index.ts';
import { fieldsOfProse, type Overlay, readContractModel } from './contract-model.ts';
import { REVISIONS } from './revisions.ts';
import { diffSpecs } from './spec-diff.ts';
import { readSpecDocument } from './spec-document.ts';

const spec = readFileSync(SPEC_PATH, 'utf8');
const overlay = parse(readFileSync(OVERLAY_PATH, 'utf8')) as Overlay;
const clausesText = readFileSync(CLAUSES_PATH, 'utf8');
const model = readContractModel(spec, overlay);

test('spec document: tables read by their header whatever the spacing, code with a pipe kept in its cell, paragraphs a line each', () => {
  const doc = readSpecDocument(
    ['## 3. Things', '', 'First line.', 'Second line.', '', '|Field|  Type |Notes|', '|--|:--|--|', '| a | `x \\| y` | note |', '|b|string||'].join('\n'),
  );
  const section = doc.sections.find((s) => s.number === '3');
  assert.ok(section);
  assert.deepEqual(
    section.lines.map((l) => [l.line, l.text]),
    [
      [3, 'First line.'],
      [4, 'Second line.'],
    ],
  );
  assert.deepEqual(section.tables[0].header, ['Field', 'Type', 'Notes']);
  assert.equal(section.tables[0].rows[0].cells.Type, '`x \\| y`');
  assert.equal(section.tables[0].rows[1].cells.Notes, '');
  assert.equal(section.tables[0].rows[1].line, 9);
});

test('prose fields: a piece in code starts a field, the pieces after it qualify it', () => {
  const fields = fieldsOfProse('`items` array of Thing (2.9), required, at most 7 items; `mode` (`a` or `b`, default `b`), `note` string.', 12);
  assert.deepEqual(
    fields.map((f) => [f.name, f.type, f.required ?? false, f.maxItems, f.allowed, f.default]),
    [
      ['items', 'array of Thing', true, 7, undefined, undefined],
      ['mode', '', false, undefined, ['a', 'b'], 'b'],
      ['note', 'string', false, undefined, undefined, undefined],
    ],
  );
});

test('model: the operations of the spec are the operations of the contract, with the section that shows each', () => {
  assert.deepEqual(model.operations.map((o) => o.id).sort(), Object.keys(OPERATIONS).sort());
  for (const op of model.operations) {
    assert.equal(OPERATIONS[op.id].section, op.section, op.id);
    assert.equal(OPERATIONS[op.id].method, op.method, op.id);
    assert.equal(OPERATIONS[op.id].path, op.path, op.id);
    assert.equal(OPERATIONS[op.id].message, op.message?.text, op.id);
  }
  assert.deepEqual(model.warnings, [], 'the committed spec agrees with itself');
});

test('model: part 8 and the operation table disagreeing keeps the stricter bound and says so, naming both lines', () => {
  const max = SPEC_LIMITS.createMetric.name.maxLength;
  const min = SPEC_LIMITS.createMetric.name.minLength;
  const revised = spec.replace(`| length ${min} to ${max} |`, `| length ${min} to ${max - 1} |`);
  const m = readContractModel(revised, overlay);
  const name = m.operations.find((o) => o.id === 'createMetric')?.body.find((f) => f.name === 'name');
  assert.equal(name?.maxLength, max - 1);
  assert.equal(m.warnings.length, 1);
  assert.match(m.warnings[0], /spec lines \d+ and \d+ give createMetric\.name maxLength/);
});

test('model: an overlay operation the spec no longer shows fails, naming it', () => {
  const path = model.operations.find((o) => o.id === 'unpauseTrigger')?.path ?? '';
  assert.throws(() => readContractModel(spec.replace(`\`PUT ${path}\``, `\`PUT ${path}-v2\``), overlay), /unpauseTrigger .* which the spec no longer shows/);
});

test('build: the committed spec gives the committed contract (nothing moves)', () => {
  const c = contractFromSpec();
  assert.deepEqual(c.clauseChanges, []);
  assert.deepEqual(c.openapiChanges, []);
});

test('build: a clause whose words are gone fails, naming the clause and the nearest spec line', () => {
  const line = spec.split('\n').find((l) => l.startsWith('- Whether existing rules are kept or replaced')) ?? '';
  assert.ok(line, 'the spec has the merge statement of 4.1');
  assert.throws(
    () => contractFromSpec(spec.replace(line, '- Rules are appended.')),
    /gates\.addRules\.merge \(section 4\.1\) quotes words the spec no longer has.*nearest, spec line \d+/s,
  );
});

for (const revision of REVISIONS) {
  test(`revision ${revision.name} (${revision.kind}): the build moves its clause and facts, spec:diff names it`, () => {
    const revised = revision.apply(spec, model);
    assert.notEqual(revised, spec);
    const c = contractFromSpec(revised);
    const committedFacts = readFileSync(new URL('../facts.ts', import.meta.url), 'utf8');
    const committedOpenapi = readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8');
    assert.notEqual(c.openapi, committedOpenapi, 'openapi.yaml follows the revision');
    const diff = diffSpecs(spec, revised, overlay, clausesText);
    if (revision.moves) {
      assert.ok(
        c.clauseChanges.some((x) => x.kind === 'changed' && x.id === revision.moves),
        `${revision.moves} moves: ${c.clauseChanges.map((x) => x.id).join(', ')}`,
      );
      const named = diff.clauses.find((x) => x.id === revision.moves);
      assert.ok(named, `spec:diff names ${revision.moves}`);
      assert.equal(named.kind, 'changed');
      assert.ok(named.before?.line && named.after?.line, 'with its lines before and after');
      assert.ok(named.class.includes('breaking-for-servers'), `a server keeping the old revision breaks it: ${named.class}`);
      if (!revision.name.includes('type')) assert.notEqual(c.facts, committedFacts, 'facts.ts follows the revision');
    }
    if (revision.adds && revision.checked) {
      assert.ok(
        c.clauseChanges.some((x) => x.kind === 'added' && x.id === revision.adds),
        `${revision.adds} is added: ${c.clauseChanges.map((x) => x.id).join(', ')}`,
      );
      assert.ok(diff.clauses.some((x) => x.kind === 'added' && x.id === revision.adds && x.class.includes('breaking-for-servers')));
      const field = (revision.adds as string).split('.').at(-1);
      assert.match(c.openapi, new RegExp(`\\n\\s+${field}: \\{ type: number \\}`), 'the field is in the request schema');
    } else if (revision.adds) {
      const added = c.clauseChanges.filter((x) => x.kind === 'added' && x.id.startsWith(revision.adds as string));
      assert.ok(added.length >= 2, `the new operation's clauses appear: ${c.clauseChanges.map((x) => x.id).join(', ')}`);
      assert.ok(
        diff.clauses.filter((x) => x.kind === 'added').every((x) => x.class.includes('breaking-for-servers')),
        'a new operation breaks a server that lacks it',
      );
      assert.match(c.openapi, new RegExp(`operationId: ${revision.adds.replace('.', '')}`));
      assert.match(c.clauses, new RegExp(`id: ${revision.adds.replace('.', '\\.')}path`));
    }
  });
}

test('build: a value the revision removes from a closed request list is kept as retired, for the suite to send', () => {
  const removal = REVISIONS.find((r) => r.name === 'metric-type-removed');
  assert.ok(removal);
  const typeOf = (m: ReturnType<typeof readContractModel>) =>
    m.operations.find((o) => o.id === 'createMetric')?.body.find((f) => f.name === 'type')?.allowed ?? [];
  const revised = removal.apply(spec, model);
  const gone = typeOf(model).filter((v) => !typeOf(readContractModel(revised, overlay)).includes(v));
  assert.equal(gone.length, 1);
  const facts = contractFromSpec(revised).facts;
  const retired = facts.slice(facts.indexOf('export const SPEC_RETIRED'));
  assert.match(retired, new RegExp(`"createMetric": \\{\\s*"type": \\[\\s*"${gone[0]}"`));
});

test('spec:diff: the same revision read backwards removes what it added', () => {
  const added = REVISIONS.find((r) => r.adds && !r.checked);
  assert.ok(added);
  const diff = diffSpecs(added.apply(spec, model), spec, overlay, contractFromSpec(added.apply(spec, model)).clauses);
  const removed = diff.clauses.filter((x) => x.kind === 'removed');
  assert.ok(removed.length >= 2, JSON.stringify(diff.clauses.map((x) => [x.kind, x.id])));
  assert.ok(removed.every((x) => x.class.includes('breaking-for-clients')));
});
