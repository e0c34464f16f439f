// The blame table of the self-test (contracts/selftest-blame.ts): figures per fault and overall.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blameFigures, blameTable } from './selftest-blame.ts';

const row = (fault: string, clause: string, failed: string[]) => ({ fault, clause, caught: true, failed, unreached: [] });

test('selftest blame: median and maximum of the clauses each fault fails, and how many fail their own clause', () => {
  assert.equal(blameFigures([]).median, 0);
  const rows = [row('a', 'x', ['x']), row('b', 'y', ['y', 'z']), row('c', 'w', ['v', 'u', 't', 's', 'r'])];
  assert.deepEqual(blameFigures(rows), { faults: 3, median: 2, max: 5, exactlyOne: 1, atMostThree: 2, ownClauseFailed: 2 });
  const table = blameTable(rows);
  assert.match(table, /^c +w +5 +no +0 +v, u, t, s and 1 more$/m);
  assert.match(table, /median 2, max 5/);
});
