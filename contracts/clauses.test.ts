// The clause catalogue is well-formed, quotes the spec verbatim, and names every x-clauses id of the contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../scripts/lib/config.ts';

const clauses = (parse(readFileSync(join(ROOT, 'contracts/clauses.yaml'), 'utf8')) as { clauses: any[] }).clauses;
// CI clones the repository with shared/ beside it (architecture guide).
const SPEC = join(ROOT, '../shared/spec/console-v1.md');

test('clauses: ids unique and dotted, levels known, checkedBy a list', () => {
  const ids = new Set<string>();
  for (const c of clauses) {
    assert.match(c.id, /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9_]+)+$/, c.id);
    assert.ok(!ids.has(c.id), `duplicate ${c.id}`);
    ids.add(c.id);
    assert.ok(['stated', 'inferred', 'open'].includes(c.level), `${c.id} level ${c.level}`);
    assert.ok(Array.isArray(c.checkedBy), `${c.id} checkedBy`);
  }
  assert.ok(clauses.length > 100, `well over 100 clauses, got ${clauses.length}`);
});

test('clauses: stated and open texts are verbatim spec text, sections exist', () => {
  assert.ok(existsSync(SPEC), `the spec is expected beside the repository at ${SPEC}`);
  const spec = readFileSync(SPEC, 'utf8');
  const sections = new Set([...spec.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]));
  for (const c of clauses) {
    assert.ok(sections.has(String(c.section)), `${c.id}: section ${c.section} is not a heading of the spec`);
    if (c.level !== 'inferred') assert.ok(spec.includes(c.text), `${c.id}: text is not verbatim in the spec: ${c.text}`);
  }
});

test('clauses: every x-clauses id of contracts/openapi.yaml is in the catalogue', () => {
  const ids = new Set(clauses.map((c) => c.id));
  const openapi = readFileSync(join(ROOT, 'contracts/openapi.yaml'), 'utf8');
  const named = [...openapi.matchAll(/x-clauses: \[([^\]]*)\]/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()));
  assert.ok(named.length > 20);
  for (const id of named) assert.ok(ids.has(id), `x-clauses names ${id}, missing from clauses.yaml`);
});
