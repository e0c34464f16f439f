// Where a clause is checked (contracts/where.ts): read from the tree itself, so each place it names
// must hold the clause it is named for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { CLAUSES } from './support/clauses.ts';
import { matching, shown, whereOf } from './where.ts';

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
  assert.ok(w.tests.length > 0 && w.tests.every((t) => t.at && lineOf(t.at.file, t.at.line).includes(t.title)));
  const step = w.asserted.find((p) => p.text.includes('t.clause('));
  assert.ok(step, 'the t.clause step is found');
  assert.ok(lineOf(step.file, step.line).includes("'metric.id.shape'"));
  assert.ok(w.provedBy.includes('metric-id-shape-wrong'));
  assert.match(shown(w), /^metric\.id\.shape \(stated, spec 2\.8\)\n {2}spec: "/);
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
