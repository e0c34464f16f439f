// The three legal refusals in detail: rules-cap (a gate's rules are capped), steady-429 (a steady rate
// limit) and write-conflict-409 (a write to a resource another write holds is refused). Each answers
// a 4xx with the JSON error body and stores nothing; what it refuses and what it lets through is
// checked against the server with the variant off. Spec 7 leaves failure codes open, 8 rate limits.
import { METRIC_TYPES } from '../contracts/index.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { build } from './app.ts';

/** A metric type the spec allows (the contract's first). */
const TYPE = METRIC_TYPES[0];

const KEY = 'test-key-refusals-0123';
const H = { 'service-api-key': KEY };
const J = { ...H, 'content-type': 'application/json' };
const GATE = '/console/v1/gates/gate_cc_alpha';

const server = (variants: string[], extra: Partial<Parameters<typeof build>[0]> = {}) => build({ apiKey: KEY, scale: 40, variants, ...extra });
const rules = (n: number, prefix = 'r') => ({ rules: Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}` })) });
const addRules = (app: FastifyInstance, n: number, prefix?: string, gate = GATE) =>
  app.inject({ method: 'POST', url: `${gate}/rules`, headers: J, payload: rules(n, prefix) });
/** The names of the rules a gate holds, read through enable (the API has no read of a gate). */
const heldRules = async (app: FastifyInstance, gate = GATE) =>
  (await app.inject({ method: 'PUT', url: `${gate}/enable`, headers: H })).json().data.rules.map((r: { name: string }) => r.name);
const isErrorBody = (r: { statusCode: number; headers: Record<string, unknown>; json(): any }) => {
  const b = r.json();
  return (
    String(r.headers['content-type']).startsWith('application/json') &&
    b.status === r.statusCode &&
    typeof b.error === 'string' &&
    typeof b.message === 'string'
  );
};

test('rules-cap: add rules that would leave the gate over 50 rules is refused with 400 and stores nothing; up to 50 is accepted', async () => {
  const clean = server([]);
  assert.equal((await addRules(clean, 51)).statusCode, 200, 'the clean server takes 51 rules');
  await clean.close();

  const app = server(['rules-cap']);
  assert.equal((await addRules(app, 30, 'a')).statusCode, 200);
  // The rules the gate holds count: 30 + 21 is over the cap, 30 + 20 is not.
  const over = await addRules(app, 21, 'b');
  assert.equal(over.statusCode, 400);
  assert.ok(isErrorBody(over), over.body);
  assert.match(over.json().message, /at most 50 rules/);
  assert.equal((await heldRules(app)).length, 30, 'the refused add stored nothing');
  assert.equal((await addRules(app, 20, 'c')).statusCode, 200);
  assert.equal((await heldRules(app)).length, 50);
  assert.equal((await addRules(app, 1, 'd')).statusCode, 400);
  assert.equal((await addRules(app, 0)).statusCode, 200, 'adding no rule to a full gate is no more than the cap');
  assert.equal((await addRules(app, 1, 'e', '/console/v1/gates/gate_cc_beta')).statusCode, 200, 'the cap is per gate');
  await app.close();
});

test('rules-cap:N sets the cap; with rules-replace the cap counts the rules the gate would hold after the replace', async () => {
  const app = server(['rules-cap:3']);
  assert.equal((await addRules(app, 2, 'a')).statusCode, 200);
  assert.equal((await addRules(app, 2, 'b')).statusCode, 400);
  assert.deepEqual(await heldRules(app), ['a0', 'a1']);
  assert.equal((await addRules(app, 1, 'c')).statusCode, 200);
  assert.deepEqual(await heldRules(app), ['a0', 'a1', 'c0']);
  await app.close();

  const replacing = server(['rules-cap:3', 'rules-replace']);
  assert.equal((await addRules(replacing, 3, 'a')).statusCode, 200);
  assert.equal((await addRules(replacing, 3, 'b')).statusCode, 200, 'a replace leaves 3, within the cap');
  assert.equal((await addRules(replacing, 4, 'c')).statusCode, 400);
  assert.deepEqual(await heldRules(replacing), ['b0', 'b1', 'b2']);
  await replacing.close();
});

test('steady-429: every 4th request across the server, with or without a key, is 429 with Retry-After: 1 and a JSON error body', async () => {
  const app = server(['steady-429']);
  const statuses: number[] = [];
  const requests = [
    () => app.inject({ method: 'GET', url: '/console/v1/release_pipelines', headers: H }),
    () => app.inject({ method: 'GET', url: '/console/v1/release_pipelines' }),
    () => app.inject({ method: 'GET', url: '/console/v1/nothing', headers: H }),
  ];
  let refused: Awaited<ReturnType<FastifyInstance['inject']>> | undefined;
  for (let i = 0; i < 12; i++) {
    const r = await requests[i % 3]();
    statuses.push(r.statusCode);
    if (r.statusCode === 429) refused = r;
  }
  // The 4th (keyed read), 8th (unknown path) and 12th (keyless read) are refused: counted whatever they are.
  assert.deepEqual(statuses, [200, 401, 404, 429, 401, 404, 200, 429, 404, 200, 401, 429]);
  assert.ok(refused && isErrorBody(refused), refused?.body);
  assert.equal(refused?.headers['retry-after'], '1');
  assert.equal(refused?.json().error, 'too_many_requests');
  await app.close();
});

test('steady-429: a refused write does nothing; steady-429:EVERY:SECONDS sets both', async () => {
  const app = server(['steady-429:2:5']);
  assert.equal((await addRules(app, 1, 'kept')).statusCode, 200);
  const refused = await addRules(app, 1, 'refused');
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.headers['retry-after'], '5');
  // The read is the 3rd request (answered); the 4th would be refused.
  assert.deepEqual(await heldRules(app), ['kept0']);
  assert.equal((await app.inject({ method: 'GET', url: '/console/v1/release_pipelines', headers: H })).statusCode, 429);
  await app.close();
});

test('write-conflict-409: a write to a resource another write holds is 409 with a JSON body and stores nothing', async () => {
  const clean = server([]);
  const both = await Promise.all([addRules(clean, 1, 'first'), addRules(clean, 1, 'second')]);
  assert.deepEqual(
    both.map((r) => r.statusCode),
    [200, 200],
    'the clean server takes concurrent writes',
  );
  await clean.close();

  const holds: number[] = [];
  const app = server(['write-conflict-409'], {
    wait: (ms, done) => {
      holds.push(ms);
      setTimeout(done, ms);
    },
  });
  // Which of the two takes the gate first is the server's business; the other is refused.
  const pair = await Promise.all([addRules(app, 1, 'first'), addRules(app, 1, 'second')]);
  assert.deepEqual(pair.map((r) => r.statusCode).sort(), [200, 409]);
  const refused = pair.find((r) => r.statusCode === 409);
  assert.ok(refused && isErrorBody(refused), refused?.body);
  const winner = pair[0].statusCode === 200 ? 'first0' : 'second0';
  assert.deepEqual(await heldRules(app), [winner], 'the refused write stored nothing');
  assert.deepEqual(holds, [40, 40], 'each accepted write held its resource 40 ms (the add and the enable that read it)');
  // Held once the write is over: the next write goes through.
  assert.equal((await addRules(app, 1, 'third')).statusCode, 200);
  await app.close();
});

test('write-conflict-409: enable, disable and add rules of one gate collide; writes to other resources and reads never do', async () => {
  const app = server(['write-conflict-409']);
  const inject = (method: 'PUT' | 'POST' | 'PATCH' | 'GET', url: string, payload?: object) =>
    app.inject({ method, url, headers: payload ? J : H, ...(payload ? { payload } : {}) });
  const sameGate = await Promise.all([inject('PUT', `${GATE}/enable`), inject('PUT', `${GATE}/disable`), inject('POST', `${GATE}/rules`, rules(1))]);
  assert.deepEqual(sameGate.map((r) => r.statusCode).sort(), [200, 409, 409]);
  const different = await Promise.all([
    inject('PUT', `${GATE}/enable`),
    inject('PUT', '/console/v1/gates/gate_cc_beta/enable'),
    inject('PATCH', '/console/v1/experiments/exp_cc_overrides_1/overrides', { overrides: [], userIDOverrides: [] }),
    inject('PUT', '/console/v1/release_pipeline_triggers/trg_cc_1/skip', { phaseID: 'ph_cc_1_1' }),
    inject('POST', '/console/v1/metrics', { name: 'conflict_probe', type: TYPE }),
    inject('GET', '/console/v1/experiments'),
    inject('GET', '/console/v1/experiments'),
  ]);
  assert.deepEqual(
    different.map((r) => r.statusCode),
    [200, 200, 200, 200, 200, 200, 200],
  );
  // A metric's create and its update name one resource, <name>::<type>.
  const metric = await Promise.all([
    inject('POST', `/console/v1/metrics/conflict_probe::${TYPE}`, { description: 'one' }),
    inject('POST', '/console/v1/metrics', { name: 'conflict_probe', type: TYPE, dryRun: true }),
  ]);
  assert.deepEqual(metric.map((r) => r.statusCode).sort(), [200, 409]);
  await app.close();
});

test('write-conflict-409: a write refused by validation holds nothing', async () => {
  const app = server(['write-conflict-409']);
  const [bad, good] = await Promise.all([app.inject({ method: 'POST', url: `${GATE}/rules`, headers: J, payload: { rules: 'x' } }), addRules(app, 1, 'good')]);
  assert.deepEqual([bad.statusCode, good.statusCode], [400, 200]);
  await app.close();
});
