import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeStripsTypes, TS_NODE_OPTIONS, TSX_LOADER } from './package.ts';

test('nodeStripsTypes: Node 24 with type stripping, outside node_modules only', () => {
  assert.equal(nodeStripsTypes('24.21.0', { typescript: 'strip' }, '/work/console-conformance'), true);
  assert.equal(nodeStripsTypes('25.2.1', { typescript: 'transform' }, '/srv/suite'), true);
  // Installed from npm: Node refuses to strip types under node_modules.
  assert.equal(nodeStripsTypes('24.21.0', { typescript: 'strip' }, '/app/node_modules/console-conformance'), false);
  // Turned off (--no-experimental-strip-types) or not there.
  assert.equal(nodeStripsTypes('24.21.0', { typescript: false }, '/work/suite'), false);
  assert.equal(nodeStripsTypes('24.21.0', {}, '/work/suite'), false);
  // Node 22 strips types too, but calls it experimental on every start: tsx there.
  assert.equal(nodeStripsTypes('22.18.0', { typescript: 'strip' }, '/work/suite'), false);
  assert.equal(nodeStripsTypes('20.20.2', {}, '/work/suite'), false);
});

test('TS_NODE_OPTIONS: nothing where this Node strips types, else tsx as a loader', () => {
  assert.deepEqual(TS_NODE_OPTIONS, nodeStripsTypes() ? [] : ['--import', TSX_LOADER]);
});
