// Which clause a response schema error belongs to (support/schema-clauses.ts), on the contract itself:
// each error of a broken answer goes to the clause that states what it breaks, and every clause a
// response schema can blame is one it is said to hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATIONS, schema } from '../index.ts';
import { CLAUSES } from './clauses.ts';
import { clausesOfSchema, familyOf } from './schema-clauses.ts';
import { otherCase, responseErrorsByClause } from './validators.ts';

const clausesOf = (op: string, body: unknown) => responseErrorsByClause(op, body).map((e) => e.clause);

test('schema clauses: a field of the wrong type fails that field clause, nested fields their own', () => {
  assert.deepEqual(clausesOf('createMetric', { message: 'm', data: { createdTime: 'yesterday' } }), ['metric.field.createdTime']);
  assert.deepEqual(clausesOf('createMetric', { message: 'm', data: { owner: { ownerID: 3 } } }), ['metric.field.owner']);
  assert.deepEqual(clausesOf('listExperiments', { message: 'm', data: [{ groups: [{ name: 4 }] }], pagination: {} }), ['experiment.field.groups.name']);
  assert.deepEqual(clausesOf('skipTriggerPhase', { message: 'm', data: { actions: [{ timeMs: 'now' }] } }), ['trigger.field.actions.timeMs']);
  assert.deepEqual(clausesOf('listReleasePipelines', { message: 'm', data: [{ phases: [{ rules: [{ name: 1 }] }] }], pagination: {} }), [
    'pipeline.field.phases.rules.name',
  ]);
  assert.deepEqual(clausesOf('addGateRules', { message: 'm', data: { rules: [{ ...rule(), conditions: [{ type: 5 }] }] } }), ['condition.field.type']);
});

test("schema clauses: a metric id that is not <name>::<type> fails metric.id.shape, the property's own clause", () => {
  assert.deepEqual(clausesOf('createMetric', { message: 'm', data: { id: 'bare' } }), ['metric.id.shape']);
  assert.deepEqual(clausesOf('createMetric', { message: 'm', data: { id: 7 } }), ['metric.field.id']);
});

test('schema clauses: the envelope: a missing data, pagination or message, and a body that is no object', () => {
  assert.deepEqual(clausesOf('listExperiments', { message: 'm', experiments: [], pagination: {} }), ['envelope.data']);
  assert.deepEqual(clausesOf('listExperiments', { message: 'm', data: [] }), ['envelope.pagination']);
  assert.deepEqual(clausesOf('updateMetric', { data: {} }), ['envelope.message']);
  assert.deepEqual(clausesOf('createMetric', 'created'), ['envelope.successObject']);
});

function rule(): Record<string, unknown> {
  return { id: 'r', baseID: 'b', name: 'n', passPercentage: 1, conditions: [], environments: null };
}

test('schema clauses: a stated presence fails the clause that states it, once, named for the field where several do', () => {
  const { id, baseID, ...noIds } = rule();
  assert.deepEqual(clausesOf('addGateRules', { message: 'm', data: { rules: [noIds] } }), ['gates.addRules.rules.fields', 'gates.addRules.rules.fields']);
  const { environments, ...noEnvironments } = rule();
  // Required by GateRule (gates.addRules.environments.null) and by AddedGateRule: one error, the clause named for it.
  assert.deepEqual(clausesOf('addGateRules', { message: 'm', data: { rules: [noEnvironments] } }), ['gates.addRules.environments.null']);
  assert.deepEqual(clausesOf('enableGate', { message: 'm', data: { owner: {} } }), ['gates.enableDisable.monitoringMetrics']);
  assert.deepEqual(clausesOf('disableGate', { message: 'm', data: { owner: {}, monitoringMetrics: [] } }), ['gates.disable.response.isEnabled']);
  assert.deepEqual(clausesOf('addGateRules', { message: 'm', data: {} }), ['gates.addRules.response.gate']);
});

test('schema clauses: of the two forms of the overrides answer, only the errors of the one it comes closest to', () => {
  assert.deepEqual(clausesOf('patchExperimentOverrides', { overrides: [{ type: 'gate', id: 'g' }], userIDOverrides: [] }), ['overrides.patch.response.items']);
  // A field of either form missing: the body is of neither form that 4.11 states (overrides.patch.response).
  assert.deepEqual(clausesOf('patchExperimentOverrides', { message: 'm' }), ['overrides.patch.response']);
  assert.deepEqual(clausesOf('patchExperimentOverrides', { data: {} }), ['overrides.patch.response']);
  assert.deepEqual(clausesOf('patchExperimentOverrides', { overrides: [] }), ['overrides.patch.response']);
  assert.deepEqual(clausesOf('patchExperimentOverrides', { message: 'm', data: [] }), ['envelope.data']);
});

test('schema clauses: the closest form is the one whose own fields the body carries, then the one with fewest defects, a defect of every item counted once', () => {
  // Three retyped items are one defect of the top-level form, against two of the envelope (message and data missing).
  const items = [0, 1, 2].map((i) => ({ type: 17, id: 'g', groupID: `g${i}` }));
  assert.deepEqual([...new Set(clausesOf('patchExperimentOverrides', { overrides: items, userIDOverrides: [] }))], ['override.field.type']);
  const untyped = [0, 1, 2].map((i) => ({ id: 'g', groupID: `g${i}` }));
  assert.deepEqual([...new Set(clausesOf('patchExperimentOverrides', { overrides: untyped, userIDOverrides: [] }))], ['overrides.patch.response.items']);
  // Two defects in the items of the top-level form, which has both its arrays: still that form's, not the envelope's (two fields lacking).
  const noGroups = { overrides: [{ type: 'gate', id: 'g' }], userIDOverrides: [{ ids: ['u'] }] };
  assert.deepEqual([...new Set(clausesOf('patchExperimentOverrides', noGroups))], ['overrides.patch.response.items']);
});

test('schema clauses: the field families are the components whose properties are exactly a family of field clauses', () => {
  assert.equal(familyOf('ReleasePipeline'), 'pipeline');
  assert.equal(familyOf('GateRule'), 'gateRule');
  assert.equal(familyOf('Phase'), undefined);
});

test('schema clauses: every clause a response schema holds is in the catalogue, and a wrong type of any field blames one of them', () => {
  const ids = new Set(CLAUSES.map((c) => c.id));
  let judged = 0;
  for (const [op, { response }] of Object.entries(OPERATIONS)) {
    const held = clausesOfSchema(schema(response));
    assert.ok(held.length > 0, op);
    for (const c of held) assert.ok(ids.has(c), `${op}: ${c}`);
    for (const c of held.filter((x) => x.includes('.field.') && !x.includes('.field.', x.indexOf('.field.') + 1))) {
      // A field clause of the data's own shape: a value no schema admits (a symbol is not JSON) there fails that clause.
      const [family, , ...path] = c.split('.');
      if (path.length !== 1 || !['metric', 'gate', 'trigger'].includes(family)) continue;
      const body = { message: 'm', data: { [path[0]]: { not: 'this' } }, ...(op.startsWith('list') ? { pagination: {} } : {}) };
      // The errors at that field (a presence the body lacks elsewhere is another error, another clause).
      const blamed = responseErrorsByClause(op, body)
        .filter((e) => e.line.startsWith(`/data/${path[0]} `))
        .map((e) => e.clause);
      if (blamed.length === 0) continue; // a field whose type admits an object (owner, lineage, reviewSettings)
      assert.ok(
        blamed.every((b) => b && held.includes(b)),
        `${op} ${c}: ${blamed.join(', ')}`,
      );
      assert.ok(blamed.includes(c), `${op}: an object for ${path[0]} blames ${c}, not ${blamed.join(', ')}`);
      judged++;
    }
  }
  assert.ok(judged > 30, `fields judged: ${judged}`);
});

test('schema clauses: a timestamp of another type breaks its field clause and timestamps.integer (spec 2), another field its clause alone', () => {
  const blamed = (op: string, body: unknown) => responseErrorsByClause(op, body).map((e) => [e.clause, ...(e.also ?? [])]);
  assert.deepEqual(blamed('createMetric', { message: 'm', data: { createdTime: 1.5 } }), [['metric.field.createdTime', 'timestamps.integer']]);
  assert.deepEqual(blamed('listExperiments', { message: 'm', data: [{ startTime: 'noon' }], pagination: {} }), [
    ['experiment.field.startTime', 'timestamps.integer'],
  ]);
  assert.deepEqual(blamed('createMetric', { message: 'm', data: { name: 1.5 } }), [['metric.field.name']]);
  assert.ok(clausesOfSchema(schema(OPERATIONS.enableGate.response)).includes('timestamps.integer'));
});

test('schema clauses: a field the spec names spelt in another case is found, once per pattern; beside the field itself it is another field', () => {
  const { baseID, ...rest } = rule();
  const camel = { ...rest, baseId: baseID };
  assert.deepEqual(otherCase('addGateRules', { message: 'm', data: { rules: [camel, camel] } }), ['/data/rules/*: baseId for baseID']);
  assert.deepEqual(otherCase('addGateRules', { message: 'm', data: { rules: [{ ...rule(), baseId: 'x' }] } }), []);
  assert.deepEqual(otherCase('listReleasePipelines', { message: 'm', data: [{ CreatedTime: 1 }], pagination: {} }), ['/data/*: CreatedTime for createdTime']);
  assert.deepEqual(otherCase('updateMetric', { Message: 'm', data: {} }), ['/: Message for message']);
});
