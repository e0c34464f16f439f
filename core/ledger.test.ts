// The ledger: which exchanges are writes and what each changed, writes alike counted once, the totals
// the history keeps, parts of one run added and replaced, and a restore settling what it undid.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addLedgerPart,
  clearLedger,
  emptyState,
  forgetOwed,
  keepOwed,
  noteState,
  owe,
  owedRestores,
  readLedger,
  restoredLine,
  settleOwed,
  tally,
  totalsOf,
  writeOf,
} from './ledger.ts';

const ok = (method: string, path: string, requestBody: unknown, responseBody: unknown = { message: 'm', data: {} }) => ({
  method,
  path,
  requestBody,
  status: 200,
  responseBody,
});

test('reads, dry runs and refused writes are no writes; a write without an answer may have taken', () => {
  assert.equal(writeOf(ok('GET', '/console/v1/experiments?limit=5', undefined)), undefined);
  assert.equal(writeOf(ok('POST', '/console/v1/metrics', { name: 'cc_x', type: 'sum', dryRun: true })), undefined);
  assert.equal(writeOf({ ...ok('POST', '/console/v1/metrics', { name: 'cc_x', type: 'sum' }), status: 400 }), undefined);
  assert.equal(writeOf({ ...ok('PUT', '/console/v1/gates/g1/disable', undefined), status: 0 })?.uncertain, true);
  assert.equal(writeOf(ok('POST', '/console/v1/unknown', {})), undefined);
});

test('each operation says what it changed, and whether the API can undo it', () => {
  const rules = writeOf(ok('POST', '/console/v1/gates/g%201/rules', { rules: [{ name: 'a' }, { name: 'b' }] }))!;
  assert.deepEqual(rules, {
    operation: 'addGateRules',
    resource: 'gates/g 1',
    change: 'added 2 rules: "a", "b"',
    count: 1,
    added: 2,
    undo: 'cannot be undone',
  });
  assert.equal(writeOf(ok('POST', '/console/v1/gates/g1/rules', { rules: [] }))!.undo, 'nothing to undo');
  assert.equal(writeOf(ok('PUT', '/console/v1/gates/g1/enable', undefined))!.undo, 'not restored');
  const created = writeOf(ok('POST', '/console/v1/metrics', { name: 'cc_m', type: 'sum' }, { data: { id: 'cc_m::sum' } }))!;
  assert.deepEqual([created.resource, created.change], ['metrics/cc_m::sum', 'created']);
  assert.equal(writeOf(ok('POST', '/console/v1/metrics/cc_m%3A%3Asum', { description: 'd', dryRun: false }))!.change, 'updated description');
  assert.equal(writeOf(ok('PUT', '/console/v1/release_pipeline_triggers/t1/skip', { phaseID: 'p1' }))!.change, 'skipped phase "p1"');
  assert.equal(
    writeOf(ok('PATCH', '/console/v1/experiments/e1/overrides', { overrides: [{}, {}], userIDOverrides: [] }))!.operation,
    'patchExperimentOverrides',
  );
});

test('writes alike are one entry with their count; totals count distinct metrics, rules per gate and phases per trigger', () => {
  const twice = [
    writeOf(ok('POST', '/console/v1/gates/g1/rules', { rules: [{ name: 'a' }] }))!,
    writeOf(ok('POST', '/console/v1/gates/g1/rules', { rules: [{ name: 'a' }] }))!,
  ];
  const t = tally(twice);
  assert.equal(t.length, 1);
  assert.deepEqual([t[0].count, t[0].added], [2, 2]);
  const create = (id: string) => writeOf(ok('POST', '/console/v1/metrics', { name: id, type: 'sum' }, { data: { id: `${id}::sum` } }))!;
  const totals = totalsOf([
    {
      by: 'conformance',
      startedAt: '',
      restores: [],
      writes: [...t, create('cc_a'), create('cc_a'), create('cc_b'), writeOf(ok('PUT', '/console/v1/release_pipeline_triggers/t1/skip', { phaseID: 'p1' }))!],
    },
    {
      by: 'load:mutation',
      startedAt: '',
      restores: [],
      writes: [{ operation: 'createMetric', resource: 'metrics/cc_*', change: 'created', count: 4, undo: 'cannot be undone' }],
    },
  ]);
  assert.equal(totals.metricsCreated, 2 + 4, 'a duplicate create of cc_a makes no second metric');
  assert.deepEqual(totals.rulesAdded, { g1: 2 });
  assert.deepEqual(totals.phasesSkipped, { t1: 1 });
});

test('state: the rules a gate holds and its enabled state, a trigger current phase, from the answers', () => {
  const state = emptyState();
  noteState(state, ok('POST', '/console/v1/gates/g1/rules', { rules: [] }, { data: { rules: [{}, {}, {}], isEnabled: true } }));
  noteState(state, ok('PUT', '/console/v1/gates/g1/disable', undefined, { data: { isEnabled: false } }));
  noteState(state, ok('PUT', '/console/v1/release_pipeline_triggers/t1/skip', { phaseID: 'p1' }, { data: { currentPhaseID: 'p2', status: 'PAUSED' } }));
  assert.deepEqual(state, { gates: { g1: { rules: 3, isEnabled: false } }, triggers: { t1: { currentPhaseID: 'p2', status: 'PAUSED' } } });
});

test('parts: a fresh ledger, parts added and replaced by name, a restore settling the writes it undid', (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-ledger-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const opts = { target: 'http://t', manifest: 'm.json', readOnly: false };
  const toggle = writeOf(ok('PUT', '/console/v1/gates/g1/disable', undefined))!;
  addLedgerPart(dir, { by: 'old', startedAt: '', writes: [toggle], restores: [] }, opts);
  addLedgerPart(dir, { by: 'conformance', startedAt: '', writes: [toggle], restores: [] }, { ...opts, fresh: true });
  assert.deepEqual(
    readLedger(dir)!.parts.map((p) => p.by),
    ['conformance'],
  );
  assert.equal(readLedger(dir)!.totals.notRestored, 1);
  const l = addLedgerPart(
    dir,
    { by: 'conformance:restore', startedAt: '', writes: [], restores: [{ resource: 'gates/g1', field: 'isEnabled', to: true, ok: true }] },
    opts,
  );
  assert.equal(l.parts[0].writes[0].undo, 'restored');
  assert.equal(l.totals.notRestored, 0);
  addLedgerPart(dir, { by: 'conformance', startedAt: 'again', writes: [], restores: [] }, opts);
  assert.deepEqual(
    readLedger(dir)!.parts.map((p) => `${p.by}${p.startedAt ? `@${p.startedAt}` : ''}`),
    ['conformance:restore', 'conformance@again'],
  );
});

test("owed: recorded before the first write, the first run's state kept over a later snapshot, settled as given back, kept through a fresh ledger and a clearing", (t: TestContext) => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-owed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const opts = { target: 'http://t', manifest: 'm.json', readOnly: false };
  assert.deepEqual(owedRestores(dir), [], 'no ledger: nothing owed');
  // The first run found g1 disabled, g2 enabled; it was cut after enabling g1.
  assert.deepEqual(owe(dir, { target: 'http://t', by: 'conformance', gates: { g1: false, g2: true } }), { g1: false, g2: true });
  // A later snapshot finds g1 as the cut left it: the owner's state recorded first wins; g3 is new.
  assert.deepEqual(owe(dir, { target: 'http://t', by: 'load:mutation', gates: { g1: true, g2: true, g3: false } }), { g1: false, g2: true, g3: false });
  owe(dir, { target: 'http://other', by: 'conformance', gates: { x: true } });
  assert.equal(owedRestores(dir).find((o) => o.target === 'http://t')!.by, 'conformance', 'who owed it first');
  // A fresh ledger (a new run's first command) and verify's clearing keep what is owed.
  addLedgerPart(dir, { by: 'conformance:snapshot', startedAt: '', writes: [], restores: [] }, { ...opts, fresh: true });
  clearLedger(dir);
  assert.deepEqual(
    owedRestores(dir).map((o) => o.target),
    ['http://t', 'http://other'],
  );
  assert.equal(readLedger(dir)!.parts.length, 0, 'the earlier parts are cleared');
  assert.deepEqual(settleOwed(dir, 'http://t', ['g1', 'g3']), { g2: true }, 'a failed restore of g2 stays owed');
  addLedgerPart(
    dir,
    { by: 'conformance:restore', startedAt: '', writes: [], restores: [{ resource: 'gates/g1', field: 'isEnabled', to: false, ok: true }] },
    opts,
  );
  assert.match(restoredLine(dir, 'http://t'), /^gave back g1 isEnabled false; still owed: g2 isEnabled true \(in ledger\.json/);
  assert.deepEqual(settleOwed(dir, 'http://t', ['g2']), {});
  assert.equal(restoredLine(dir, 'http://t'), 'gave back g1 isEnabled false; nothing left owed');
  // A cleared folder gets back what was owed in it.
  const owed = owedRestores(dir);
  rmSync(dir, { recursive: true, force: true });
  keepOwed(dir, owed);
  assert.deepEqual(owedRestores(dir), owed);
  forgetOwed(dir, 'http://other');
  clearLedger(dir);
  assert.equal(readLedger(dir), undefined, 'nothing owed: the clearing leaves no ledger');
});
