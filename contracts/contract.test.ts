// The contract says what the spec states, at its boundaries, and invents nothing where the spec says
// "not shown". These tests read the committed generated schemas, as every consumer does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSchemas } from './build.ts';
import {
  contractAjv,
  DIRECTIONALITIES,
  EXPERIMENT_STATUSES,
  METRIC_TYPES,
  OPERATIONS,
  SCHEMAS_DIR,
  SPEC_ALLOWED,
  SPEC_LIMITS,
  SPEC_MESSAGES,
  SPEC_OPERATIONS,
  SPEC_RESOURCE_ALLOWED,
  schema,
} from './index.ts';

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

// The schemas' enums, operations and bounds are held to the facts read from the spec's words
// (contracts/facts.ts): the two are generated apart (openapi.yaml and its overlay, the model's facts),
// and every consumer takes one or the other.
test("contract: the enums the index exports are the spec's lists (spec 2.5, 2.8)", () => {
  assert.deepEqual([...METRIC_TYPES], [...SPEC_ALLOWED.createMetric.type]);
  assert.deepEqual([...EXPERIMENT_STATUSES], [...SPEC_ALLOWED.listExperiments.status]);
  assert.deepEqual([...EXPERIMENT_STATUSES], [...SPEC_RESOURCE_ALLOWED.Experiment.status]);
  assert.deepEqual([...DIRECTIONALITIES], [...SPEC_ALLOWED.createMetric.directionality]);
  assert.deepEqual([...DIRECTIONALITIES], [...SPEC_RESOURCE_ALLOWED.Metric.directionality]);
});

test("contract: the spec's operations, each with a response schema (spec 4)", () => {
  const index = { operations: OPERATIONS };
  assert.deepEqual(Object.keys(index.operations).sort(), Object.keys(SPEC_OPERATIONS).sort());
  for (const [id, op] of Object.entries(SPEC_OPERATIONS)) {
    const o = OPERATIONS[id];
    assert.deepEqual(
      [o.method, o.path, o.section, o.successStatus, o.message],
      [op.method, op.path, op.section, op.successStatus, (op as { message?: string }).message],
      id,
    );
  }
  for (const [id, op] of Object.entries<any>(index.operations)) {
    assert.ok(op.path.startsWith('/console/v1/'), `${id} lives under /console/v1/ (spec 9)`);
    assert.ok(op.response, `${id} has a response schema`);
  }
});

const { minLength: NAME_MIN, maxLength: NAME_MAX } = SPEC_LIMITS.createMetric.name;
const NAME = 'a'.repeat(NAME_MIN);

test(`contract: metric name length ${NAME_MIN} to ${NAME_MAX} (spec 8)`, () => {
  assert.equal(createMetric({ name: 'a'.repeat(NAME_MIN - 1), type: 'sum' }), false);
  assert.equal(createMetric({ name: 'a'.repeat(NAME_MIN), type: 'sum' }), true);
  assert.equal(createMetric({ name: 'a'.repeat(NAME_MAX), type: 'sum' }), true);
  assert.equal(createMetric({ name: 'a'.repeat(NAME_MAX + 1), type: 'sum' }), false);
});

test(`contract: metric name and type are required, type one of the ${METRIC_TYPES.length} (spec 4.6)`, () => {
  assert.equal(createMetric({ type: 'sum' }), false);
  assert.equal(createMetric({ name: NAME }), false);
  for (const type of METRIC_TYPES) assert.equal(createMetric({ name: NAME, type }), true, type);
  assert.equal(createMetric({ name: NAME, type: 'median' }), false);
});

const DESCRIPTION_MAX = SPEC_LIMITS.createMetric.description.maxLength;
test(`contract: metric description at most ${DESCRIPTION_MAX}, directionality ${DIRECTIONALITIES.join(' or ')} (spec 4.6, 8)`, () => {
  assert.equal(createMetric({ name: NAME, type: 'sum', description: 'd'.repeat(DESCRIPTION_MAX) }), true);
  assert.equal(createMetric({ name: NAME, type: 'sum', description: 'd'.repeat(DESCRIPTION_MAX + 1) }), false);
  for (const directionality of DIRECTIONALITIES) assert.equal(createMetric({ name: NAME, type: 'sum', directionality }), true, directionality);
  assert.equal(createMetric({ name: NAME, type: 'sum', directionality: 'sideways' }), false);
});

const OVERRIDES_MAX = SPEC_LIMITS.patchExperimentOverrides.overrides.maxItems;
test(`contract: overrides at most ${OVERRIDES_MAX} items, both arrays required (spec 4.11, 8)`, () => {
  const item = { type: 'gate', id: 'g', groupID: 'control' };
  assert.equal(overridesBody({ overrides: Array(OVERRIDES_MAX).fill(item), userIDOverrides: [] }), true);
  assert.equal(overridesBody({ overrides: Array(OVERRIDES_MAX + 1).fill(item), userIDOverrides: [] }), false);
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
  const message = SPEC_MESSAGES.listReleasePipelines;
  assert.equal(pipelinesResponse({ message, data: [], pagination: {} }), true);
  assert.equal(pipelinesResponse({ message, data: [] }), false);
});

test('contract: metric id is shaped <name>::<type> (spec 2.8)', () => {
  const metric = {
    id: 'signups::sum',
    name: 'signups',
    directionality: DIRECTIONALITIES[0],
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
  assert.equal(metricResponse({ message: SPEC_MESSAGES.createMetric, data: metric }), true);
  assert.equal(metricResponse({ message: SPEC_MESSAGES.createMetric, data: { ...metric, id: 'signups' } }), false);
  // Responses admit fields the spec does not list.
  assert.equal(metricResponse({ message: 'm', data: { ...metric, extra: 1 } }), true);
});

test('contract: committed schemas equal a fresh generation', () => {
  for (const [path, text] of generateSchemas()) assert.equal(readFileSync(join(SCHEMAS_DIR, path), 'utf8'), text, path);
});
