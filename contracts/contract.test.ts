// The contract says what the spec states, at its boundaries, and invents nothing where the spec says
// "not shown". These tests read the committed generated schemas, as every consumer does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSchemas } from './build.ts';
import { contractAjv, DIRECTIONALITIES, EXPERIMENT_STATUSES, METRIC_TYPES, OPERATIONS, SCHEMAS_DIR, schema } from './index.ts';

function validator(file: string) {
  const validate = contractAjv({ allErrors: true }).compile(schema(file));
  return (value: unknown) => validate(value) as boolean;
}

const createMetric = validator('operations/createMetric.body.json');
const overridesBody = validator('operations/patchExperimentOverrides.body.json');
const triggerBody = validator('operations/skipTriggerPhase.body.json');
const listQuery = validator('operations/listExperiments.query.json');
const overridesResponse = validator('operations/patchExperimentOverrides.response.json');
const pipelinesResponse = validator('operations/listReleasePipelines.response.json');
const metricResponse = validator('operations/createMetric.response.json');

// The spec's words, typed here once as the oracle the contract's enums are held to (everything else
// takes them from contracts/index.ts).
test("contract: the enums the index exports are the spec's lists (spec 2.5, 2.8)", () => {
  assert.deepEqual(
    [...METRIC_TYPES],
    ['ratio', 'mean', 'event_count_custom', 'event_user', 'funnel', 'composite', 'composite_sum', 'sum', 'undefined', 'user_warehouse'],
  );
  assert.deepEqual([...EXPERIMENT_STATUSES], ['active', 'setup', 'decision_made', 'abandoned', 'archived', 'experiment_stopped', 'assignment_stopped']);
  assert.deepEqual([...DIRECTIONALITIES], ['increase', 'decrease']);
});

test('contract: ten operations, each with a response schema (spec 4)', () => {
  const index = { operations: OPERATIONS };
  assert.deepEqual(Object.keys(index.operations).sort(), [
    'addGateRules',
    'createMetric',
    'disableGate',
    'enableGate',
    'listExperiments',
    'listReleasePipelines',
    'patchExperimentOverrides',
    'skipTriggerPhase',
    'unpauseTrigger',
    'updateMetric',
  ]);
  for (const [id, op] of Object.entries<any>(index.operations)) {
    assert.ok(op.path.startsWith('/console/v1/'), `${id} lives under /console/v1/ (spec 9)`);
    assert.ok(op.response, `${id} has a response schema`);
  }
  // Spec 4.0: 200 is shown for list-pipelines, skip, unpause and enable only.
  const exact = Object.entries<any>(index.operations)
    .filter(([, op]) => op.successStatus === '200')
    .map(([id]) => id)
    .sort();
  assert.deepEqual(exact, ['enableGate', 'listReleasePipelines', 'skipTriggerPhase', 'unpauseTrigger']);
});

test('contract: metric name length 4 to 200 (spec 8)', () => {
  assert.equal(createMetric({ name: 'abc', type: 'sum' }), false);
  assert.equal(createMetric({ name: 'abcd', type: 'sum' }), true);
  assert.equal(createMetric({ name: 'a'.repeat(200), type: 'sum' }), true);
  assert.equal(createMetric({ name: 'a'.repeat(201), type: 'sum' }), false);
});

test('contract: metric name and type are required, type one of the ten (spec 4.6)', () => {
  assert.equal(createMetric({ type: 'sum' }), false);
  assert.equal(createMetric({ name: 'abcd' }), false);
  for (const type of METRIC_TYPES) assert.equal(createMetric({ name: 'abcd', type }), true, type);
  assert.equal(createMetric({ name: 'abcd', type: 'median' }), false);
});

test('contract: metric description at most 1000, directionality increase or decrease (spec 4.6, 8)', () => {
  assert.equal(createMetric({ name: 'abcd', type: 'sum', description: 'd'.repeat(1000) }), true);
  assert.equal(createMetric({ name: 'abcd', type: 'sum', description: 'd'.repeat(1001) }), false);
  assert.equal(createMetric({ name: 'abcd', type: 'sum', directionality: 'decrease' }), true);
  assert.equal(createMetric({ name: 'abcd', type: 'sum', directionality: 'sideways' }), false);
});

test('contract: overrides at most 1000 items, both arrays required (spec 4.11, 8)', () => {
  const item = { type: 'gate', id: 'g', groupID: 'control' };
  assert.equal(overridesBody({ overrides: Array(1000).fill(item), userIDOverrides: [] }), true);
  assert.equal(overridesBody({ overrides: Array(1001).fill(item), userIDOverrides: [] }), false);
  assert.equal(overridesBody({ userIDOverrides: [] }), false);
  assert.equal(overridesBody({ overrides: [] }), false);
});

test('contract: phaseID is required to skip or unpause (spec 4.9, 4.10)', () => {
  assert.equal(triggerBody({ phaseID: 'p1' }), true);
  assert.equal(triggerBody({}), false);
});

test('contract: experiment filters: status enum and YYYY-MM-DD dates (spec 4.4)', () => {
  assert.equal(listQuery({ status: 'active', createdStartDate: '2026-01-31' }), true);
  assert.equal(listQuery({ status: 'running' }), false);
  assert.equal(listQuery({ createdEndDate: '31/01/2026' }), false);
});

test('contract: overrides response admits both shapes of spec 4.11', () => {
  assert.equal(overridesResponse({ message: 'ok', data: { overrides: [] } }), true);
  assert.equal(overridesResponse({ overrides: [{ type: 'gate', id: 'g', groupID: 'x' }], userIDOverrides: [{ groupID: 'x', ids: ['u1'] }] }), true);
  assert.equal(overridesResponse({ result: [] }), false);
});

test('contract: pagination is an object with no required fields (spec 2.1 "not shown")', () => {
  assert.equal(pipelinesResponse({ message: 'List pipelines success', data: [], pagination: {} }), true);
  assert.equal(pipelinesResponse({ message: 'List pipelines success', data: [] }), false);
});

test('contract: metric id is shaped <name>::<type> (spec 2.8)', () => {
  const metric = {
    id: 'signups::sum',
    name: 'signups',
    directionality: 'increase',
    type: 'sum',
    description: '',
    isPermanent: false,
    isReadOnly: false,
    isHidden: false,
    isVerified: false,
    tags: [],
    creatorName: 'a',
    creatorEmail: null,
    createdTime: 1,
    owner: { name: 'a', ownerID: 'u', ownerType: 'USER', ownerName: 'a', ownerEmail: 'a@x' },
    lineage: { events: [], metrics: [] },
    team: '',
    unitTypes: [],
    metricEvents: [],
  };
  assert.equal(metricResponse({ message: 'Metric created successfully.', data: metric }), true);
  assert.equal(metricResponse({ message: 'Metric created successfully.', data: { ...metric, id: 'signups' } }), false);
  // Responses admit fields the spec does not list.
  assert.equal(metricResponse({ message: 'm', data: { ...metric, extra: 1 } }), true);
});

test('contract: committed schemas equal a fresh generation', () => {
  for (const [path, text] of generateSchemas()) assert.equal(readFileSync(join(SCHEMAS_DIR, path), 'utf8'), text, path);
});
