// The linearizability checker on histories whose answer is known: the textbook register histories
// (Herlihy and Wing), a lost update of a read-modify-write, the two readings of an add, and the budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAddsKeptOrReplaced, checkLinearizable, fieldsModel, type Model, type HistoryOperation, setModel, timed } from './linearizability.ts';

/** A register of one number: write sets it (answers nothing), read answers it. */
type RegIn = { write: number } | { read: true };
const register: Model<number, RegIn, number | null> = {
  init: 0,
  key: String,
  step: (s, input, output) => ('write' in input ? input.write : output === s ? s : undefined),
};
const op = <I, O>(input: I, output: O, call: number, ret: number): HistoryOperation<I, O> => ({ input, output, call, ret });

test('linearizability: overlapping writes and reads that some order explains are linearizable', () => {
  // write 1 and write 2 overlap; a read after both sees 2, which is the order write 1, write 2.
  const h = [
    op<RegIn, number | null>({ write: 1 }, null, 0, 10),
    op<RegIn, number | null>({ write: 2 }, null, 5, 15),
    op<RegIn, number | null>({ read: true }, 2, 20, 25),
  ];
  const v = checkLinearizable(register, h);
  assert.equal(v.result, 'linearizable');
  // A read overlapping a write may see either value.
  assert.equal(
    checkLinearizable(register, [op<RegIn, number | null>({ write: 1 }, null, 0, 10), op<RegIn, number | null>({ read: true }, 0, 2, 4)]).result,
    'linearizable',
  );
});

test('linearizability: a read of a value overwritten before it was sent is not linearizable', () => {
  // write 1 ends, then write 2 ends, then a read sees 1: real time forbids it.
  const h = [
    op<RegIn, number | null>({ write: 1 }, null, 0, 5),
    op<RegIn, number | null>({ write: 2 }, null, 6, 10),
    op<RegIn, number | null>({ read: true }, 1, 11, 12),
  ];
  assert.equal(checkLinearizable(register, h).result, 'not-linearizable');
  // Two reads that see the values in the order opposite to their writes' (and to each other).
  const h2 = [
    op<RegIn, number | null>({ write: 1 }, null, 0, 100),
    op<RegIn, number | null>({ read: true }, 1, 10, 20),
    op<RegIn, number | null>({ read: true }, 0, 30, 40),
  ];
  assert.equal(checkLinearizable(register, h2).result, 'not-linearizable');
});

test('linearizability: two overlapping updates of different fields, each answering the other undone, are a lost update', () => {
  const m = fieldsModel({ description: 'before', tags: ['cc'] });
  const ok = [
    op({ description: 'a' }, { description: 'a', tags: ['cc'] }, 0, 50),
    op({ tags: ['b'] }, { description: 'a', tags: ['b'] }, 10, 60),
    op({}, { description: 'a', tags: ['b'] }, 70, 80),
  ];
  assert.equal(checkLinearizable(m, ok).result, 'linearizable');
  // The read-modify-write with a gap: each writes the whole record it read before the other's write.
  const lost = [
    op({ description: 'a' }, { description: 'a', tags: ['cc'] }, 0, 50),
    op({ tags: ['b'] }, { description: 'before', tags: ['b'] }, 10, 60),
    op({}, { description: 'before', tags: ['b'] }, 70, 80),
  ];
  assert.equal(checkLinearizable(m, lost).result, 'not-linearizable');
  // A field the answer leaves out is not judged.
  assert.equal(checkLinearizable(m, [op({ description: 'x' }, { tags: ['cc'] }, 0, 1)]).result, 'linearizable');
});

test('linearizability: adds to a set, kept or replaced, and a lost add', () => {
  const adds = [op(['a'], ['p', 'a'], 0, 50), op(['b'], ['p', 'a', 'b'], 10, 60), op([] as string[], ['p', 'a', 'b'], 70, 80)];
  assert.equal(checkLinearizable(setModel(['p'], 'keep'), adds).result, 'linearizable');
  assert.equal(checkLinearizable(setModel(['p'], 'replace'), adds).result, 'not-linearizable');
  const replaced = [op(['a'], ['a'], 0, 50), op(['b'], ['b'], 10, 60)];
  assert.equal(checkLinearizable(setModel(['p'], 'replace'), replaced).result, 'linearizable');
  // Each add answers the held names and its own, never the other's: one of the two was lost.
  const lost = [op(['a'], ['p', 'a'], 0, 50), op(['b'], ['p', 'b'], 10, 60), op([] as string[], ['p', 'b'], 70, 80)];
  assert.equal(checkLinearizable(setModel(['p'], 'keep'), lost).result, 'not-linearizable');
  assert.equal(checkLinearizable(setModel(['p'], 'replace'), lost).result, 'not-linearizable');
});

test('linearizability: a search past its budget is unknown, never linearizable; an answer before its call is unknown', () => {
  // Ten concurrent writes and a read of a value none wrote: every order is tried before the answer is no.
  const h = [
    ...Array.from({ length: 10 }, (_, i) => op<RegIn, number | null>({ write: i + 1 }, null, 0, 100)),
    op<RegIn, number | null>({ read: true }, 99, 0, 100),
  ];
  const v = checkLinearizable(register, h, 50);
  assert.equal(v.result, 'unknown');
  assert.equal(checkLinearizable(register, h).result, 'not-linearizable');
  assert.equal(checkLinearizable(register, [op<RegIn, number | null>({ write: 1 }, null, 10, 5)]).result, 'unknown');
});

test('linearizability: adds judged against both readings pass when either explains them; timed keeps the call before the answer', async () => {
  const kept = [op(['a'], ['a'], 0, 50), op(['b'], ['a', 'b'], 10, 60), op([] as string[], ['a', 'b'], 70, 80)];
  const replaced = [op(['a'], ['a'], 0, 50), op(['b'], ['b'], 10, 60), op([] as string[], [] as string[], 70, 80)];
  const lost = [op(['a'], ['a'], 0, 50), op(['b'], ['b'], 10, 60), op([] as string[], ['b'], 70, 80)];
  assert.equal(checkAddsKeptOrReplaced(kept).result, 'linearizable');
  assert.equal(checkAddsKeptOrReplaced(replaced).result, 'linearizable');
  assert.equal(checkAddsKeptOrReplaced(lost).result, 'not-linearizable');
  const o = await timed(['x'], async () => 'answer');
  assert.deepEqual([o.input, o.reply], [['x'], 'answer']);
  assert.ok(o.ret >= o.call);
});
