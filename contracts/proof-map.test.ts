// The proof map's logic (proof-map.ts): what of the suite each fault runs, the map made from runs
// (every stated and inferred clause, with the faults that fail it or why none does), the check of a
// rerun against the pairs claimed, the seeded sample; and the committed map's shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import type { ClauseProof, FaultProofRun } from '../core/formats.ts';
import { formatClauseProof } from '../core/formats.ts';
import { buildMap, failedClauses, nameMatcher, RULE, sampleRuns, selectionFor, verifyRun } from './proof-map.ts';
import { CLAUSES } from './support/clauses.ts';

const run = (name: string, clause: string, fails: string[], extra: Partial<FaultProofRun> = {}): FaultProofRun => ({
  name,
  clause,
  level: 'stated',
  selection: 's',
  verdict: fails.length ? 'fail' : 'pass',
  tests: 1,
  fails,
  seconds: 1,
  ...extra,
});

test('proof: a generated fault runs the tests that name its clause; a hand-written one its self-test files, whole', () => {
  const clause = CLAUSES.find((c) => c.id === 'gate.field.id')!;
  const s = selectionFor(
    { name: 'gen:type:gate.field.id', description: '', clause: clause.id, level: 'stated', layer: 'response', generated: 'type' },
    CLAUSES,
  );
  assert.deepEqual(s.files, []);
  const m = /^\/(.*)\/i$/.exec(s.grep ?? '');
  assert.ok(m, `a /.../i pattern: ${s.grep}`);
  const re = new RegExp(m[1], 'i');
  for (const title of clause.checkedBy) assert.ok(re.test(title), `matches ${title}`);
  assert.ok(!re.test('metrics: create answers the metric and the spec message [spec 4.6]'), 'and not a test of another clause');
  const hand = selectionFor(
    { name: 'wrong-message-add-rules', description: '', clause: 'gates.addRules.message', level: 'stated', layer: 'response' },
    CLAUSES,
  );
  assert.deepEqual(hand, { files: ['contracts/conformance/gates.spec.ts'], describe: 'gates.spec.ts' });
  // A clause no test names: the whole suite.
  const none = selectionFor({ name: 'gen:x:none', description: '', clause: 'no.such.clause', level: 'stated', layer: 'response', generated: 'type' }, CLAUSES);
  assert.deepEqual(none.files, []);
  assert.equal(none.grep, undefined);
});

test('proof: a run fails the stated and inferred clauses its report marks fail', () => {
  const clauses = [
    { id: 'a', level: 'stated', status: 'fail' },
    { id: 'b', level: 'inferred', status: 'fail' },
    { id: 'c', level: 'inferred', status: 'warn' },
    { id: 'd', level: 'open', status: 'fail' },
    { id: 'e', level: 'stated', status: 'pass' },
  ] as const;
  assert.deepEqual(failedClauses({ clauses: [...clauses] }), ['a', 'b']);
});

test('proof: the map holds every stated and inferred clause, the faults failing it, and why none does', () => {
  const catalogue = [
    { id: 'a', level: 'stated', section: '1' },
    { id: 'b', level: 'stated', section: '2' },
    { id: 'c', level: 'inferred', section: '3' },
    { id: 'd', level: 'open', section: '4' },
  ] as const;
  const runs = [
    run('f1', 'a', ['a', 'c']),
    run('gen:type:b', 'b', ['a'], { generated: 'type' }),
    run('f3', 'x', [], { verdict: 'timed out' }),
    run('v4', 'c', [], { variant: true }),
  ];
  const map = buildMap(catalogue, runs, { madeAt: 'now', commit: 'c0ffee', dirty: false, partial: false, seconds: 5, lanes: 2 });
  assert.equal(map.format, 'console-conformance.clause-proof/1');
  assert.equal(map.rule, RULE);
  assert.deepEqual(
    map.clauses.map((c) => [c.id, c.provedBy, c.targetedBy]),
    [
      ['a', ['f1', 'gen:type:b'], ['f1']],
      ['b', [], ['gen:type:b']],
      ['c', ['f1'], ['v4']],
    ],
  );
  assert.match(map.clauses[1].why ?? '', /^gen:type:b ran \(s: fail\) failing 1 other clause \(a\)$/);
  assert.equal(map.clauses[0].why, undefined);
  assert.deepEqual(map.summary.stated, { total: 2, proved: 1, unproved: 1, aimed: 1 });
  assert.deepEqual(map.summary.inferred, { total: 1, proved: 1, unproved: 0, aimed: 0 });
  assert.deepEqual(map.summary.faults, { run: 4, handWritten: 2, generated: 1, variants: 1, failingNothing: 2, problems: 1 });
  // Written one line per clause and per run, and read back the same.
  const text = formatClauseProof(map);
  assert.deepEqual(JSON.parse(text), map);
  assert.match(text, /^ {4}\{"id":"a","level":"stated"/m);
  assert.match(text, /^ {4}\{"name":"f1",/m);
  const untargeted = buildMap([{ id: 'z', level: 'stated', section: '1' }], [], { madeAt: '', commit: null, dirty: true, partial: true, seconds: 0, lanes: 1 });
  assert.equal(untargeted.clauses[0].why, 'no fault targets it');
});

test('proof: a rerun holds the pairs claimed or names the ones it lost; the sample is seeded', () => {
  assert.deepEqual(verifyRun(run('f', 'a', ['a', 'b']), ['a', 'c']), { name: 'f', claimed: ['a', 'b'], missing: ['b'], extra: ['c'] });
  assert.deepEqual(verifyRun(run('f', 'a', ['a']), ['a']).missing, []);
  const runs = Array.from({ length: 20 }, (_, i) => run(`f${i}`, 'a', i % 4 === 0 ? [] : ['a']));
  const one = sampleRuns(runs, 5, 7).map((r) => r.name);
  assert.equal(one.length, 5);
  assert.deepEqual(
    sampleRuns(runs, 5, 7).map((r) => r.name),
    one,
    'the same seed, the same sample',
  );
  assert.ok(
    one.every((n) => Number(n.slice(1)) % 4 !== 0),
    'only runs that claim something',
  );
  assert.notDeepEqual(
    sampleRuns(runs, 5, 8).map((r) => r.name),
    one,
  );
  const match = nameMatcher(['gen:message:*', 'page-overlap']);
  assert.ok(match('gen:message:metrics.create.message'));
  assert.ok(match('page-overlap'));
  assert.ok(!match('page-overlap-2'));
  assert.ok(!match('gen:type:gate.field.id'));
});

test('proof: the committed map (docs/clause-proof.json) has the shape the report reads, and its counts add up', () => {
  const file = join(ROOT, 'docs', 'clause-proof.json');
  assert.ok(existsSync(file), 'docs/clause-proof.json is committed (npm run clauses:proof, then copy it: docs/proof.md)');
  const map = JSON.parse(readFileSync(file, 'utf8')) as ClauseProof;
  assert.equal(map.format, 'console-conformance.clause-proof/1');
  for (const level of ['stated', 'inferred'] as const) {
    const of = map.clauses.filter((c) => c.level === level);
    assert.equal(map.summary[level].total, of.length, level);
    assert.equal(map.summary[level].proved, of.filter((c) => c.provedBy.length > 0).length, level);
  }
  for (const c of map.clauses) {
    if (c.provedBy.length === 0) assert.ok(c.why, `${c.id}: unproved without a reason`);
    for (const f of c.provedBy) assert.ok(map.faults.find((r) => r.name === f)?.fails.includes(c.id), `${c.id} <- ${f}: a pair no run claims`);
  }
  assert.equal(map.summary.faults.run, map.faults.length);
});
