// The end of a list found by page number, and what its pages' pagination is held to, on lists of every
// shape a real server answers: counted or not, past the end empty, repeated or refused, refusing deep pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Reply } from './evidence.ts';
import { acrossDepth, drawing, findEnd, pageReader, paginationContradictions, type PageAt } from './depth.ts';

interface Shape {
  items: number;
  /** What a page past the end answers. */
  past?: 'empty' | 'repeat' | 'refused';
  /** Pages from this index on are refused (a server that will not serve deep pages). */
  refuseFrom?: number;
  /** The pagination: a total, a next page number, both, or neither. */
  pagination?: 'total' | 'next' | 'both' | 'none';
  /** The total the pagination claims, when not the true one. */
  claims?: number;
}

/** A list of `shape.items` ids served by page index, and the pages asked. */
function serve(shape: Shape) {
  const asked: number[] = [];
  const at: PageAt = async (limit, index) => {
    asked.push(index);
    const reply = (status: number, body: unknown) =>
      ({ status, body, headers: {}, text: '', exchange: { path: `?limit=${limit}&page=${index + 1}` } }) as unknown as Reply;
    if (shape.refuseFrom !== undefined && index >= shape.refuseFrom) return reply(422, { message: 'too deep' });
    const lastIndex = Math.ceil(shape.items / limit) - 1;
    let from = index * limit;
    if (from >= shape.items) {
      if (shape.past === 'refused') return reply(404, { message: 'no such page' });
      if (shape.past === 'repeat') from = lastIndex * limit;
    }
    const data = from >= shape.items ? [] : Array.from({ length: Math.min(limit, shape.items - from) }, (_, i) => ({ id: `e${from + i}` }));
    const total = shape.claims ?? shape.items;
    const next = (index + 1) * limit < total ? index + 2 : null;
    const pagination = { total: { totalItems: total }, next: { nextPage: next }, both: { totalItems: total, nextPage: next }, none: {} }[
      shape.pagination ?? 'both'
    ];
    return reply(200, { message: 'ok', data, pagination });
  };
  return { read: pageReader(at), asked };
}

test('the end of a counted list takes the first page and two more', async () => {
  const { read, asked } = serve({ items: 50_000 });
  const end = await findEnd(read, 100);
  assert.deepEqual([end.last, end.lastSize, end.count, end.past?.kind], [499, 100, 50_000, 'empty']);
  assert.equal(asked.length, 3);
  assert.deepEqual(paginationContradictions(end), []);
});

test('without a total, the end is found by doubling and bisecting, in a logarithmic number of pages', async () => {
  for (const items of [1, 99, 100, 101, 4_321, 200_000]) {
    const { read, asked } = serve({ items, pagination: 'next' });
    const end = await findEnd(read, 100);
    assert.equal(end.count, items, `${items} items`);
    assert.ok(asked.length <= 2 * Math.ceil(Math.log2(items / 100 + 1)) + 3, `${items} items: ${asked.length} pages asked`);
  }
});

test('a server that answers its last page again past the end ends there', async () => {
  for (const pagination of ['none', 'both'] as const) {
    const { read } = serve({ items: 2_345, past: 'repeat', pagination });
    const end = await findEnd(read, 100);
    assert.deepEqual([end.last, end.count, end.past?.kind], [23, 2_345, 'repeat'], pagination);
  }
});

test('a refused page past a last page that says so is the end; one past a full page that says more is not', async () => {
  const ended = await findEnd(serve({ items: 250, past: 'refused' }).read, 100);
  assert.deepEqual([ended.last, ended.count], [2, 250]);
  const deep = await findEnd(serve({ items: 50_000, refuseFrom: 10 }).read, 100);
  assert.deepEqual([deep.last, deep.count, deep.past?.kind], [9, undefined, 'refused']);
  assert.deepEqual(paginationContradictions(deep), []);
});

test('a pagination that says the list ends while later pages hold items is a contradiction', async () => {
  // A capped count: the total and the next page stop at 10,000 while 50,000 are served.
  const end = await findEnd(serve({ items: 12_000, claims: 10_000 }).read, 100);
  assert.equal(end.count, 12_000);
  assert.match(paginationContradictions(end)[0]?.message ?? '', /says there is no next page/);
});

test('a last page that says more while the pages after it are empty is a contradiction when its total agrees', async () => {
  // Pages past item 10,000 answer empty; the total still counts 50,000.
  const { read } = serve({ items: 10_000, claims: 50_000 });
  const end = await findEnd(read, 100);
  assert.equal(end.count, 10_000);
  assert.match(paginationContradictions(end)[0]?.message ?? '', /says a next page exists/);
  // A full last page that says "maybe more" with no total is a cursor's honest answer, not a contradiction.
  const cursor = await findEnd(serve({ items: 1_000, claims: 1_100, pagination: 'next' }).read, 100);
  assert.deepEqual(paginationContradictions(cursor), []);
});

test('pages drawn across the depth cover its strata, and the same seed draws the same pages', () => {
  const a = acrossDepth(499, 4, drawing(7, 'x'));
  assert.deepEqual(a, acrossDepth(499, 4, drawing(7, 'x')));
  assert.equal(a[0], 0);
  assert.equal(a.at(-1), 499);
  assert.equal(a.length, 6);
  for (let s = 0; s < 4; s++)
    assert.ok(
      a.some((i) => i >= 1 + (s * 498) / 4 && i < 1 + ((s + 1) * 498) / 4),
      `stratum ${s} of ${a}`,
    );
  assert.notDeepEqual(acrossDepth(499, 4, drawing(8, 'x')), a);
  assert.deepEqual(acrossDepth(0, 4, drawing(1, 'x')), [0]);
});
