// The clause catalogue (contracts/clauses.yaml) is well-formed, quotes the spec verbatim inside the
// section it names, leaves no requirement of the spec out, and holds every x-clauses id of the contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../core/config.ts';
import { OPERATIONS } from './index.ts';
import { normalizeQuote } from './model/clause-sync.ts';
import { readSpecDocument, statementsOf } from './model/spec-document.ts';

interface Clause {
  id: string;
  section: string;
  level: string;
  text: string;
  note?: string;
  checkedBy: unknown;
}

const catalogue = parse(readFileSync(join(ROOT, 'contracts/clauses.yaml'), 'utf8')) as { clauses: Clause[] };
const clauses = catalogue.clauses;
// The spec is checked in its committed copy (contracts/spec/), so that a clone without shared/ beside
// it checks the catalogue too; where shared/ is beside the repository, the copy must be the same text.
const SPEC_PATH = join(ROOT, 'contracts/spec/console-v1.md');
const SHARED_SPEC_PATH = join(ROOT, '../shared/spec/console-v1.md');
const LEVELS = ['stated', 'inferred', 'open'];

/** Quotes are compared with whitespace collapsed and backticks dropped (as contracts:build compares them). */
const norm = normalizeQuote;

/** The spec cut at its numbered sections, as the contract model reads it: section number -> its statements and heading. */
function specSections(spec: string): Map<string, string> {
  return new Map(readSpecDocument(spec).sections.map((s) => [s.number, [s.title, ...statementsOf(s).map((l) => l.text)].join('\n')]));
}

function loadSpec(): string {
  assert.ok(existsSync(SPEC_PATH), `the committed copy of the spec is missing: ${SPEC_PATH}`);
  return readFileSync(SPEC_PATH, 'utf8');
}

test('clauses: the committed copy of the spec is the spec beside the repository, when that is there', () => {
  const copy = loadSpec();
  assert.match(copy, /^# Console Management Interface/);
  // Without shared/ (a bare clone) there is nothing to compare with; the copy is then the spec.
  if (existsSync(SHARED_SPEC_PATH)) {
    assert.ok(
      readFileSync(SHARED_SPEC_PATH, 'utf8') === copy,
      `${SHARED_SPEC_PATH} differs from contracts/spec/console-v1.md: the spec changed; copy it, then bring the catalogue and the contract up to it`,
    );
  }
});

test('clauses: the file is a clauses list of entries with only the known keys', () => {
  assert.deepEqual(Object.keys(catalogue), ['clauses']);
  assert.ok(Array.isArray(clauses));
  for (const c of clauses) {
    const extra = Object.keys(c).filter((k) => !['id', 'section', 'level', 'text', 'note', 'checkedBy'].includes(k));
    assert.deepEqual(extra, [], `${c.id}: unknown keys`);
    assert.equal(typeof c.text, 'string', `${c.id}: text`);
    assert.ok(c.text.trim().length > 0, `${c.id}: empty text`);
    if (c.note !== undefined) assert.equal(typeof c.note, 'string', `${c.id}: note`);
    assert.ok(Array.isArray(c.checkedBy) && c.checkedBy.every((t) => typeof t === 'string'), `${c.id}: checkedBy is a list of test titles`);
  }
});

test('clauses: ids unique, dotted lower camelCase; levels known', () => {
  const ids = new Set<string>();
  for (const c of clauses) {
    assert.match(c.id, /^[a-z][A-Za-z0-9]*(\.[a-zA-Z0-9][A-Za-z0-9]*)+$/, `${c.id}: not dotted lower camelCase`);
    assert.ok(!ids.has(c.id), `duplicate ${c.id}`);
    ids.add(c.id);
    assert.ok(LEVELS.includes(c.level), `${c.id}: level ${c.level}`);
  }
  assert.ok(clauses.length > 100, `well over 100 clauses, got ${clauses.length}`);
});

test('clauses: every section is a heading of the spec; stated and open texts are verbatim inside it', () => {
  const sections = specSections(loadSpec());
  for (const c of clauses) {
    const body = sections.get(String(c.section));
    assert.ok(body !== undefined, `${c.id}: section ${c.section} is not a heading of the spec`);
    if (c.level !== 'inferred') assert.ok(norm(body).includes(norm(c.text)), `${c.id}: text is not verbatim in spec section ${c.section}: ${c.text}`);
  }
});

test('clauses: inferred texts explain the inference instead of quoting the spec', () => {
  const spec = norm(loadSpec());
  const inferred = clauses.filter((c) => c.level === 'inferred');
  assert.ok(inferred.length >= 6);
  for (const c of inferred) {
    assert.ok(!spec.includes(norm(c.text)), `${c.id}: an inferred text that the spec states verbatim is a stated clause`);
    assert.ok(c.text.length >= 40, `${c.id}: say what is inferred and why`);
  }
});

test('clauses: every "not shown" sentence of the spec has an open clause quoting it', () => {
  const open = clauses.filter((c) => c.level === 'open').map((c) => norm(c.text));
  const lines = loadSpec()
    .split('\n')
    .filter((l) => l.includes('not shown'));
  assert.ok(lines.length >= 25, `the spec has ${lines.length} "not shown" lines`);
  for (const line of lines) {
    // One line may hold several sentences; each one that says "not shown" needs its clause.
    for (const sentence of line
      .replace(/^- /, '')
      .split(/(?<=not shown\.)\s+/)
      .filter((s) => s.includes('not shown'))) {
      const n = norm(sentence);
      assert.ok(
        open.some((t) => t.includes('not shown') && n.includes(t)),
        `no open clause quotes: ${sentence}`,
      );
    }
  }
});

test('clauses: every table row and every path of the spec is quoted by a clause', () => {
  const texts = clauses.filter((c) => c.level !== 'inferred').map((c) => norm(c.text));
  const spec = loadSpec().split('\n');
  const separator = (l: string | undefined) => l !== undefined && /^\|[-| ]+\|$/.test(l);
  // A table's header is the row above its separator; a clause only needs to quote the body rows.
  const bodies = spec.filter((l, i) => /^\|/.test(l) && !separator(l) && !separator(spec[i + 1]));
  assert.ok(bodies.length > 150, `the spec has ${bodies.length} table rows`);
  for (const row of bodies) {
    const n = norm(row);
    assert.ok(
      texts.some((t) => t.length >= 12 && n.includes(t)),
      `no clause quotes the row: ${row}`,
    );
  }
  const paths = spec.filter((l) => /^`(GET|POST|PUT|PATCH|DELETE) \/console\//.test(l));
  assert.equal(paths.length, Object.keys(OPERATIONS).length, 'every path of the spec is an operation of the contract');
  for (const p of paths) assert.ok(texts.includes(norm(p)), `no clause quotes the path ${p}`);
});

test('clauses: 200 is stated only where the spec shows it (enable, list pipelines, skip, unpause)', () => {
  const stated200 = clauses
    .filter((c) => c.level === 'stated' && /status200$/.test(c.id))
    .map((c) => c.id)
    .sort();
  assert.deepEqual(stated200, ['gates.enable.status200', 'pipelines.list.status200', 'triggers.skip.status200', 'triggers.unpause.status200']);
  // The other operations' success status is open (spec 4.0), and any 2xx is the inferred rule.
  const level = new Map(clauses.map((c) => [c.id, c.level]));
  assert.equal(level.get('responses.successStatus'), 'open');
  assert.equal(level.get('responses.success.2xx'), 'inferred');
});

test('clauses: the levels the contract and the suite rely on', () => {
  const level = new Map(clauses.map((c) => [c.id, c.level]));
  const want: Record<string, string> = {
    'errors.shape': 'open',
    'pagination.fields': 'open',
    'experiments.list.order': 'open',
    'gates.addRules.merge': 'open',
    'overrides.patch.merge': 'open',
    'gates.enable.state': 'open',
    'triggers.status': 'open',
    'metrics.create.dryRun.response': 'open',
    'errors.badInput.4xx': 'inferred',
    'errors.unknownId.404': 'inferred',
    'paging.disjointUnion': 'inferred',
    'paging.limit': 'inferred',
    'filters.oracle': 'inferred',
    'writes.rejectedPersistNothing': 'inferred',
    'auth.key.required': 'stated',
    'metrics.create.name.length': 'stated',
    'overrides.patch.overrides.maxItems': 'stated',
    'metrics.create.dryRun': 'stated',
    'overrides.patch.response': 'stated',
  };
  for (const [id, l] of Object.entries(want)) assert.equal(level.get(id), l, `${id} is ${l}`);
});

/** Every value of an `x-clauses` key anywhere in a parsed YAML document. */
function xClauses(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const v of node) xClauses(v, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'x-clauses') {
        assert.ok(Array.isArray(v), 'x-clauses is a list');
        out.push(...(v as string[]));
      } else xClauses(v, out);
    }
  }
  return out;
}

test('clauses: every x-clauses id of contracts/openapi.yaml is in the catalogue', () => {
  const ids = new Set(clauses.map((c) => c.id));
  const named = xClauses(parse(readFileSync(join(ROOT, 'contracts/openapi.yaml'), 'utf8')));
  assert.ok(named.length > 20, `the contract names ${named.length} clauses`);
  for (const id of named) assert.ok(ids.has(id), `x-clauses names ${id}, missing from clauses.yaml`);
});
