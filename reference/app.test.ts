// The reference server through build() and inject(): every operation, with bad input for each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXPERIMENT_STATUSES, METRIC_TYPES, SPEC_ALLOWED, SPEC_DEFAULTS, SPEC_LIMITS, SPEC_MESSAGES } from '../contracts/index.ts';
import { BODY_LIMIT, build } from './app.ts';

const KEY = 'test-key-0123456789';
const H = { 'service-api-key': KEY };
const J = { ...H, 'content-type': 'application/json' };
// The spec's facts these tests judge by, from the contract (a revision of the spec moves them here too).
const NAME = SPEC_LIMITS.createMetric.name;
const DESCRIPTION_MAX = SPEC_LIMITS.createMetric.description.maxLength;
const OVERRIDES_MAX = SPEC_LIMITS.patchExperimentOverrides.overrides.maxItems;
const [TYPE, OTHER_TYPE] = METRIC_TYPES;
const DEFAULT_DIRECTIONALITY = SPEC_DEFAULTS.createMetric.directionality;
const OTHER_DIRECTIONALITY = SPEC_ALLOWED.updateMetric.directionality.find((d) => d !== DEFAULT_DIRECTIONALITY);
const STATUS = EXPERIMENT_STATUSES[0];
/** A metric name one short of the minimum length, and one of the minimum. */
const SHORT_NAME = 'n'.repeat(NAME.minLength - 1);
const MIN_NAME = 'n'.repeat(NAME.minLength);

function server(extra: Parameters<typeof build>[0] extends infer O ? Partial<O> : never = {}) {
  return build({ apiKey: KEY, scale: 60, ...extra });
}

const isError = (body: any, status: number) => body.status === status && typeof body.error === 'string' && typeof body.message === 'string';

test('auth: missing, wrong, empty, padded, case-changed and query-string keys are rejected with 401', async () => {
  const app = server();
  const url = '/console/v1/release_pipelines';
  for (const headers of [
    {},
    { 'service-api-key': 'wrong' },
    { 'service-api-key': '' },
    { 'service-api-key': ` ${KEY} ` },
    { 'service-api-key': KEY.toUpperCase() },
  ]) {
    const r = await app.inject({ method: 'GET', url, headers });
    assert.equal(r.statusCode, 401, JSON.stringify(headers));
    assert.ok(isError(r.json(), 401));
  }
  assert.equal((await app.inject({ method: 'GET', url: `${url}?SERVICE-API-KEY=${KEY}` })).statusCode, 401);
  assert.equal((await app.inject({ method: 'GET', url, headers: H })).statusCode, 200);
  await app.close();
});

test('gates: add rules appends, assigns id and baseID, environments null when unset', async () => {
  const app = server();
  const r = await app.inject({
    method: 'POST',
    url: '/console/v1/gates/gate_cc_alpha/rules',
    headers: J,
    payload: { rules: [{ name: 'r1', passPercentage: 10, conditions: [{ type: 'country', targetValue: ['US'], operator: 'any' }] }] },
  });
  assert.equal(r.statusCode, 200);
  const body = r.json();
  assert.equal(body.message, SPEC_MESSAGES.addGateRules);
  const rule = body.data.rules.at(-1);
  assert.ok(rule.id && rule.baseID);
  assert.equal(rule.environments, null);
  const again = await app.inject({
    method: 'POST',
    url: '/console/v1/gates/gate_cc_alpha/rules',
    headers: J,
    payload: { rules: [{ name: 'r2', environments: ['production'] }] },
  });
  assert.deepEqual(
    again
      .json()
      .data.rules.map((x: any) => x.name)
      .slice(-2),
    ['r1', 'r2'],
  );
  await app.close();
});

test('gates: bad input for add rules is 400, unknown gate 404, nothing persisted', async () => {
  const app = server();
  for (const payload of [{ rules: 'x' }, { rules: [{ passPercentage: 'ten' }] }, { rules: [], extra: 1 }]) {
    const r = await app.inject({ method: 'POST', url: '/console/v1/gates/gate_cc_beta/rules', headers: J, payload });
    assert.equal(r.statusCode, 400, JSON.stringify(payload));
    assert.ok(isError(r.json(), 400));
  }
  assert.equal((await app.inject({ method: 'POST', url: '/console/v1/gates/nope/rules', headers: J, payload: { rules: [] } })).statusCode, 404);
  const after = await app.inject({ method: 'PUT', url: '/console/v1/gates/gate_cc_beta/enable', headers: H });
  assert.deepEqual(after.json().data.rules, []);
  await app.close();
});

test('gates: disable sets isEnabled false, enable true, with owner and monitoringMetrics', async () => {
  const app = server();
  const d = await app.inject({ method: 'PUT', url: '/console/v1/gates/gate_cc_alpha/disable', headers: H });
  assert.equal(d.statusCode, 200);
  assert.equal(d.json().message, SPEC_MESSAGES.disableGate);
  assert.equal(d.json().data.isEnabled, false);
  assert.ok(d.json().data.owner && Array.isArray(d.json().data.monitoringMetrics));
  const e = await app.inject({ method: 'PUT', url: '/console/v1/gates/gate_cc_alpha/enable', headers: H });
  assert.equal(e.json().data.isEnabled, true);
  assert.equal((await app.inject({ method: 'PUT', url: '/console/v1/gates/nope/enable', headers: H })).statusCode, 404);
  await app.close();
});

test('experiments: pages are disjoint, their union is the full list, filters equal the filtered list', async () => {
  const app = server();
  const get = async (qs: string) => (await app.inject({ method: 'GET', url: `/console/v1/experiments?${qs}`, headers: H })).json();
  const full = await get('limit=100');
  assert.equal(full.message, SPEC_MESSAGES.listExperiments);
  assert.equal(full.data.length, 60);
  const ids: string[] = [];
  for (let page = 1; page <= 7; page++) ids.push(...(await get(`limit=9&page=${page}`)).data.map((e: any) => e.id));
  assert.deepEqual(
    ids,
    full.data.map((e: any) => e.id),
  );
  const active = await get(`limit=100&status=${STATUS}`);
  assert.deepEqual(
    active.data.map((e: any) => e.id),
    full.data.filter((e: any) => e.status === STATUS).map((e: any) => e.id),
  );
  const tagged = await get('limit=100&tags=checkout,q3');
  assert.deepEqual(
    tagged.data.map((e: any) => e.id),
    full.data.filter((e: any) => e.tags.includes('checkout') && e.tags.includes('q3')).map((e: any) => e.id),
  );
  const day = new Date(full.data[5].createdTime).toISOString().slice(0, 10);
  const onDay = await get(`limit=100&createdStartDate=${day}&createdEndDate=${day}`);
  assert.deepEqual(
    onDay.data.map((e: any) => e.id),
    full.data.filter((e: any) => new Date(e.createdTime).toISOString().slice(0, 10) === day).map((e: any) => e.id),
  );
  assert.deepEqual((await get('page=99')).data, []);
  await app.close();
});

test('experiments: bad query is 400', async () => {
  const app = server();
  for (const qs of ['status=running', 'limit=abc', 'limit=1.5', 'page=two', 'page=2.5', 'createdStartDate=2026-02-30', 'createdEndDate=01/02/2026']) {
    const r = await app.inject({ method: 'GET', url: `/console/v1/experiments?${qs}`, headers: H });
    assert.equal(r.statusCode, 400, qs);
    assert.ok(isError(r.json(), 400));
  }
  await app.close();
});

test('paging: any integer limit and page is answered, clamped to limit 1..100 and page 1..2^53-1', async () => {
  const app = server({ scale: 150 });
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url, headers: H });
    assert.equal(r.statusCode, 200, url);
    return r.json();
  };
  const first = await get('/console/v1/experiments?limit=1');
  for (const [qs, limit, page] of [
    ['limit=0', 1, 1],
    ['limit=-5', 1, 1],
    ['limit=101', 100, 1],
    ['limit=100000', 100, 1],
    ['page=0', 20, 1],
    ['page=-1', 20, 1],
    ['limit=0&page=0', 1, 1],
    ['limit=2&page=2', 2, 2],
  ] as const) {
    const body = await get(`/console/v1/experiments?${qs}`);
    assert.equal(body.pagination.itemsPerPage, limit, qs);
    assert.equal(body.pagination.pageNumber, page, qs);
    assert.equal(body.pagination.previousPage, page > 1 ? page - 1 : null, qs);
    assert.equal(body.data.length, limit, qs);
    if (page === 1) assert.equal(body.data[0].id, first.data[0].id, qs);
  }
  const pipes = await get('/console/v1/release_pipelines?limit=0&page=-2');
  assert.deepEqual(pipes.pagination, { itemsPerPage: 1, pageNumber: 1, totalItems: 25, nextPage: 2, previousPage: null });
  assert.equal(pipes.data.length, 1);
  await app.close();
});

test('methods: a contract path with a method it does not declare is 405 with Allow; an unknown path is 404', async () => {
  const app = server();
  for (const [method, url, allow] of [
    ['TRACE', '/console/v1/gates/gate_cc_alpha/rules', 'POST'],
    ['GET', '/console/v1/gates/nope/enable', 'PUT'],
    ['DELETE', '/console/v1/experiments', 'GET'],
    ['POST', '/console/v1/release_pipelines?limit=1', 'GET'],
    ['GET', '/console/v1/metrics', 'POST'],
    ['DELETE', `/console/v1/metrics/m::${TYPE}`, 'POST'],
    ['OPTIONS', '/console/v1/release_pipeline_triggers/t/skip', 'PUT'],
    ['POST', '/console/v1/release_pipeline_triggers/t/unpause', 'PUT'],
    ['PUT', '/console/v1/experiments/e/overrides', 'PATCH'],
    ['QUERY', '/console/v1/release_pipelines', 'GET'],
  ] as const) {
    // No content type with a body method (QUERY, PUT) is still 405: the method is refused before the body is read.
    const r = await app.inject({
      method,
      url,
      headers: method === 'QUERY' || method === 'PUT' ? H : J,
      payload: method === 'GET' || method === 'TRACE' ? undefined : '{}',
    });
    assert.equal(r.statusCode, 405, `${method} ${url}`);
    assert.equal(r.headers.allow, allow, `${method} ${url}`);
    assert.ok(isError(r.json(), 405));
    assert.equal(r.json().error, 'method_not_allowed');
  }
  for (const [method, url] of [
    ['DELETE', '/console/v1/gates/g/rules/x'],
    ['GET', '/console/v1/gates//enable'],
    ['GET', '/console/v2/experiments'],
    ['GET', '/console/v1/experimentsx'],
  ] as const) {
    const r = await app.inject({ method, url, headers: H });
    assert.equal(r.statusCode, 404, `${method} ${url}`);
    assert.equal(r.headers.allow, undefined);
  }
  // The key is still checked first.
  assert.equal((await app.inject({ method: 'DELETE', url: '/console/v1/experiments' })).statusCode, 401);
  await app.close();
});

test('pipelines: paged, message and pagination', async () => {
  const app = server();
  const r = (await app.inject({ method: 'GET', url: '/console/v1/release_pipelines?limit=10&page=3', headers: H })).json();
  assert.equal(r.message, SPEC_MESSAGES.listReleasePipelines);
  assert.equal(r.data.length, 5);
  assert.deepEqual(r.pagination, { itemsPerPage: 10, pageNumber: 3, totalItems: 25, nextPage: null, previousPage: 2 });
  await app.close();
});

test(`overrides: both arrays required, at most ${OVERRIDES_MAX}, replaced and persisted`, async () => {
  const app = server();
  const url = '/console/v1/experiments/exp_cc_overrides_1/overrides';
  const item = { type: 'gate', id: 'gate_cc_alpha', groupID: 'grp_0_test' };
  assert.equal(
    (await app.inject({ method: 'PATCH', url, headers: J, payload: { overrides: Array(OVERRIDES_MAX + 1).fill(item), userIDOverrides: [] } })).statusCode,
    400,
  );
  assert.equal((await app.inject({ method: 'PATCH', url, headers: J, payload: { overrides: [] } })).statusCode, 400);
  assert.equal((await app.inject({ method: 'PATCH', url, headers: J, payload: { userIDOverrides: [] } })).statusCode, 400);
  const ok = await app.inject({
    method: 'PATCH',
    url,
    headers: J,
    payload: { overrides: Array(OVERRIDES_MAX).fill(item), userIDOverrides: [{ groupID: 'g', ids: ['u1'] }] },
  });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().data.overrides.length, OVERRIDES_MAX);
  assert.equal(
    (await app.inject({ method: 'PATCH', url: '/console/v1/experiments/nope/overrides', headers: J, payload: { overrides: [], userIDOverrides: [] } }))
      .statusCode,
    404,
  );
  await app.close();
});

test('triggers: skip moves to the next phase, pauses on review, unpause resumes, wrong phase 409', async () => {
  const app = server();
  const put = (op: string, phaseID?: string) =>
    app.inject({ method: 'PUT', url: `/console/v1/release_pipeline_triggers/trg_cc_2/${op}`, headers: J, payload: phaseID === undefined ? {} : { phaseID } });
  assert.equal((await put('skip')).statusCode, 400);
  assert.equal((await put('skip', 'ph_cc_2_3')).statusCode, 409);
  assert.equal((await put('unpause', 'ph_cc_2_1')).statusCode, 409);
  const s1 = (await put('skip', 'ph_cc_2_1')).json().data;
  assert.equal(s1.currentPhaseID, 'ph_cc_2_2');
  assert.ok(s1.actions.length >= 2);
  assert.equal(s1.status, 'PAUSED'); // phase 2 requires review (every second phase does)
  assert.equal((await put('unpause', 'ph_cc_2_1')).statusCode, 409);
  const u = (await put('unpause', 'ph_cc_2_2')).json().data;
  assert.equal(u.status, 'IN_PROGRESS');
  assert.equal((await put('unpause', 'ph_cc_2_2')).statusCode, 409);
  const s2 = (await put('skip', 'ph_cc_2_2')).json().data;
  assert.equal(s2.currentPhaseID, 'ph_cc_2_3');
  assert.equal(s2.status, 'IN_PROGRESS'); // phase 3 does not
  assert.equal(
    (await app.inject({ method: 'PUT', url: '/console/v1/release_pipeline_triggers/nope/skip', headers: J, payload: { phaseID: 'x' } })).statusCode,
    404,
  );
  await app.close();
});

test('metrics: bounds of name and description, type enum, id shape, default directionality, duplicates 409', async () => {
  const app = server();
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/console/v1/metrics', headers: J, payload: payload as object });
  assert.equal((await post({ name: SHORT_NAME, type: TYPE })).statusCode, 400);
  assert.equal((await post({ name: 'a'.repeat(NAME.maxLength + 1), type: TYPE })).statusCode, 400);
  assert.ok(!METRIC_TYPES.includes('median'));
  assert.equal((await post({ name: MIN_NAME, type: 'median' })).statusCode, 400);
  assert.equal((await post({ name: MIN_NAME })).statusCode, 400);
  assert.equal((await post({ name: MIN_NAME, type: TYPE, description: 'd'.repeat(DESCRIPTION_MAX + 1) })).statusCode, 400);
  assert.equal((await post({ name: MIN_NAME, type: TYPE, unknownField: true })).statusCode, 400);
  assert.equal((await post({ name: MIN_NAME, type: TYPE })).statusCode, 200);
  const ok = await post({ name: 'a'.repeat(NAME.maxLength), type: TYPE, description: 'd'.repeat(DESCRIPTION_MAX) });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().data.id, `${'a'.repeat(NAME.maxLength)}::${TYPE}`);
  assert.equal(ok.json().data.directionality, DEFAULT_DIRECTIONALITY);
  assert.equal((await post({ name: 'a'.repeat(NAME.maxLength), type: TYPE })).statusCode, 409);
  await app.close();
});

test('metrics: dryRun create and update persist nothing; update applies fields', async () => {
  const app = server();
  const dry = await app.inject({ method: 'POST', url: '/console/v1/metrics', headers: J, payload: { name: 'dry_metric', type: OTHER_TYPE, dryRun: true } });
  assert.equal(dry.statusCode, 200);
  assert.equal((await app.inject({ method: 'POST', url: `/console/v1/metrics/dry_metric::${OTHER_TYPE}`, headers: J, payload: {} })).statusCode, 404);
  assert.equal(
    (await app.inject({ method: 'POST', url: '/console/v1/metrics', headers: J, payload: { name: 'dry_metric', type: OTHER_TYPE } })).statusCode,
    200,
  );
  const upd = await app.inject({
    method: 'POST',
    url: `/console/v1/metrics/dry_metric::${OTHER_TYPE}`,
    headers: J,
    payload: { description: 'new', directionality: OTHER_DIRECTIONALITY, tags: ['t'] },
  });
  assert.equal(upd.json().message, SPEC_MESSAGES.updateMetric);
  assert.equal(upd.json().data.description, 'new');
  const dryUpd = await app.inject({
    method: 'POST',
    url: `/console/v1/metrics/dry_metric::${OTHER_TYPE}`,
    headers: J,
    payload: { description: 'not saved', dryRun: true },
  });
  assert.equal(dryUpd.json().data.description, 'not saved');
  const after = await app.inject({ method: 'POST', url: `/console/v1/metrics/dry_metric::${OTHER_TYPE}`, headers: J, payload: {} });
  assert.equal(after.json().data.description, 'new');
  await app.close();
});

test('bad transport: malformed JSON 400, wrong content type 415, oversize 413, unknown route 404, never 5xx', async () => {
  const app = server();
  const url = '/console/v1/metrics';
  const bad = await app.inject({ method: 'POST', url, headers: J, payload: '{nope' });
  assert.equal(bad.statusCode, 400);
  assert.ok(isError(bad.json(), 400));
  const plain = await app.inject({ method: 'POST', url, headers: { ...H, 'content-type': 'text/plain' }, payload: 'x' });
  assert.equal(plain.statusCode, 415);
  assert.ok(isError(plain.json(), 415));
  const huge = await app.inject({ method: 'POST', url, headers: J, payload: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT + 1), type: TYPE }) });
  assert.equal(huge.statusCode, 413);
  assert.ok(isError(huge.json(), 413));
  const unknown = await app.inject({ method: 'GET', url: '/console/v1/nothing', headers: H });
  assert.equal(unknown.statusCode, 404);
  assert.ok(isError(unknown.json(), 404));
  await app.close();
});

test('faults and variants change behaviour; unknown names are refused', async () => {
  assert.throws(() => server({ faults: ['no-such-fault'] }), /unknown fault/);
  const faulty = server({ faults: ['metric-name-3-accepted', 'disable-keeps-enabled'] });
  assert.equal((await faulty.inject({ method: 'POST', url: '/console/v1/metrics', headers: J, payload: { name: SHORT_NAME, type: TYPE } })).statusCode, 200);
  assert.equal((await faulty.inject({ method: 'PUT', url: '/console/v1/gates/gate_cc_alpha/disable', headers: H })).json().data.isEnabled, true);
  await faulty.close();
  const variant = server({ variants: ['create-metric-201', 'overrides-toplevel-response'] });
  assert.equal((await variant.inject({ method: 'POST', url: '/console/v1/metrics', headers: J, payload: { name: MIN_NAME, type: TYPE } })).statusCode, 201);
  const o = await variant.inject({
    method: 'PATCH',
    url: '/console/v1/experiments/exp_cc_overrides_2/overrides',
    headers: J,
    payload: { overrides: [], userIDOverrides: [] },
  });
  assert.deepEqual(o.json(), { overrides: [], userIDOverrides: [] });
  await variant.close();
});

test('seed: deterministic for a seed, includes the manifest ids', async () => {
  const a = server({ seed: 7 });
  const b = server({ seed: 7 });
  const q = { method: 'GET' as const, url: '/console/v1/experiments?limit=100', headers: H };
  assert.deepEqual((await a.inject(q)).json().data, (await b.inject(q)).json().data);
  const ids = new Set<string>();
  for (let page = 1; page <= 3; page++) for (const e of (await a.inject({ ...q, url: `${q.url}&page=${page}` })).json().data) ids.add(e.id);
  for (const id of ['exp_cc_overrides_1', 'exp_cc_overrides_2', 'exp_cc_overrides_3']) assert.ok(ids.has(id), id);
  await a.close();
  await b.close();
});

test('robustness: invalid UTF-8 and over-deep JSON are 400, huge page numbers are clamped to 2^53 - 1, a page past the end is empty', async () => {
  const app = server();
  const rules = '/console/v1/gates/gate_cc_alpha/rules';
  const latin1 = Buffer.concat([Buffer.from('{"rules":[{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]);
  const bad = await app.inject({ method: 'POST', url: rules, headers: J, payload: latin1 });
  assert.equal(bad.statusCode, 400);
  assert.match(bad.json().message, /UTF-8/);
  const deep = `{"rules":[{"name":"d","returnValue":{"v":${'['.repeat(50_000)}${']'.repeat(50_000)}}}]}`;
  const nested = await app.inject({ method: 'POST', url: rules, headers: J, payload: deep });
  assert.equal(nested.statusCode, 400);
  assert.match(nested.json().message, /nested deeper/);
  // Brackets inside strings are text, not nesting.
  const text = await app.inject({ method: 'POST', url: rules, headers: J, payload: { rules: [{ name: '['.repeat(500) }] } });
  assert.equal(text.statusCode, 200);
  assert.equal((await app.inject({ method: 'PUT', url: '/console/v1/gates/gate_cc_alpha/enable', headers: H })).json().data.rules.length, 1);
  for (const qs of ['page=1e20', 'page=9007199254740992', 'status=active&page=1e20']) {
    const r = await app.inject({ method: 'GET', url: `/console/v1/experiments?${qs}`, headers: H });
    assert.equal(r.statusCode, 200, qs);
    assert.deepEqual(r.json().data, [], qs);
    assert.equal(r.json().pagination.pageNumber, Number.MAX_SAFE_INTEGER, qs);
  }
  const far = (await app.inject({ method: 'GET', url: '/console/v1/experiments?status=active&limit=100&page=9007199254740991', headers: H })).json();
  assert.deepEqual(far.data, []);
  assert.equal(far.pagination.nextPage, null);
  await app.close();
});

test(`metrics: a ${NAME.maxLength}-character name, the longest, gives a longer id that update still reaches`, async () => {
  const app = server();
  const name = 'n'.repeat(NAME.maxLength);
  assert.equal((await app.inject({ method: 'POST', url: '/console/v1/metrics', headers: J, payload: { name, type: TYPE } })).statusCode, 200);
  const r = await app.inject({ method: 'POST', url: `/console/v1/metrics/${name}::${TYPE}`, headers: J, payload: { description: 'long' } });
  assert.equal(r.statusCode, 200);
  assert.equal(r.json().data.description, 'long');
  await app.close();
});

test('logs: with logging on, the key appears nowhere, neither from the header nor from a query string', async () => {
  const { PassThrough } = await import('node:stream');
  const stream = new PassThrough();
  let log = '';
  stream.on('data', (d) => (log += d));
  const app = server({ logger: true, logStream: stream });
  await app.inject({ method: 'GET', url: '/console/v1/release_pipelines', headers: H });
  await app.inject({ method: 'GET', url: `/console/v1/release_pipelines?limit=5&SERVICE-API-KEY=${KEY}&page=1` });
  await app.inject({ method: 'POST', url: '/console/v1/metrics', headers: J, payload: { name: SHORT_NAME, type: TYPE } });
  await app.close();
  assert.match(log, /release_pipelines\?limit=5&SERVICE-API-KEY=\[redacted\]&page=1/);
  assert.ok(!log.includes(KEY), 'the key was logged');
});
