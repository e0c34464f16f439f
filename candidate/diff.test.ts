import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceReport, Exchange, ExchangeLog } from '../core/formats.ts';
import { changes, learnNoise, verdicts, withoutExplained, type Read } from './compare.ts';
import { diffExchanges, operationOf, pairTest, requestKey } from './diff.ts';

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
  assert.equal(operationOf('GET', '/console/v1/experiments?page=2'), 'listExperiments');
  assert.equal(operationOf('POST', '/console/v1/gates/g_1/rules'), 'addGateRules');
  assert.equal(operationOf('GET', '/console/v1/nowhere'), 'GET /console/v1/nowhere');
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
      evidence: status === 'fail' ? [{ test: 't', level: 'stated', error: `\u001b[31m${id} broken\u001b[39m`, exchanges: [ex('/console/v1/experiments', 200, { message: 'x' })] }] : [],
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
  const change = { operation: 'listExperiments', kind: 'message' as const, where: 'message', clauses: [], current: 'Listed.', candidate: 'Fetched.', count: 3, test: 't', exchanges: { current: cur, candidate: cand } };
  const regression = { clause: 'x', level: 'stated' as const, section: null, text: null, current: 'pass' as const, test: 't', error: null, exchanges: { current: cur, candidate: cand } };
  assert.deepEqual(withoutExplained([change], [regression]), []);
  assert.equal(withoutExplained([change], []).length, 1);
});
