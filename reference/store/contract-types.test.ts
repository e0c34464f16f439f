// What the reference stores takes the types of the contract's schemas: a value of another plain type is
// turned into the field's type, so a revision of a field's type in the spec reaches the answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractTyper } from './contract-types.ts';

test('contract types: a value of another plain type takes the type of its field, nested fields too', () => {
  const gate = contractTyper('Gate')({
    id: 7,
    isEnabled: 'true',
    checksPerHour: '12',
    lastModifierEmail: null,
    rules: [{ id: 'r1', passPercentage: '50', conditions: [{ type: 'country', targetValue: ['NZ'] }] }],
    tags: ['a'],
  });
  assert.deepEqual(gate, {
    id: '7',
    isEnabled: true,
    checksPerHour: 12,
    lastModifierEmail: null,
    rules: [{ id: 'r1', passPercentage: 50, conditions: [{ type: 'country', targetValue: ['NZ'] }] }],
    tags: ['a'],
  });
});

test('contract types: a value that no plain change makes right stays as it is, for the suite to judge', () => {
  const gate = contractTyper('Gate')({ checksPerHour: 'often', createdTime: 1.5, name: ['x'] });
  assert.deepEqual(gate, { checksPerHour: 'often', createdTime: 2, name: ['x'] });
});
