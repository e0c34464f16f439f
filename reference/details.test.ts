// The reference server's exact answers, through build() and inject(): the messages, the metric and
// rule documents field by field, updates, trigger actions, every filter, the pagination boundary and
// the paging variant. The conformance suite checks these against a separate process, where mutation
// testing cannot see them; these tests are what kills the mutants of reference/routes (npm run mutation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXPERIMENT_STATUSES, METRIC_TYPES, SPEC_ALLOWED, SPEC_DEFAULTS, SPEC_MESSAGES } from '../contracts/index.ts';
import { build } from './app.ts';

const KEY = 'details-key-0123456789';
const H = { 'service-api-key': KEY };
const J = { ...H, 'content-type': 'application/json' };
const NOW = 1_800_000_000_123;
const ACTOR = { id: 'console_api', name: 'Console API', email: 'console-api@example.com' };
// The spec's values these tests send and expect, from the contract.
const [TYPE, OTHER_TYPE] = METRIC_TYPES;
const DEFAULT_DIRECTIONALITY = SPEC_DEFAULTS.createMetric.directionality;
const OTHER_DIRECTIONALITY = SPEC_ALLOWED.createMetric.directionality.find((d) => d !== DEFAULT_DIRECTIONALITY);

const server = (extra: Partial<Parameters<typeof build>[0]> = {}) => build({ apiKey: KEY, scale: 120, now: () => NOW, ...extra });
type App = ReturnType<typeof server>;
const send = (app: App, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown) =>
  app.inject({ method, url, headers: payload === undefined ? H : J, payload: payload === undefined ? undefined : JSON.stringify(payload) });
async function ok(app: App, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown) {
  const r = await send(app, method, url, payload);
  assert.equal(r.statusCode, 200, `${method} ${url}: ${r.body.slice(0, 200)}`);
  return r.json();
}
/** An unknown id: 404 with a message naming it. */
async function notFound(app: App, method: 'POST' | 'PUT' | 'PATCH', url: string, message: RegExp, payload?: unknown) {
  const r = await send(app, method, url, payload);
  assert.equal(r.statusCode, 404, `${method} ${url}`);
  assert.match(r.json().message, message);
}

test("every operation answers its own message: the one the spec states, the reference's own where it states none", async () => {
  const app = server();
  const messages: [string, Promise<any>][] = [
    [SPEC_MESSAGES.addGateRules, ok(app, 'POST', '/console/v1/gates/gate_cc_alpha/rules', { rules: [] })],
    [SPEC_MESSAGES.disableGate, ok(app, 'PUT', '/console/v1/gates/gate_cc_beta/disable')],
    [SPEC_MESSAGES.enableGate, ok(app, 'PUT', '/console/v1/gates/gate_cc_beta/enable')],
    [SPEC_MESSAGES.listExperiments, ok(app, 'GET', '/console/v1/experiments')],
    [SPEC_MESSAGES.listExperiments, ok(app, 'GET', `/console/v1/experiments?status=${EXPERIMENT_STATUSES[0]}`)],
    [SPEC_MESSAGES.listReleasePipelines, ok(app, 'GET', '/console/v1/release_pipelines')],
    [SPEC_MESSAGES.createMetric, ok(app, 'POST', '/console/v1/metrics', { name: 'msg_metric', type: TYPE })],
    [
      'Experiment overrides updated successfully.',
      ok(app, 'PATCH', '/console/v1/experiments/exp_cc_overrides_1/overrides', { overrides: [], userIDOverrides: [] }),
    ],
    ['Trigger phase skipped successfully.', ok(app, 'PUT', '/console/v1/release_pipeline_triggers/trg_cc_1/skip', { phaseID: 'ph_cc_1_1' })],
  ];
  for (const [message, reply] of messages) assert.equal((await reply).message, message);
  assert.equal((await ok(app, 'POST', `/console/v1/metrics/msg_metric::${TYPE}`, {})).message, SPEC_MESSAGES.updateMetric);
  await app.close();
});

test('metrics: a created metric is exactly the spec document with the defaults, or with what was sent', async () => {
  const app = server();
  const bare = (await ok(app, 'POST', '/console/v1/metrics', { name: 'bare_metric', type: TYPE })).data;
  assert.deepEqual(bare, {
    id: `bare_metric::${TYPE}`,
    name: 'bare_metric',
    directionality: DEFAULT_DIRECTIONALITY,
    type: TYPE,
    description: '',
    isPermanent: false,
    isReadOnly: false,
    isHidden: false,
    isVerified: false,
    tags: [],
    creatorName: ACTOR.name,
    creatorEmail: ACTOR.email,
    createdTime: NOW,
    owner: { name: ACTOR.name, ownerID: ACTOR.id, ownerType: 'SDK_KEY', ownerName: ACTOR.name, ownerEmail: ACTOR.email },
    lineage: { events: [], metrics: [] },
    team: '',
    unitTypes: [],
    metricEvents: [],
  });
  const kept = {
    metricComponentMetrics: [{ name: 'a', type: TYPE }],
    rollupTimeWindow: 'custom',
    customRollUpStart: 1,
    customRollUpEnd: 7,
    funnelEventList: [{ name: 'f', type: 'event_dau' }],
    funnelCountDistinct: SPEC_ALLOWED.createMetric.funnelCountDistinct.at(-1),
    warehouseNative: { aggregation: 'sum' },
    teamID: 'team_x',
  };
  const full = (
    await ok(app, 'POST', '/console/v1/metrics', {
      name: 'full_metric',
      type: OTHER_TYPE,
      directionality: OTHER_DIRECTIONALITY,
      description: 'd',
      isPermanent: true,
      isReadOnly: true,
      isVerified: true,
      tags: ['t1'],
      team: 'growth',
      unitTypes: ['userID'],
      metricEvents: [{ name: 'e1', type: 'metadata' }, {}],
      ...kept,
    })
  ).data;
  assert.deepEqual(full, {
    id: `full_metric::${OTHER_TYPE}`,
    name: 'full_metric',
    directionality: OTHER_DIRECTIONALITY,
    type: OTHER_TYPE,
    description: 'd',
    isPermanent: true,
    isReadOnly: true,
    isHidden: false,
    isVerified: true,
    tags: ['t1'],
    creatorName: ACTOR.name,
    creatorEmail: ACTOR.email,
    createdTime: NOW,
    owner: { name: ACTOR.name, ownerID: ACTOR.id, ownerType: 'SDK_KEY', ownerName: ACTOR.name, ownerEmail: ACTOR.email },
    lineage: { events: ['e1', ''], metrics: [] },
    team: 'growth',
    unitTypes: ['userID'],
    metricEvents: [
      { name: 'e1', type: 'metadata', criteria: [] },
      { name: '', type: 'value', criteria: [] },
    ],
    ...kept,
  });
  const dup = await send(app, 'POST', '/console/v1/metrics', { name: 'full_metric', type: OTHER_TYPE, dryRun: true });
  assert.equal(dup.statusCode, 409);
  assert.match(dup.json().message, new RegExp(`full_metric::${OTHER_TYPE} already exists`));
  await app.close();
});

test('metrics: update applies every field it is sent, keeps the rest, and null team is no team', async () => {
  const app = server();
  const created = (await ok(app, 'POST', '/console/v1/metrics', { name: 'upd_metric', type: TYPE, team: 'core', description: 'before' })).data;
  const url = `/console/v1/metrics/upd_metric::${TYPE}`;
  assert.deepEqual((await ok(app, 'POST', url, {})).data, created);
  const change = {
    name: 'renamed_metric',
    description: 'after',
    tags: ['x', 'y'],
    isVerified: true,
    isReadOnly: true,
    isPermanent: true,
    warehouseNative: { aggregation: 'count' },
    unitTypes: ['stableID'],
    teamID: 'tid',
    directionality: OTHER_DIRECTIONALITY,
  };
  const updated = (await ok(app, 'POST', url, { ...change, owner: { email: 'o@example.com', ownerID: 'owner_1' } })).data;
  assert.deepEqual(updated, { ...created, ...change, owner: { ...created.owner, ownerEmail: 'o@example.com', ownerID: 'owner_1' } });
  assert.equal(updated.id, `upd_metric::${TYPE}`);
  const partOwner = (await ok(app, 'POST', url, { owner: { ownerID: 'owner_2' }, team: null })).data;
  assert.deepEqual(partOwner.owner, { ...created.owner, ownerEmail: 'o@example.com', ownerID: 'owner_2' });
  assert.equal(partOwner.team, '');
  const emailOnly = (await ok(app, 'POST', url, { owner: { email: 'p@example.com' }, team: 'ops' })).data;
  assert.deepEqual(emailOnly.owner, { ...created.owner, ownerEmail: 'p@example.com', ownerID: 'owner_2' });
  assert.equal(emailOnly.team, 'ops');
  assert.deepEqual((await ok(app, 'POST', url, {})).data, emailOnly);
  await notFound(app, 'POST', `/console/v1/metrics/nope::${TYPE}`, new RegExp(`metric "nope::${TYPE}" not found`), {});
  await app.close();
});

test('gates: a rule gets its defaults, keeps what was sent, and enable/disable stamp the modifier', async () => {
  const app = server();
  const url = '/console/v1/gates/gate_cc_alpha/rules';
  const gate = (
    await ok(app, 'POST', url, {
      rules: [
        {},
        {
          id: 'r_given',
          name: 'n',
          passPercentage: 5,
          environments: ['prod'],
          conditions: [{}, { type: 'country', targetValue: ['US'], operator: 'none', field: 'f' }],
          returnValue: { v: 1 },
          completedAutomatedRollouts: [{ time: 1, passPercent: 2 }],
          pendingAutomatedRollouts: [{ time: 3 }],
        },
      ],
    })
  ).data;
  const [bare, given] = gate.rules.slice(-2);
  assert.equal(typeof bare.id, 'string');
  assert.ok(bare.id.length > 0);
  assert.deepEqual(bare, { id: bare.id, baseID: bare.id, name: '', passPercentage: 0, conditions: [], environments: null });
  assert.deepEqual(given, {
    id: 'r_given',
    baseID: 'r_given',
    name: 'n',
    passPercentage: 5,
    environments: ['prod'],
    conditions: [
      { type: '', targetValue: [], operator: 'any' },
      { type: 'country', targetValue: ['US'], operator: 'none', field: 'f' },
    ],
    returnValue: { v: 1 },
    completedAutomatedRollouts: [{ time: 1, passPercent: 2 }],
    pendingAutomatedRollouts: [{ time: 3 }],
  });
  for (const [action, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    const g = (await ok(app, 'PUT', `/console/v1/gates/gate_cc_beta/${action}`)).data;
    assert.equal(g.isEnabled, enabled, action);
    assert.equal(g.lastModifiedTime, NOW);
    assert.equal(g.lastModifierID, ACTOR.id);
    assert.equal(g.lastModifierName, ACTOR.name);
    assert.equal(g.lastModifierEmail, ACTOR.email);
  }
  await notFound(app, 'PUT', '/console/v1/gates/nope/enable', /gate "nope" not found/);
  await app.close();
});

test('overrides: the first patch and every later one replace what was there', async () => {
  const app = server();
  const url = '/console/v1/experiments/exp_cc_overrides_1/overrides';
  const a = { overrides: [{ type: 'gate', id: 'gate_cc_alpha', groupID: 'g1' }], userIDOverrides: [{ groupID: 'g1', ids: ['u1'] }] };
  const b = { overrides: [{ type: 'gate', id: 'gate_cc_beta', groupID: 'g2' }], userIDOverrides: [] };
  assert.deepEqual((await ok(app, 'PATCH', url, a)).data, a);
  assert.deepEqual((await ok(app, 'PATCH', url, b)).data, b);
  await notFound(app, 'PATCH', '/console/v1/experiments/nope/overrides', /experiment "nope" not found/, b);
  await app.close();
});

test('triggers: skip appends SKIPPED then STARTED with the time and actor, sets the phase end; unpause appends UNPAUSED', async () => {
  const app = server();
  const base = '/console/v1/release_pipeline_triggers/trg_cc_2';
  const pipelines = (await ok(app, 'GET', '/console/v1/release_pipelines?limit=100')).data;
  let t = (await ok(app, 'PUT', `${base}/skip`, { phaseID: 'ph_cc_2_1' })).data;
  const pipeline = pipelines.find((p: any) => p.id === t.releasePipelineID);
  const next = pipeline.phases[1];
  assert.equal(t.currentPhaseID, next.id);
  assert.equal(t.currentPhase, next.name);
  assert.equal(t.currentPhaseEndTime, NOW + next.timeIntervalMs);
  assert.equal(t.status, next.requiredReview ? 'PAUSED' : 'IN_PROGRESS');
  assert.deepEqual(t.actions.slice(-2), [
    { type: 'SKIPPED', timeMs: NOW, phaseID: 'ph_cc_2_1', actorID: ACTOR.id, actorName: ACTOR.name },
    { type: 'STARTED', timeMs: NOW, phaseID: next.id, actorID: ACTOR.id, actorName: ACTOR.name },
  ]);
  assert.equal(t.lastModifierID, ACTOR.id);
  assert.equal(t.lastModifierName, ACTOR.name);
  // Walk to a phase that requires review, then unpause it.
  while (t.status !== 'PAUSED') t = (await ok(app, 'PUT', `${base}/skip`, { phaseID: t.currentPhaseID })).data;
  const notCurrent = await send(app, 'PUT', `${base}/unpause`, { phaseID: 'ph_cc_2_1' });
  assert.equal(notCurrent.statusCode, 409);
  assert.match(notCurrent.json().message, /is not the current phase/);
  const u = await ok(app, 'PUT', `${base}/unpause`, { phaseID: t.currentPhaseID });
  assert.equal(u.message, 'Trigger unpaused successfully.');
  assert.equal(u.data.status, 'IN_PROGRESS');
  assert.deepEqual(u.data.actions.at(-1), { type: 'UNPAUSED', timeMs: NOW, phaseID: t.currentPhaseID, actorID: ACTOR.id, actorName: ACTOR.name });
  const again = await send(app, 'PUT', `${base}/unpause`, { phaseID: t.currentPhaseID });
  assert.equal(again.statusCode, 409);
  assert.match(again.json().message, /is not paused \(IN_PROGRESS\)/);
  await app.close();
});

test('experiments: every equality filter, created dates, tags spelling and totals', async () => {
  const app = server();
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const body = await ok(app, 'GET', `/console/v1/experiments?limit=100&page=${page}`);
    if (body.data.length === 0) break;
    all.push(...body.data);
  }
  const list = async (qs: string) => {
    const ids: string[] = [];
    let total;
    for (let page = 1; ; page++) {
      const body = await ok(app, 'GET', `/console/v1/experiments?limit=100&page=${page}&${qs}`);
      total = body.pagination.totalItems;
      if (body.data.length === 0) break;
      ids.push(...body.data.map((e: any) => e.id));
    }
    assert.equal(total, ids.length, `${qs}: totalItems`);
    return ids.sort();
  };
  const sample = all[7];
  const filters: [string, (e: any) => boolean][] = [
    [`layerID=${sample.layerID}`, (e) => e.layerID === sample.layerID],
    [`idType=${sample.idType}`, (e) => e.idType === sample.idType],
    [`targetAppID=${sample.targetApps[0]}`, (e) => e.targetApps[0] === sample.targetApps[0]],
    [`creatorName=${encodeURIComponent(sample.creatorName)}`, (e) => e.creatorName === sample.creatorName],
    [`creatorID=${sample.creatorID}`, (e) => e.creatorID === sample.creatorID],
    [`status=${sample.status}`, (e) => e.status === sample.status],
  ];
  for (const [qs, keep] of filters) {
    const expected = all
      .filter(keep)
      .map((e) => e.id)
      .sort();
    assert.ok(expected.length > 0 && expected.length < all.length, qs);
    assert.deepEqual(await list(qs), expected, qs);
  }
  // Experiments carry no team field: the team filter selects a proper, non-empty subset.
  const team = await list('teamID=team_core');
  assert.ok(team.length > 0 && team.length < all.length, `teamID: ${team.length}`);
  const day = new Date(sample.createdTime).toISOString().slice(0, 10);
  const start = Date.parse(`${day}T00:00:00Z`);
  assert.deepEqual(
    await list(`createdStartDate=${day}`),
    all
      .filter((e) => e.createdTime >= start)
      .map((e) => e.id)
      .sort(),
  );
  assert.deepEqual(
    await list(`createdEndDate=${day}`),
    all
      .filter((e) => e.createdTime < start + 86_400_000)
      .map((e) => e.id)
      .sort(),
  );
  const tag = sample.tags[0] ?? all.find((e) => e.tags.length > 0).tags[0];
  const tagged = all
    .filter((e) => e.tags.includes(tag))
    .map((e) => e.id)
    .sort();
  assert.deepEqual(await list(`tags=${tag}`), tagged);
  assert.deepEqual(await list(`tags=${encodeURIComponent(` ${tag} ,,`)}`), tagged);
  // An empty tags value is no tag filter.
  assert.equal((await ok(app, 'GET', '/console/v1/experiments?tags=')).pagination.totalItems, all.length);
  for (const qs of ['createdStartDate=2026-13-01', 'createdEndDate=2026-02-30', 'createdEndDate=2026-00-10']) {
    assert.equal((await send(app, 'GET', `/console/v1/experiments?${qs}`)).statusCode, 400, qs);
  }
  await app.close();
});

test('pagination: nextPage is null exactly on the last page', async () => {
  const app = server();
  // 25 pipelines.
  for (const [qs, next, previous, size] of [
    ['limit=5&page=4', 5, 3, 5],
    ['limit=5&page=5', null, 4, 5],
    ['limit=5&page=6', null, 5, 0],
    ['limit=25&page=1', null, null, 25],
    ['limit=24&page=1', 2, null, 24],
  ] as const) {
    const body = await ok(app, 'GET', `/console/v1/release_pipelines?${qs}`);
    assert.equal(body.pagination.nextPage, next, qs);
    assert.equal(body.pagination.previousPage, previous, qs);
    assert.equal(body.pagination.totalItems, 25, qs);
    assert.equal(body.data.length, size, qs);
  }
  const created = (await ok(app, 'GET', '/console/v1/release_pipelines?limit=100')).data.map((p: any) => p.createdTime);
  assert.deepEqual(
    created,
    [...created].sort((a: number, b: number) => a - b),
  );
  await app.close();
});

test('variant paging-out-of-range-400: exactly the out-of-range values are 400', async () => {
  const app = server({ variants: ['paging-out-of-range-400'] });
  for (const qs of ['limit=0', 'limit=101', 'page=0', 'page=-1', 'page=9007199254740992']) {
    const r = await send(app, 'GET', `/console/v1/experiments?${qs}`);
    assert.equal(r.statusCode, 400, qs);
    assert.match(
      r.json().message,
      qs.startsWith('limit') ? /^limit must be an integer from 1 to 100$/ : /^page must be an integer from 1 to 9007199254740991$/,
      qs,
    );
  }
  for (const [qs, size] of [
    ['limit=1', 1],
    ['limit=100', 100],
    ['page=1', 20],
    ['page=9007199254740991', 0],
  ] as const) {
    assert.equal((await ok(app, 'GET', `/console/v1/experiments?${qs}`)).data.length, size, qs);
  }
  await app.close();
});
