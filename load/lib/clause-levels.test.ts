// The load's checks are held to their clauses' levels in contracts/clauses.yaml: a clause id the
// catalogue does not hold fails loudly, and every id the profiles name is one it holds, not open.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { clauseCatalogue, OPERATIONS } from '../../contracts/index.ts';
import { ROOT } from '../../core/config.ts';
import { repositoryFiles } from '../../core/repository-files.ts';
import { successClauses } from './build-validators.ts';
import { clauseLevel, clauseLevels } from './clause-levels.ts';

const LEVELS = clauseLevels(clauseCatalogue());

test('clauseLevel: the catalogue level of a clause; a clause it does not hold, or leaves open, throws naming it', () => {
  assert.equal(clauseLevel(LEVELS, 'paging.limit'), 'inferred');
  assert.equal(clauseLevel(LEVELS, 'metric.id.shape'), 'stated');
  assert.throws(() => clauseLevel(LEVELS, 'paging.limt'), /load check names clause "paging\.limt", which contracts\/clauses\.yaml does not hold/);
  assert.throws(() => clauseLevel(LEVELS, 'toString'), /does not hold/);
  assert.throws(() => clauseLevel(LEVELS, 'gates.enable.state'), /leaves open: nothing to check/);
});

test("a success's status and schema are held to stated clauses of the operation, as the conformance suite blames them", () => {
  for (const op of Object.keys(OPERATIONS)) {
    const c = successClauses(op);
    assert.equal(clauseLevel(LEVELS, c.status), 'stated', `${op} status: ${c.status}`);
    assert.equal(clauseLevel(LEVELS, c.schema), 'stated', `${op} schema: ${c.schema}`);
  }
  assert.deepEqual(successClauses('listReleasePipelines'), { status: 'pipelines.list.status200', schema: 'pipelines.list.path' });
  assert.deepEqual(successClauses('createMetric'), { status: 'metrics.create.path', schema: 'metrics.create.path' });
});

/** The load's TypeScript modules but its tests and declaration files. */
const loadSources = () => repositoryFiles().filter((f) => f.startsWith('load/') && f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'));

test('every clause id the load profiles name is in contracts/clauses.yaml at a level checked under load', () => {
  // A dotted literal that starts as a clause id does (paging., writes., gates., ...) is read as one, so
  // a misspelt id is found here before a run throws on it.
  const heads = new Set(clauseCatalogue().map((c) => c.id.split('.')[0]));
  const named = new Map<string, string>();
  for (const file of loadSources())
    for (const [, id] of readFileSync(join(ROOT, file), 'utf8').matchAll(/'([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+)'/g))
      if (heads.has(id.split('.')[0]) && !/\.(json|ya?ml|js|ts|csv)$/.test(id)) named.set(id, file);
  assert.ok(named.size >= 15, `only ${named.size} clause ids found in load/: ${[...named.keys()].join(', ')}`);
  for (const [id, file] of named) assert.doesNotThrow(() => clauseLevel(LEVELS, id), `${file}: ${id}`);
});
