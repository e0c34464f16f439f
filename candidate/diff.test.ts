import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceReport, Exchange, ExchangeLog } from '../core/formats.ts';
import { changes, learnNoise, verdicts, withoutExplained, type Read } from './compare.ts';
import { diffExchanges, operationOfPath, pairTest, requestKey, statePairs } from './diff.ts';

const ex = (path: string, status: number, body: unknown, method = 'GET'): Exchange => ({
  method,
  path,
  requestHeaders: {},
  status,
  responseBody: body,
  curl: `curl ${method} ${path} ${JSON.stringify(body)}`,
});
const list = (ids: string[], extra: Record<string, unknown> = {}) => ({ message: 'ok', data: ids.map((id) => ({ id, ...extra })) });

test('operationOf: the contract operation by method and path template, else METHOD path', () => {
  assert.equal(operationOfPath('GET', '/console/v1/experiments?page=2'), 'listExperiments');
  assert.equal(operationOfPath('POST', '/console/v1/gates/g_1/rules'), 'addGateRules');
  assert.equal(operationOfPath('GET', '/console/v1/nowhere'), 'GET /console/v1/nowhere');
});

test('requestKey: ids in the path and query values may differ, parameter names may not', () => {
  assert.equal(requestKey(ex('/console/v1/metrics/a', 200, null, 'POST')), requestKey(ex('/console/v1/metrics/b', 200, null, 'POST')));
  assert.equal(requestKey(ex('/console/v1/experiments?limit=5&page=1', 200, null)), requestKey(ex('/console/v1/experiments?page=2&limit=5', 200, null)));
  assert.notEqual(requestKey(ex('/console/v1/experiments?page=1', 200, null)), requestKey(ex('/console/v1/experiments?limit=1', 200, null)));
});

test('diffExchanges: status, presence, type, order, page size, message and value, each its kind and place', () => {
  const p = '/console/v1/experiments';
  assert.deepEqual(
    diffExchanges(ex(p, 200, {}), ex(p, 400, {})).map((d) => d.kind),
    ['status'],
  );
  const kinds = (a: unknown, b: unknown) => diffExchanges(ex(p, 200, a), ex(p, 200, b)).map((d) => `${d.kind}@${d.where}`);
  assert.deepEqual(kinds({ a: 1 }, { a: 1, b: 2 }), ['field presence@b']);
  assert.deepEqual(kinds({ a: 1 }, { a: '1' }), ['type@a']);
  assert.deepEqual(kinds(list(['x', 'y']), list(['y', 'x'])), ['order@data[]']);
  assert.deepEqual(kinds(list(['x', 'y']), list(['x'])), ['page size@data.length', 'body@data[].id']);
  // A list inside an answer that grew by an item of a new id (a rule a read added): its length, its ids.
  assert.deepEqual(kinds({ rules: [{ id: 'a' }] }, { rules: [{ id: 'a' }, { id: 'b' }] }), ['body@rules.length', 'body@rules[].id']);
  assert.deepEqual(kinds({ message: 'A.' }, { message: 'A' }), ['message@message']);
  assert.deepEqual(kinds(list(['x'], { n: 1 }), list(['x'], { n: 2 })), ['body@data[].n']);
  // Other items on the page: one difference, not one per field of each item.
  assert.deepEqual(kinds(list(['x', 'y'], { n: 1 }), list(['y', 'z'], { n: 2 })), ['body@data[].id', 'body@data[].n']);
  assert.deepEqual(kinds(list(['x']), list(['x'])), []);
  assert.deepEqual(
    diffExchanges(ex(`${p}?creatorID=a`, 200, {}), ex(`${p}?creatorID=b`, 200, {})).map((d) => `${d.kind}@${d.where}`),
    ['requests@query.creatorID'],
  );
  // Each side's manifest id at the same place of its manifest is the same thing.
  const aliases = (v: string) => ({ g_cur: '<gates[0]>', g_cand: '<gates[0]>' })[v] ?? v;
  assert.deepEqual(diffExchanges(ex(p, 200, { id: 'g_cur' }), ex(p, 200, { id: 'g_cand' }), aliases), []);
});

test('pairTest: pairs while the requests are the same request, and says where they part', () => {
  const a = [ex('/console/v1/experiments?page=1', 200, {}), ex('/console/v1/experiments?page=2', 200, {})];
  const b = [ex('/console/v1/experiments?page=1', 200, {})];
  const r = pairTest(a, b);
  assert.equal(r.pairs.length, 1);
  assert.equal(r.diverged?.at, 1);
  assert.equal(r.diverged?.candidate, null);
  assert.equal(pairTest(a, a).diverged, undefined);
});

const log = (bodies: Record<string, unknown[]>): ExchangeLog => ({
  format: 'console-conformance.exchanges/1',
  tests: Object.entries(bodies).map(([key, xs]) => ({
    key,
    clauses: [`clause.${key}`],
    observations: [],
    status: 'passed',
    exchanges: xs.map((b) => ex('/console/v1/experiments', 200, b)),
  })),
});
const conformance = (statuses: Record<string, string>): ConformanceReport =>
  ({
    summary: {} as ConformanceReport['summary'],
    clauses: Object.entries(statuses).map(([id, status]) => ({
      id,
      section: null,
      level: 'stated',
      status,
      text: null,
      tests: [],
      evidence:
        status === 'fail'
          ? [{ test: 't', level: 'stated', error: `\u001b[31m${id} broken\u001b[39m`, exchanges: [ex('/console/v1/experiments', 200, { message: 'x' })] }]
          : [],
      observations: [],
    })),
    failures: [],
    inconclusive: [],
    drift: [],
  }) as ConformanceReport;
const read = (bodies: Record<string, unknown[]>, statuses: Record<string, string> = {}): Read => ({
  conformance: conformance(statuses),
  exchanges: log(bodies),
  observations: {},
});

test('changes: what differs between two reads of one side is noise, never reported; the rest is, once per operation, kind and place', () => {
  const cur1 = read({ t: [{ message: 'ok', createdTime: 1, n: 1 }] });
  const cur2 = read({ t: [{ message: 'ok', createdTime: 2, n: 1 }] });
  const cand = read({ t: [{ message: 'ok', createdTime: 3, n: 2 }] });
  const noise = learnNoise([cur1, cur2]);
  assert.deepEqual([...noise.keys], ['listExperiments|body|createdTime']);
  const c = changes(cur1, cand, noise);
  assert.deepEqual(
    c.changes.map((x) => `${x.kind}@${x.where}:${x.current}->${x.candidate}`),
    ['body@n:1->2'],
  );
  assert.equal(c.ignored, 1);
  assert.deepEqual(c.changes[0].clauses, ['clause.t']);
  // The same build: nothing.
  assert.deepEqual(changes(cur1, cur2, noise).changes, []);
});

test('verdicts: the candidate alone breaks a stated clause: a regression; both: both broken; the current alone: fixed', () => {
  const cur = [read({ t: [{}] }, { a: 'pass', b: 'fail', c: 'fail', d: 'pass' })];
  const cand = [read({ t: [{}] }, { a: 'fail', b: 'fail', c: 'pass', d: 'pass' })];
  const v = verdicts(cur, cand);
  assert.deepEqual(
    v.regressions.map((g) => [g.clause, g.current, g.error]),
    [['a', 'pass', 'a broken']],
  );
  assert.deepEqual(
    v.bothBroken.map((b) => b.clause),
    ['b'],
  );
  assert.deepEqual(v.fixed, ['c']);
});

test('withoutExplained: the difference a regression shows is its clause, not a change of open behaviour', () => {
  const cur = ex('/console/v1/experiments', 200, { message: 'Listed.' });
  const cand = ex('/console/v1/experiments', 200, { message: 'Fetched.' });
  const change = {
    operation: 'listExperiments',
    kind: 'message' as const,
    where: 'message',
    clauses: [],
    current: 'Listed.',
    candidate: 'Fetched.',
    count: 3,
    test: 't',
    exchanges: { current: cur, candidate: cand },
  };
  const regression = {
    clause: 'x',
    level: 'stated' as const,
    section: null,
    text: null,
    current: 'pass' as const,
    test: 't',
    error: null,
    exchanges: { current: cur, candidate: cand },
  };
  assert.deepEqual(withoutExplained([change], [regression]), []);
  assert.equal(withoutExplained([change], []).length, 1);
});

test('diffExchanges with unequalLists values: lists without ids of unequal length compared place by place by the values taken', () => {
  const p = '/console/v1/release_pipeline_triggers/t_1/skip';
  const a = ex(p, 200, { data: { actions: [{ type: 'SKIP', timeMs: 1 }] } }, 'PUT');
  const b = ex(
    p,
    200,
    {
      data: {
        actions: [
          { type: 'SKIP', timeMs: 1 },
          { type: 'SKIP', timeMs: 2, by: 'x' },
        ],
      },
    },
    'PUT',
  );
  const places = (o?: Parameters<typeof diffExchanges>[3]) => diffExchanges(a, b, undefined, o).map((d) => `${d.kind}@${d.where}`);
  assert.deepEqual(places(), ['body@data.actions.length']);
  assert.deepEqual(places({ unequalLists: 'values' }), ['body@data.actions.length', 'body@data.actions[].timeMs', 'field presence@data.actions[].by']);
});

test('statePairs: the k-th answer of each request and status with the k-th of the same, whatever came between', () => {
  const skip = (status: number, n: number) => ex('/console/v1/release_pipeline_triggers/t_1/skip', status, { n }, 'PUT');
  const get = ex('/console/v1/release_pipeline_triggers/t_1', 200, {});
  const pairs = statePairs([get, skip(200, 1), skip(200, 2)], [get, skip(409, 0), skip(200, 3)]);
  assert.deepEqual(
    pairs.map(([x, y]) => [x.status, (x.responseBody as { n?: number }).n, (y.responseBody as { n?: number }).n]),
    [
      [200, undefined, undefined],
      [200, 1, 3],
    ],
  );
});

// Two reads of one side with writes: the second meets the phase the first skipped (409), then skips the
// next, and the trigger's action log (no ids) has grown by the first read's actions.
const triggerLog = (answers: [number, unknown][]): ExchangeLog => ({
  format: 'console-conformance.exchanges/1',
  tests: [
    {
      key: 'triggers.spec.ts > skip',
      clauses: ['triggers.skip.status200'],
      observations: [],
      status: 'passed',
      exchanges: answers.map(([status, body]) => ex(`/console/v1/release_pipeline_triggers/t_1/skip`, status, body, 'PUT')),
    },
  ],
});
const stateRead = (answers: [number, unknown][]): Read => ({ conformance: conformance({}), exchanges: triggerLog(answers), observations: {} });
const actions = (...xs: [string, number][]) => ({ message: 'ok', data: { actions: xs.map(([type, timeMs]) => ({ type, timeMs })) } });

test('learnNoise stateful: what varies with the state a read met is learnt from reads that wrote, and only then', () => {
  const cur = [
    stateRead([[200, actions(['SKIP', 10])]]),
    stateRead([
      [409, { message: 'skipped' }],
      [200, actions(['SKIP', 10], ['SKIP', 20])],
    ]),
  ];
  const cand = [
    stateRead([[200, actions(['SKIP', 30])]]),
    stateRead([
      [409, { message: 'skipped' }],
      [200, actions(['SKIP', 30], ['SKIP', 40])],
    ]),
  ];
  const stateful = learnNoise(cand, learnNoise(cur, undefined, { stateful: true }), { stateful: true });
  assert.equal(stateful.keys.has('skipTriggerPhase|body|data.actions[].timeMs'), true, [...stateful.keys].join(', '));
  assert.deepEqual(changes(cur[0], cand[0], stateful).changes, []);
  // Without writes the same reads teach nothing of the times: the first reads' times are a change.
  const plain = learnNoise(cand, learnNoise(cur));
  assert.deepEqual(
    changes(cur[0], cand[0], plain).changes.map((c) => c.where),
    ['data.actions[].timeMs'],
  );
  // What does not vary between one side's reads is still a change: an action of another kind.
  const renamed = stateRead([[200, actions(['SKIPPED', 30])]]);
  assert.deepEqual(
    changes(cur[0], renamed, stateful).changes.map((c) => `${c.where}:${c.current}->${c.candidate}`),
    ['data.actions[].type:SKIP->SKIPPED'],
  );
});
