// npm run clauses:where as a user runs it: a clause found, an unknown id one line and exit 3, --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

const where = (...args: string[]) =>
  spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'contracts/clauses-where.ts'), ...args], { cwd: ROOT, encoding: 'utf8' });

test('clauses:where: a known id exits 0 with its text; an unknown one is one line and exit 3; --help exits 0', () => {
  const found = where('envelope.data');
  assert.equal(found.status, 0, found.stderr);
  assert.match(found.stdout, /^envelope\.data \(stated/);
  assert.match(found.stdout, /proved by: /);
  // The faults aimed at it come from the reference's own list.
  assert.match(found.stdout, /\n {2}aimed at it: \S+ {2}\((fails it|not in docs)|DOES NOT FAIL IT/);
  assert.doesNotMatch(found.stdout, /no fault of the reference names it/);
  const unknown = where('envelope.data', 'no.such.clause');
  assert.equal(unknown.status, 3);
  assert.equal(unknown.stdout, '');
  assert.equal(unknown.stderr.trim().split('\n').length, 1);
  assert.match(unknown.stderr, /^clauses:where: no clause has the id "no.such.clause"/);
  assert.equal(where().status, 3);
  const help = where('--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: npm run clauses:where/);
});
