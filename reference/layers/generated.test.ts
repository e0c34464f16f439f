// The faults generated from the contract (generated.ts): named predictably for the clause they break,
// at its level; one for every mechanical clause; and each breaks what it says. A response fault,
// applied to the clean reference's own answers, makes one of them leave its operation's stated
// schema (or, for a message, changes the text the spec states); a request fault makes the contract's
// body schema refuse a body it took, or take one it refused. And they work through the layers: a
// server started with one answers what it says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import {
  clauseCatalogue,
  contractAjv,
  DIRECTIONALITIES,
  EXPERIMENT_STATUSES,
  METRIC_TYPES,
  OPERATIONS,
  SPEC_LIMITS,
  SPEC_MESSAGES,
  schema,
} from '../../contracts/index.ts';
import { build } from '../app.ts';
import { checkSwitches, generatedFaults } from '../faults.ts';
import { changedMessage, type GeneratedSwitch, generatedSwitches, notGenerated, otherType } from './generated.ts';
import type { RequestChange, ResponseChange } from './types.ts';

const KEY = 'test-key-generated-0123';
const H = { 'service-api-key': KEY };
// The spec's bounds and values, from the contract: the faults are generated from it, and so are these expectations.
const NAME = SPEC_LIMITS.createMetric.name;
const DESCRIPTION_MAX = SPEC_LIMITS.createMetric.description.maxLength;
const OVERRIDES_MAX = SPEC_LIMITS.patchExperimentOverrides.overrides.maxItems;
const TYPE = METRIC_TYPES[0];
/** A metric name of a length the spec takes. */
const PROBE_NAME = 'probe'.padEnd(NAME.minLength, '_');
const catalogue = clauseCatalogue();
const byId = new Map(catalogue.map((c) => [c.id, c]));
const switches = generatedSwitches();

test('generated: names are gen:<edit>:<clause>[:<detail>], unique, at their clause and its level', () => {
  assert.ok(switches.length > 200, `${switches.length} generated faults`);
  const names = new Set<string>();
  for (const s of switches) {
    assert.ok(!names.has(s.name), `${s.name} twice`);
    names.add(s.name);
    const m = /^gen:(type|message|presence|required|bound|path|status|filter|enum|query|format|body):([^:]+)(?::(.+))?$/.exec(s.name);
    assert.ok(m, `${s.name} is not gen:<edit>:<clause>[:<detail>]`);
    assert.equal(m[1], s.generated, s.name);
    assert.equal(m[2], s.clause, s.name);
    assert.equal(s.kind, 'fault');
    assert.equal(s.level, byId.get(s.clause)?.level, `${s.name}: level of ${s.clause}`);
    // A presence names the field it drops, a bound the keyword and where it moved; the others nothing more.
    if (s.generated === 'presence') assert.ok(m[3], s.name);
    else if (s.generated === 'bound') assert.match(m[3] ?? '', /^(min|max)(Length|Items|imum)=\d+$/, s.name);
    else assert.equal(m[3], undefined, s.name);
  }
  // The registry's view of them: listed apart from the hand-written faults, selected by name.
  assert.deepEqual(
    generatedFaults().map((f) => f.name),
    switches.map((s) => s.name),
  );
  assert.equal(checkSwitches(['gen:type:metric.field.id'], []), undefined);
  assert.match(checkSwitches(['gen:type:no.such.clause'], []) ?? '', /unknown fault "gen:type:no\.such\.clause" \(see --list-faults --generated\)/);
});

test('generated: every stated field type, message, required request field and bound of the contract has its fault', () => {
  const has = (name: string) => switches.some((s) => s.name === name);
  for (const c of catalogue.filter((x) => x.level === 'stated' && x.id.includes('.field.'))) assert.ok(has(`gen:type:${c.id}`), `no gen:type:${c.id}`);
  for (const c of catalogue.filter((x) => x.level === 'stated' && /message `[^`]+`/.test(x.text)))
    assert.ok(has(`gen:message:${c.id}`), `no gen:message:${c.id}`);
  for (const id of [
    'metrics.create.name.required',
    'metrics.create.type.required',
    'triggers.skip.phaseID.required',
    'triggers.unpause.phaseID.required',
    'overrides.patch.overrides.required',
    'overrides.patch.userIDOverrides.required',
  ])
    assert.ok(has(`gen:required:${id}`), `no gen:required:${id}`);
  for (const name of [
    `gen:bound:metrics.create.name.length:minLength=${NAME.minLength - 1}`,
    `gen:bound:metrics.create.name.length:maxLength=${NAME.maxLength + 1}`,
    `gen:bound:overrides.patch.overrides.maxItems:maxItems=${OVERRIDES_MAX + 1}`,
  ])
    assert.ok(has(name), `no ${name}`);
  for (const name of [
    'gen:presence:envelope.data:data',
    'gen:presence:gates.addRules.rules.fields:baseID',
    'gen:presence:gates.enableDisable.owner:owner',
    'gen:presence:experiments.list.pagination:pagination',
    'gen:presence:pipelines.list.pagination:pagination',
  ])
    assert.ok(has(name), `no ${name}`);
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    if (/^`[A-Z]+ \/console\/v1\/[^`]*`$/.test(c.text)) assert.ok(has(`gen:path:${c.id}`), `no gen:path:${c.id}`);
    if (c.id.endsWith('.status200')) assert.ok(has(`gen:status:${c.id}`), `no gen:status:${c.id}`);
    // teamID may be ignored ("Enterprise only"): ignoring it is no fault (below).
    if (c.id.startsWith('experiments.list.filter.') && c.id !== 'experiments.list.filter.teamID') assert.ok(has(`gen:filter:${c.id}`), `no gen:filter:${c.id}`);
    if (/^\w+\.list\.query\.\w+$/.test(c.id)) assert.ok(has(`gen:query:${c.id}`), `no gen:query:${c.id}`);
    if (c.text === 'No body.') assert.ok(has(`gen:body:${c.id}`), `no gen:body:${c.id}`);
  }
  assert.ok(has('gen:format:experiments.list.createdDate.format'), 'no gen:format:experiments.list.createdDate.format');
  for (const id of ['experiments.list.status.enum', 'metrics.create.directionality.enum', 'metrics.update.directionality.enum', 'metrics.create.type.enum'])
    assert.ok(has(`gen:enum:${id}`), `no gen:enum:${id}`);
  // What was left out is only the teamID filter, which a target may ignore (the top-level overrides
  // form's two arrays are overrides.patch.response's: the forms of 4.11).
  assert.deepEqual(
    notGenerated().map((n) => n.clause),
    ['experiments.list.filter.teamID'],
  );
  for (const field of ['message', 'data', 'overrides', 'userIDOverrides'])
    assert.ok(has(`gen:presence:overrides.patch.response:${field}`), `no gen:presence:overrides.patch.response:${field}`);
});

test('generated: another type and a changed message', () => {
  assert.deepEqual(otherType(['string']), { type: 'integer', value: 17 });
  assert.deepEqual(otherType(['string', 'null']), { type: 'integer', value: 17 });
  assert.deepEqual(otherType(['integer']), { type: 'string', value: 'text' });
  assert.deepEqual(otherType(['number']), { type: 'string', value: 'text' });
  assert.deepEqual(otherType(['array', 'null']), { type: 'string', value: 'text' });
  assert.equal(changedMessage('Done.'), 'Done');
  assert.equal(changedMessage('Done'), 'Done.');
});

/** A valid request of each operation, in an order that works on one fresh server (unpause after the skip that pauses). */
const REQUESTS: [op: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: object][] = [
  [
    'addGateRules',
    'POST',
    '/console/v1/gates/gate_cc_alpha/rules',
    {
      rules: [
        {
          name: 'every field',
          passPercentage: 12.5,
          conditions: [{ type: 'country', targetValue: ['US'], operator: 'any', field: 'f', customID: 'c' }],
          returnValue: { on: true },
          completedAutomatedRollouts: [{ time: 1, passPercent: 1 }],
          pendingAutomatedRollouts: [{ time: 2, passPercent: 2 }],
        },
      ],
    },
  ],
  ['enableGate', 'PUT', '/console/v1/gates/gate_cc_alpha/enable'],
  ['disableGate', 'PUT', '/console/v1/gates/gate_cc_alpha/disable'],
  ['listExperiments', 'GET', '/console/v1/experiments?limit=100'],
  ['listReleasePipelines', 'GET', '/console/v1/release_pipelines?limit=100'],
  ['skipTriggerPhase', 'PUT', '/console/v1/release_pipeline_triggers/trg_cc_1/skip', { phaseID: 'ph_cc_1_1' }],
  ['unpauseTrigger', 'PUT', '/console/v1/release_pipeline_triggers/trg_cc_1/unpause', { phaseID: 'ph_cc_1_2' }],
  [
    'createMetric',
    'POST',
    '/console/v1/metrics',
    { name: 'every field', type: TYPE, description: 'd', tags: ['t'], unitTypes: ['userID'], metricEvents: [{ name: 'e', type: 'value' }] },
  ],
  ['updateMetric', 'POST', `/console/v1/metrics/every%20field::${TYPE}`, { description: 'changed' }],
  [
    'patchExperimentOverrides',
    'PATCH',
    '/console/v1/experiments/exp_cc_overrides_1/overrides',
    {
      overrides: [{ type: 'gate', id: 'gate_cc_alpha', groupID: 'grp_0_test', environment: 'production' }],
      userIDOverrides: [{ groupID: 'grp_0_test', ids: ['u1'], environment: 'production', unitType: 'userID' }],
    },
  ],
];

/** The clean answers of every operation, in order, from one server (with these variants). */
async function answers(variants: string[] = []): Promise<Map<string, { body: any; request: any }>> {
  const app: FastifyInstance = build({ apiKey: KEY, scale: 30, variants });
  const out = new Map<string, { body: any; request: any }>();
  try {
    for (const [op, method, url, body] of REQUESTS) {
      const r = await app.inject({ method, url, headers: body ? { ...H, 'content-type': 'application/json' } : H, ...(body ? { payload: body } : {}) });
      assert.equal(r.statusCode, 200, `${op}: ${r.body}`);
      out.set(op, { body: r.json(), request: body });
    }
  } finally {
    await app.close();
  }
  return out;
}

const ajv = contractAjv({ allErrors: false });
const stated = (op: string) => ajv.getSchema(schema(OPERATIONS[op].response).$id ?? '') ?? ajv.compile(schema(OPERATIONS[op].response));

test('generated: each response fault breaks, on the clean answers, what its clause states', async () => {
  const clean = await answers();
  const alongside = new Map<string, Awaited<ReturnType<typeof answers>>>();
  for (const s of switches.filter((x): x is GeneratedSwitch & { layer: 'response' } => x.layer === 'response')) {
    const key = (s.alongside ?? []).join(',');
    if (key && !alongside.has(key)) alongside.set(key, await answers(s.alongside));
    const base = key ? alongside.get(key)! : clean;
    const change = s.change as ResponseChange;
    const ops = change.operations === 'all' ? [...base.keys()] : change.operations;
    const broken = ops.filter((op) => {
      const was = base.get(op)!;
      const r = { operationId: op, status: 200, body: structuredClone(was.body), request: { body: was.request, query: {} } };
      change.transform(r);
      if (s.generated === 'message') return r.body.message !== was.body.message && was.body.message === /message `([^`]+)`/.exec(byId.get(s.clause)!.text)?.[1];
      if (s.generated === 'status') return r.status !== 200 && r.status >= 200 && r.status < 300;
      return stated(op)(was.body) && !stated(op)(r.body);
    });
    assert.ok(broken.length > 0, `${s.name}: no answer of ${ops.join(', ')} breaks its stated schema with it (the reference never sends the field?)`);
  }
});

test('generated: each request fault changes what the contract lets in', () => {
  const checker = contractAjv({ allErrors: false });
  const compiled = (s: Record<string, unknown>) => {
    const copy = structuredClone(s);
    delete copy.$id; // the original and its edited copies side by side in one Ajv
    return checker.compile(copy);
  };
  const originals = new Map<string, (body: unknown) => boolean>();
  const bodies: Record<string, object> = Object.fromEntries(REQUESTS.filter(([, , , b]) => b).map(([op, , , b]) => [op, b!]));
  // Bodies that step over a bound or leave a required field out, and bodies typing each field, for the edits to tell apart.
  const probes: Record<string, object[]> = {
    createMetric: [
      ...[-1, 0, 1].flatMap((d) => [NAME.minLength + d, NAME.maxLength + d]).map((n) => ({ name: 'n'.repeat(n), type: TYPE })),
      ...[-1, 0, 1].map((d) => ({ name: PROBE_NAME, type: TYPE, description: 'd'.repeat(DESCRIPTION_MAX + d) })),
      { type: TYPE },
      { name: PROBE_NAME },
    ],
    patchExperimentOverrides: [-1, 0, 1]
      .map((d) => OVERRIDES_MAX + d)
      .map((n) => ({ overrides: Array(n).fill({ type: 'gate', id: 'g', groupID: 'x' }), userIDOverrides: [] }))
      .concat([{ userIDOverrides: [] } as never, { overrides: [] } as never]),
    skipTriggerPhase: [{}],
    unpauseTrigger: [{}],
  };
  for (const s of switches.filter((x) => x.layer === 'request' && (x.change as RequestChange).schema)) {
    const change = s.change as RequestChange;
    for (const op of change.operations ?? []) {
      if (s.generated === 'enum' && OPERATIONS[op].query) {
        // A query parameter: the edited query schema refuses a value it lists (the last).
        const q = schema(OPERATIONS[op].query!);
        const edited = structuredClone(q);
        change.schema?.(edited, 'querystring');
        const field = s.clause.split('.').at(-2)!;
        const last = EXPERIMENT_STATUSES.at(-1);
        assert.ok(compiled(q)({ [field]: last }) && !compiled(edited)({ [field]: last }), `${s.name}: ${op}'s query`);
        continue;
      }
      if (s.generated === 'format') {
        // A query parameter: the edited query schema refuses a date of the stated format YYYY-MM-DD.
        const q = schema(OPERATIONS[op].query!);
        const edited = structuredClone(q);
        change.schema?.(edited, 'querystring');
        for (const field of ['createdStartDate', 'createdEndDate'])
          assert.ok(compiled(q)({ [field]: '2026-01-31' }) && !compiled(edited)({ [field]: '2026-01-31' }), `${s.name}: ${op}'s ${field}`);
        continue;
      }
      const original = schema(OPERATIONS[op].body!);
      if (!originals.has(op)) originals.set(op, compiled(original));
      const edited = structuredClone(original);
      change.schema?.(edited, 'body');
      const [before, after] = [originals.get(op)!, compiled(edited)];
      const candidates = [...(probes[op] ?? []), bodies[op] ?? {}, ...typedBodies(s.clause)];
      const differs = candidates.some((b) => before(b) !== after(b));
      assert.ok(differs, `${s.name}: ${op}'s body schema lets in the same bodies with it as without`);
    }
  }
});

/** For a request field type clause: a body carrying the field with a value of its contract's type. */
function typedBodies(clause: string): object[] {
  const field = clause.endsWith('.enum') ? clause.split('.').at(-2)! : clause.split('.').at(-1)!;
  const values: unknown[] = ['text', 1, true, ['a'], {}, null, DIRECTIONALITIES[0], 'not-a-listed-value'];
  const out: object[] = [];
  for (const v of values) {
    out.push({ name: PROBE_NAME, type: TYPE, [field]: v });
    out.push({ [field]: v });
    for (const creates of [{ name: PROBE_NAME, type: TYPE }, {}]) {
      out.push({ ...creates, warehouseNative: { [field]: v } });
      out.push({ ...creates, warehouseNative: { criteria: [{ [field]: v }] } });
    }
  }
  return out;
}

test('generated: each path fault answers 404 where the clean server answers; each filter fault lets in what the filter leaves out; each query fault ignores its parameter', async () => {
  const clean = await answers();
  const experiments = clean.get('listExperiments')!.body.data as Record<string, any>[];
  const values: Record<string, string> = {
    layerID: experiments.find((e) => e.layerID)!.layerID,
    idType: experiments[0].idType,
    teamID: 'team_core',
    targetAppID: experiments.find((e) => e.targetApps.length)!.targetApps[0],
    creatorName: experiments[0].creatorName,
    creatorID: experiments[0].creatorID,
  };
  const count = async (app: FastifyInstance, param: string) =>
    (await app.inject({ method: 'GET', url: `/console/v1/experiments?limit=100&${param}=${encodeURIComponent(values[param])}`, headers: H })).json().data
      .length;
  const cleanApp = build({ apiKey: KEY, scale: 30 });
  try {
    for (const s of switches.filter((x) => x.generated === 'path' || x.generated === 'filter' || x.generated === 'query')) {
      const app = build({ apiKey: KEY, scale: 30, faults: [s.name] });
      try {
        const op = (s.change as RequestChange).operations![0];
        if (s.generated === 'path') {
          const [, method, url, payload] = REQUESTS.find(([o]) => o === op)!;
          // Updates need their metric, unpause its paused trigger: the requests before it, in order.
          for (const [, m, u, b] of REQUESTS.slice(
            0,
            REQUESTS.findIndex(([o]) => o === op),
          ))
            await app.inject({ method: m, url: u, headers: b ? { ...H, 'content-type': 'application/json' } : H, ...(b ? { payload: b } : {}) });
          const r = await app.inject({ method, url, headers: payload ? { ...H, 'content-type': 'application/json' } : H, ...(payload ? { payload } : {}) });
          assert.equal(r.statusCode, 404, `${s.name}: ${method} ${url}`);
        } else if (s.generated === 'query') {
          // page ignored: the second page is the first; limit ignored: a page of limit 1 holds more.
          const path = OPERATIONS[op].path;
          const ids = async (a: FastifyInstance, q: string) =>
            (await a.inject({ method: 'GET', url: `${path}?${q}`, headers: H })).json().data.map((x: any) => x.id) as string[];
          if (s.clause.endsWith('.page')) {
            assert.deepEqual(await ids(app, 'limit=2&page=2'), await ids(cleanApp, 'limit=2&page=1'), s.name);
            assert.notDeepEqual(await ids(cleanApp, 'limit=2&page=2'), await ids(cleanApp, 'limit=2&page=1'), s.name);
          } else assert.ok((await ids(app, 'limit=1')).length > 1, `${s.name}: a page of limit 1`);
        } else {
          const param = s.clause.split('.').at(-1)!;
          const [faulty, filtered] = [await count(app, param), await count(cleanApp, param)];
          assert.ok(faulty > filtered, `${s.name}: ${faulty} experiments with ${param}=${values[param]}, ${filtered} on the clean server`);
        }
      } finally {
        await app.close();
      }
    }
  } finally {
    await cleanApp.close();
  }
});

test('generated: each body fault refuses its operation sent without a body, as the clean server takes it, and takes it with one', async () => {
  const bodyFaults = switches.filter((x) => x.generated === 'body');
  assert.deepEqual(
    bodyFaults.map((s) => s.name),
    ['gen:body:gates.disable.noBody', 'gen:body:gates.enable.noBody'],
  );
  for (const s of bodyFaults) {
    const app = build({ apiKey: KEY, scale: 5, faults: [s.name] });
    const clean = build({ apiKey: KEY, scale: 5 });
    try {
      for (const op of (s.change as RequestChange).operations!) {
        const [, method, url] = REQUESTS.find(([o]) => o === op)!;
        assert.equal((await clean.inject({ method, url, headers: H })).statusCode, 200, `${op} without a body, clean`);
        assert.equal((await app.inject({ method, url, headers: H })).statusCode, 400, `${s.name}: ${op} without a body`);
        const withBody = await app.inject({ method, url, headers: { ...H, 'content-type': 'application/json' }, payload: {} });
        assert.equal(withBody.statusCode, 200, `${s.name}: ${op} with {}`);
      }
    } finally {
      await app.close();
      await clean.close();
    }
  }
});

test('generated: a server started with one answers what it says', async () => {
  const app = build({
    apiKey: KEY,
    scale: 5,
    faults: ['gen:type:gate.field.id', 'gen:message:metrics.create.message', `gen:bound:metrics.create.name.length:minLength=${NAME.minLength - 1}`],
  });
  try {
    const gate = (await app.inject({ method: 'PUT', url: '/console/v1/gates/gate_cc_alpha/enable', headers: H })).json();
    assert.equal(gate.data.id, 17);
    const created = await app.inject({
      method: 'POST',
      url: '/console/v1/metrics',
      headers: { ...H, 'content-type': 'application/json' },
      payload: { name: 'n'.repeat(NAME.minLength - 1), type: TYPE },
    });
    assert.equal(created.statusCode, 200, 'a name one short of the minimum accepted');
    assert.equal(created.json().message, changedMessage(SPEC_MESSAGES.createMetric));
  } finally {
    await app.close();
  }
});
