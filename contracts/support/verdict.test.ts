// The verdict (support/verdict.ts) on hand-made test results: no Playwright, no server, no files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeOf, verdict, type Ran, type VerdictInput } from './verdict.ts';
import type { Clause } from './clauses.ts';

const clause = (id: string, level: Clause['level'] = 'stated'): Clause => ({ id, section: '1', level, text: `text of ${id}`, checkedBy: ['a test'] });
const CATALOGUE = [clause('a.one'), clause('a.two'), clause('a.three'), clause('b.inferred', 'inferred'), clause('c.open', 'open')];

const ran = (title: string, clauses: string[], more: Partial<Ran> = {}): Ran => ({
  title,
  file: 'contracts/conformance/x.spec.ts',
  level: 'stated',
  clauses,
  ok: true,
  counts: false,
  durationMs: 1,
  exchanges: [],
  observations: [],
  uncovered: [],
  ...more,
});

const input = (tests: Ran[], more: Partial<VerdictInput> = {}): VerdictInput => ({
  ran: tests,
  findings: [],
  catalogue: CATALOGUE,
  scope: new Set(CATALOGUE.map((c) => c.id)),
  waive: undefined,
  strict: false,
  readOnly: false,
  target: 'http://127.0.0.1:1',
  manifest: null,
  startedAt: 0,
  endedAt: 1000,
  planned: tests.length,
  stop: null,
  playwrightStatus: 'passed',
  drift: 0,
  ...more,
});

const ALL_HELD = [
  ran('one and two', ['a.one', 'a.two']),
  ran('three', ['a.three']),
  ran('inferred', ['b.inferred'], { level: 'inferred' }),
  ran('open', ['c.open'], { level: 'open', observations: [{ clause: 'c.open', aspect: 'x', value: 1 }] }),
];
const statusOf = (v: ReturnType<typeof verdict>) => Object.fromEntries(v.clauses.map((c) => [c.id, c.status]));

test('verdict: every stated clause held is a pass, exit 0; an open clause observed is observed', () => {
  const v = verdict(input(ALL_HELD));
  assert.deepEqual(statusOf(v), { 'a.one': 'pass', 'a.two': 'pass', 'a.three': 'pass', 'b.inferred': 'pass', 'c.open': 'observed' });
  assert.equal(v.summary.verdict, 'pass');
  assert.deepEqual(v.summary.coverage, { total: 3, checked: 3, uncovered: 0, unverifiable: 0, waived: 0, excluded: 0, unreached: 0 });
  assert.equal(v.summary.durationMs, 1000);
  assert.equal(exitCodeOf(v.summary), 0);
});

test('verdict: a failed stated test fails the clause it blamed; what held passes, what it did not reach is unreached; exit 1', () => {
  const failed = ran('one and two', ['a.one', 'a.two'], { ok: false, counts: true, error: 'boom', blamed: ['a.one'], unreached: ['a.two'] });
  const v = verdict(input([failed, ...ALL_HELD.slice(1)]));
  assert.equal(statusOf(v)['a.one'], 'fail');
  assert.equal(statusOf(v)['a.two'], 'unreached');
  assert.equal(statusOf(v)['a.three'], 'pass');
  assert.equal(v.failures.length, 1);
  assert.deepEqual(v.failures[0].blamed, ['a.one']);
  assert.equal(v.summary.verdict, 'fail');
  assert.equal(exitCodeOf(v.summary), 1);
});

test('verdict: an inferred failure warns in default mode and fails when it counts (strict)', () => {
  const warn = ran('inferred', ['b.inferred'], { level: 'inferred', ok: false, counts: false, error: 'x' });
  const v = verdict(input([...ALL_HELD.slice(0, 2), warn]));
  assert.equal(statusOf(v)['b.inferred'], 'warn');
  assert.equal(v.summary.verdict, 'pass');
  const strict = verdict(input([...ALL_HELD.slice(0, 2), { ...warn, counts: true }], { strict: true }));
  assert.equal(statusOf(strict)['b.inferred'], 'fail');
  assert.equal(exitCodeOf(strict.summary), 1);
});

test('verdict: a stated clause no test checked makes the run INCOMPLETE (exit 3), never a pass', () => {
  const v = verdict(input(ALL_HELD.filter((r) => r.title !== 'three')));
  assert.equal(statusOf(v)['a.three'], 'uncovered');
  assert.equal(v.summary.verdict, 'incomplete');
  assert.deepEqual(
    v.summary.incomplete?.flatMap((g) => g.clauses),
    ['a.three'],
  );
  assert.equal(exitCodeOf(v.summary), 3);
});

test('verdict: a waived clause is waived whatever its test did; a clause outside the selection is excluded', () => {
  const failed = ran('three', ['a.three'], { ok: false, counts: true, blamed: ['a.three'] });
  const v = verdict(input([ALL_HELD[0], failed], { waive: [{ clauses: 'a.thr*', reason: 'not ours' }], scope: new Set(['a.one', 'a.two', 'a.three']) }));
  assert.equal(statusOf(v)['a.three'], 'waived');
  assert.equal(statusOf(v)['b.inferred'], 'excluded');
  assert.deepEqual(v.summary.waived, [{ clauses: 'a.thr*', reason: 'not ours', count: 1 }]);
  // The failure is still a failure of the test: only the clause's status is the user's.
  assert.equal(v.summary.verdict, 'fail');
});

test('verdict: an inconclusive test checks nothing; a deadline stops the run: inconclusive, exit 3, tests not run counted', () => {
  const dead = ran('three', ['a.three'], { inconclusive: { reason: 'no response: ECONNRESET' } });
  const v = verdict(input([ALL_HELD[0], dead], { planned: 4, playwrightStatus: 'timedout' }));
  assert.equal(statusOf(v)['a.three'], 'uncovered');
  assert.equal(v.inconclusive.length, 1);
  assert.match(v.inconclusive[0].reason, /^inconclusive: transport: no response/);
  assert.equal(v.summary.stop?.cause, 'deadline');
  assert.equal(v.summary.tests.notRun, 2);
  assert.equal(v.summary.verdict, 'inconclusive');
  assert.equal(exitCodeOf(v.summary), 3);
});

test('verdict: a run in which no test ran is exit 3, not a pass', () => {
  const v = verdict(input([], { catalogue: [] }));
  assert.equal(v.summary.tests.total, 0);
  assert.equal(exitCodeOf(v.summary), 3);
});

test('verdict: a stated clause left undecided is INCOMPLETE, exit 3, naming the budget; waived, it is listed waived and the run passes', () => {
  const reason = 'not verifiable within the list budget (CONSOLE_LIST_BUDGET=12 pages a walk): CONSOLE_LIST_BUDGET=2001 would decide it';
  const undecided = [ran('one and two', ['a.one', 'a.two'], { uncovered: [{ clause: 'a.two', reason, kind: 'unverifiable' }] }), ...ALL_HELD.slice(1)];
  const v = verdict(input(undecided));
  assert.equal(statusOf(v)['a.two'], 'unverifiable');
  assert.equal(v.summary.verdict, 'incomplete');
  assert.equal(exitCodeOf(v.summary), 3);
  assert.deepEqual(v.summary.incomplete?.[0]?.clauses, ['a.two']);
  assert.match(v.summary.incomplete?.[0]?.reason ?? '', /CONSOLE_LIST_BUDGET=2001 would decide it.*waive it/);
  const waived = verdict(input(undecided, { waive: [{ clauses: 'a.two', reason: 'accepted: a list of 200,000 on this staging' }] }));
  assert.equal(statusOf(waived)['a.two'], 'waived');
  assert.equal(exitCodeOf(waived.summary), 0);
  // An inferred clause left undecided is listed, and does not make the run INCOMPLETE.
  const inferred = verdict(
    input([
      ...ALL_HELD.slice(0, 2),
      ran('inferred', ['b.inferred'], { level: 'inferred', uncovered: [{ clause: 'b.inferred', reason, kind: 'unverifiable' }] }),
      ALL_HELD[3],
    ]),
  );
  assert.equal(exitCodeOf(inferred.summary), 0);
});
