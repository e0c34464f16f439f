// The variant groups of the grouped self-test (npm test) against the reference's own list: every
// variant that must pass under --strict is in exactly one group, a variant that must warn is in none
// (it runs alone, in default mode), and no group holds two variants of one clause (two error shapes,
// two page rules: one would hide the other).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VARIANT_GROUPS } from '../contracts/selftest-groups.ts';
import { VARIANTS } from '../reference/faults.ts';

test('every strict variant is in exactly one group, no warning variant in any', () => {
  const grouped = VARIANT_GROUPS.flat();
  const strict = VARIANTS.filter((v) => v.strict === 'pass').map((v) => v.name);
  assert.deepEqual([...grouped].sort(), [...strict].sort(), 'the groups hold exactly the strict-pass variants');
  assert.equal(new Set(grouped).size, grouped.length, 'no variant in two groups');
});

test('no group holds two variants of one clause', () => {
  const clause = new Map<string, string>(VARIANTS.map((v) => [v.name, v.clause]));
  for (const group of VARIANT_GROUPS) {
    const clauses = group.map((name) => clause.get(name));
    assert.equal(new Set(clauses).size, clauses.length, `group ${group.join(', ')}: clauses ${clauses.join(', ')}`);
  }
});
