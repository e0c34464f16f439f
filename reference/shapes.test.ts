// The vendor-shaped variants (reference/shapes.ts) change responses the way their descriptions in
// reference/faults.ts say, and never take away what the spec states is present. Real server (build()
// + inject()), one clean and one switched instance per check, same seed and clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { build } from './app.ts';
import { EXPERIMENT_STATUSES, METRIC_TYPES } from '../contracts/index.ts';

/** A metric type the spec allows (the contract's first). */
const TYPE = METRIC_TYPES[0];

const KEY = 'test-key-shapes-01234';
const H = { 'service-api-key': KEY };
const J = { ...H, 'content-type': 'application/json' };
const NOW = Date.UTC(2026, 5, 1);
const GATE = '/console/v1/gates/gate_cc_alpha';
const TRIGGER = '/console/v1/release_pipeline_triggers/trg_cc_1';
const OVERRIDES = '/console/v1/experiments/exp_cc_overrides_1/overrides';

type Doc = Record<string, any>;

async function withApp<T>(
  variants: string[],
  body: (call: (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: object) => Promise<Doc>) => Promise<T>,
): Promise<T> {
  const app: FastifyInstance = build({ apiKey: KEY, scale: 60, variants, now: () => NOW });
  try {
    return await body(async (method, url, payload) => {
      const r = await app.inject({ method, url, headers: payload ? J : H, ...(payload ? { payload } : {}) });
      assert.ok(r.statusCode < 300, `${method} ${url}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      return r.json();
    });
  } finally {
    await app.close();
  }
}

/** One response of every operation, in a fixed order (rule ids are random: compare shapes, not rules). */
async function tour(variants: string[]): Promise<Record<string, Doc>> {
  return withApp(variants, async (call) => ({
    addGateRules: await call('POST', `${GATE}/rules`, { rules: [{ name: 'bare' }] }),
    disableGate: await call('PUT', `${GATE}/disable`),
    enableGate: await call('PUT', `${GATE}/enable`),
    listExperiments: await call('GET', '/console/v1/experiments?limit=30'),
    listReleasePipelines: await call('GET', '/console/v1/release_pipelines?limit=3'),
    createMetric: await call('POST', '/console/v1/metrics', {
      name: 'cc_shape',
      type: TYPE,
      description: 'sent',
      tags: ['t'],
      metricEvents: [{ name: 'e1' }],
    }),
    updateMetric: await call('POST', `/console/v1/metrics/cc_shape::${TYPE}`, { isVerified: true }),
    // Phase 2 of trg_cc_1 waits for a review (seed): skip phase 1, unpause phase 2, then skip it (to
    // phase 3, which does not pause: the skip's answer is IN_PROGRESS as the unpause's is).
    unpauseTrigger: await call('PUT', `${TRIGGER}/skip`, { phaseID: 'ph_cc_1_1' }).then(() => call('PUT', `${TRIGGER}/unpause`, { phaseID: 'ph_cc_1_2' })),
    skipTriggerPhase: await call('PUT', `${TRIGGER}/skip`, { phaseID: 'ph_cc_1_2' }),
    patchExperimentOverrides: await call('PATCH', OVERRIDES, { overrides: [], userIDOverrides: [] }),
  }));
}

/** Every path (`a.b[].c`) in `value` whose value is null, "" or []. */
function emptyPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => emptyPaths(v, `${path}[]`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const p = path ? `${path}.${k}` : k;
    return v === null || v === '' || (Array.isArray(v) && v.length === 0) ? [p] : emptyPaths(v, p);
  });
}

test('omit-when-empty leaves out null, "" and [] everywhere except where the spec states presence', async () => {
  const [clean, shaped] = [await tour([]), await tour(['omit-when-empty'])];
  const allowed: Record<string, string[]> = {
    addGateRules: ['data.rules[].conditions', 'data.rules[].environments'],
    disableGate: ['data.rules[].environments', 'data.monitoringMetrics'],
    enableGate: ['data.rules[].environments', 'data.monitoringMetrics'],
    patchExperimentOverrides: ['data.overrides', 'data.userIDOverrides'],
  };
  for (const [op, body] of Object.entries(shaped)) {
    assert.deepEqual(
      emptyPaths(body).filter((p) => !(allowed[op] ?? []).includes(p)),
      [],
      `${op} still carries empty fields`,
    );
    // The envelope (2.1) is never touched.
    assert.equal(typeof body.message, 'string', op);
    assert.ok('data' in body, op);
  }
  for (const op of ['listExperiments', 'listReleasePipelines'])
    assert.ok(shaped[op].pagination && typeof shaped[op].pagination === 'object', `${op} keeps pagination`);
  // Seeded: gate_cc_alpha has creatorEmail null and team null; they are gone, not changed.
  assert.equal(clean.enableGate.data.creatorEmail, null);
  assert.ok(!('creatorEmail' in shaped.enableGate.data) && !('team' in shaped.enableGate.data));
  // Add rules: every rule carries the six fields, a rule sent without environments has environments null (2.3, 4.1).
  const added = shaped.addGateRules.data.rules.at(-1);
  assert.deepEqual(Object.keys(added).sort(), ['baseID', 'conditions', 'environments', 'id', 'name', 'passPercentage']);
  assert.equal(added.environments, null);
  assert.deepEqual(added.conditions, []);
  // Enable/disable: owner and monitoringMetrics present (2.2), monitoringMetrics empty as seeded.
  for (const op of ['enableGate', 'disableGate']) {
    assert.deepEqual(Object.keys(shaped[op].data.owner).sort(), ['ownerEmail', 'ownerID', 'ownerName', 'ownerType'], op);
    assert.deepEqual(shaped[op].data.monitoringMetrics, [], op);
  }
  assert.deepEqual(shaped.patchExperimentOverrides.data, { overrides: [], userIDOverrides: [] });
});

test('omit-when-empty changes nothing but the empty fields', async () => {
  const [clean, shaped] = [await tour([]), await tour(['omit-when-empty'])];
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => !(x === null || x === '' || (Array.isArray(x) && x.length === 0)))
        .map(([k, x]) => [k, strip(x)]),
    );
  };
  for (const op of ['listExperiments', 'listReleasePipelines', 'createMetric', 'skipTriggerPhase']) assert.deepEqual(strip(shaped[op]), strip(clean[op]), op);
});

test('vendor-optional-absent drops the fields the vendor marks optional, keeps what the spec states and what was sent', async () => {
  const [clean, shaped] = [await tour([]), await tour(['vendor-optional-absent'])];
  const trigger = shaped.skipTriggerPhase.data;
  for (const k of ['description', 'gateID', 'dynamicConfigID']) assert.ok(k in clean.skipTriggerPhase.data && !(k in trigger), `trigger ${k}`);
  assert.ok(trigger.actions.some((a: Doc) => a.type === 'STARTED'));
  for (const a of trigger.actions) assert.equal('actorID' in a, a.type !== 'STARTED', `actorID of a ${a.type} action`);
  assert.ok(
    shaped.unpauseTrigger.data.actions.some((a: Doc) => a.type === 'UNPAUSED' && a.actorID),
    'a user action keeps its actor',
  );
  // Gate: name, tags... absent; owner and monitoringMetrics absent from add-rules, present on enable/disable (2.2).
  for (const op of ['addGateRules', 'enableGate', 'disableGate'])
    for (const k of ['name', 'idType', 'tags', 'team', 'reviewSettings']) assert.ok(!(k in shaped[op].data), `${op} ${k}`);
  assert.ok(!('owner' in shaped.addGateRules.data) && !('monitoringMetrics' in shaped.addGateRules.data));
  for (const op of ['enableGate', 'disableGate']) assert.ok(shaped[op].data.owner && Array.isArray(shaped[op].data.monitoringMetrics), op);
  assert.deepEqual(Object.keys(shaped.addGateRules.data.rules.at(-1)).sort(), ['baseID', 'conditions', 'environments', 'id', 'name', 'passPercentage']);
  // Experiments: creatorID and group ids absent; status (a closed enum, required by the vendor) kept.
  for (const e of shaped.listExperiments.data) {
    assert.ok(!('creatorID' in e) && !('owner' in e) && !('healthChecks' in e), e.id);
    for (const g of e.groups) assert.ok(!('id' in g) && 'name' in g, e.id);
    assert.ok(EXPERIMENT_STATUSES.includes(e.status), e.id);
  }
  // Pipelines: phases and their ids kept; rule ids and environments absent.
  for (const p of shaped.listReleasePipelines.data)
    for (const ph of p.phases) {
      assert.ok(ph.id);
      for (const r of ph.rules) assert.ok(!('id' in r) && !('environments' in r));
    }
  // Metrics: what was sent comes back; what was never set and what the server fills itself do not.
  const created = shaped.createMetric.data;
  assert.equal(created.description, 'sent');
  assert.deepEqual(created.tags, ['t']);
  for (const k of ['isVerified', 'isReadOnly', 'isPermanent', 'unitTypes', 'team', 'isHidden', 'creatorName', 'creatorEmail', 'createdTime', 'owner'])
    assert.ok(!(k in created), `created metric ${k}`);
  const updated = shaped.updateMetric.data;
  assert.equal(updated.isVerified, true);
  assert.equal(updated.description, 'sent', 'an update answers what is stored, not only what it sent');
  assert.ok(!('isReadOnly' in updated));
});

test('vendor-optional-absent shapes responses only: the stored gate keeps its owner', async () => {
  await withApp(['vendor-optional-absent'], async (call) => {
    assert.ok(!('owner' in (await call('POST', `${GATE}/rules`, { rules: [] })).data));
    assert.equal((await call('PUT', `${GATE}/enable`)).data.owner.ownerID, 'u_ada');
  });
});

test('vendor-extra-fields only adds fields, the ones the vendor sends', async () => {
  const [clean, shaped] = [await tour([]), await tour(['vendor-extra-fields'])];
  const added = (op: string, pick: (b: Doc) => Doc = (b) => b.data) =>
    Object.keys(pick(shaped[op]))
      .filter((k) => !(k in pick(clean[op])))
      .sort();
  assert.deepEqual(added('enableGate'), ['isTemplate', 'releasePipelineID', 'store0100Exposures', 'teamID', 'version']);
  assert.deepEqual(
    added('listExperiments', (b) => b.data[0]),
    ['controlGroupID', 'experimentType', 'isStale', 'otherMetrics', 'sequentialTesting', 'team', 'teamID', 'version'],
  );
  assert.deepEqual(
    added('listReleasePipelines', (b) => b.data[0]),
    ['lastModifiedTime', 'triggerNotice'],
  );
  assert.deepEqual(added('skipTriggerPhase'), ['configSnapshotID']);
  assert.deepEqual(added('createMetric'), ['lastModifiedTime', 'lastModifierEmail', 'lastModifierID', 'lastModifierName']);
  assert.deepEqual(
    added('listExperiments', (b) => b.pagination),
    ['all'],
  );
  // Everything the clean server sends is still there, unchanged.
  // (Gates left out: their added rule ids are random.)
  for (const op of ['listExperiments', 'listReleasePipelines', 'skipTriggerPhase', 'createMetric']) {
    const same = (c: unknown, s: unknown): void => {
      if (Array.isArray(c)) return c.forEach((x, i) => same(x, (s as unknown[])[i]));
      if (c && typeof c === 'object') return Object.entries(c).forEach(([k, v]) => same(v, (s as Doc)[k]));
      assert.deepEqual(s, c, op);
    };
    same(clean[op], shaped[op]);
  }
});

test('enum-values-beyond-seen gives open enums values the spec does not show, and leaves the closed ones alone', async () => {
  const [clean, shaped] = [await tour([]), await tour(['enum-values-beyond-seen'])];
  assert.equal(shaped.disableGate.data.status, 'Disabled');
  assert.ok(!['TEMPORARY', 'PERMANENT'].includes(shaped.enableGate.data.type));
  assert.ok(shaped.enableGate.data.typeReason !== 'NONE');
  assert.ok(!['SDK_KEY', 'USER'].includes(shaped.enableGate.data.owner.ownerType));
  const statuses = new Set(shaped.listExperiments.data.map((e: Doc) => e.healthCheckStatus));
  assert.ok(
    [...statuses].some((s) => !['PASSED', 'WAITING'].includes(s as string)),
    `healthCheckStatus values ${[...statuses]}`,
  );
  const operators = shaped.listReleasePipelines.data.flatMap((p: Doc) =>
    p.phases.flatMap((ph: Doc) => ph.rules.flatMap((r: Doc) => r.conditions.map((c: Doc) => `${c.type}/${c.operator}`))),
  );
  assert.ok(operators.length > 0 && operators.every((o: string) => o === 'environment_tier/none'));
  assert.ok(shaped.unpauseTrigger.data.actions.some((a: Doc) => a.type === 'APPROVED_FOR'));
  assert.deepEqual([clean.skipTriggerPhase.data.status, clean.unpauseTrigger.data.status], ['IN_PROGRESS', 'IN_PROGRESS']);
  assert.deepEqual([shaped.skipTriggerPhase.data.status, shaped.unpauseTrigger.data.status], ['ROLLING_OUT', 'ROLLING_OUT']);
  assert.equal(shaped.createMetric.data.metricEvents[0].type, 'count');
  // Closed enums (2.5 status, 4.6 type, directionality): exactly as the clean server answers.
  assert.deepEqual(
    shaped.listExperiments.data.map((e: Doc) => [e.id, e.status]),
    clean.listExperiments.data.map((e: Doc) => [e.id, e.status]),
  );
  for (const op of ['createMetric', 'updateMetric']) {
    assert.equal(shaped[op].data.type, clean[op].data.type, op);
    assert.equal(shaped[op].data.directionality, clean[op].data.directionality, op);
  }
});

test('an event sent with a type keeps it under enum-values-beyond-seen', async () => {
  await withApp(['enum-values-beyond-seen'], async (call) => {
    const m = await call('POST', '/console/v1/metrics', { name: 'cc_typed', type: TYPE, metricEvents: [{ name: 'a', type: 'metadata' }, { name: 'b' }] });
    assert.deepEqual(
      m.data.metricEvents.map((e: Doc) => e.type),
      ['metadata', 'count'],
    );
  });
});
