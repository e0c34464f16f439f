// npm run clauses:coverage -- [--write]
// Fails when a stated clause of contracts/clauses.yaml has no conformance test naming it; prints the
// counts by level. --write fills each clause's checkedBy with the titles of the tests that name it.
// The tests are listed by Playwright itself (`playwright test --list`), with their annotations.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { fail, parseCommand } from '../core/command.ts';
import { ROOT } from '../core/config.ts';
import type { Json } from '../core/json.ts';
import { listSuite } from './suite-listing.ts';

const NAME = 'clauses:coverage';
const HELP = `usage: npm run clauses:coverage -- [--write]

Lists the conformance tests (playwright test --list, no target needed) and the clauses of
contracts/clauses.yaml each names; prints the counts by level.

  --write   fill each clause's checkedBy in contracts/clauses.yaml with the titles of its tests
  --help    this text

Environment: none read (the listing is given a placeholder target).
Exit 0 every stated clause has a test, 1 one has none or a test names an unknown clause, 3 the
tests cannot be listed or a bad option.`;

const { values } = parseCommand({ name: NAME, help: HELP, options: { write: { type: 'boolean' } } });

const listed = listSuite();
if (!listed.report) fail(NAME, `cannot list the tests: ${listed.error}`);
const report = listed.report;
const byClause = new Map<string, Set<string>>();
function visit(suite: Json, path: string[]): void {
  for (const spec of suite.specs ?? []) {
    for (const test of spec.tests ?? []) {
      for (const a of test.annotations ?? []) {
        if (a.type !== 'clause') continue;
        const titles = byClause.get(a.description) ?? new Set<string>();
        titles.add(spec.title);
        byClause.set(a.description, titles);
      }
    }
  }
  for (const child of suite.suites ?? []) visit(child, [...path, child.title]);
}
for (const s of report.suites ?? []) visit(s, [s.title]);

const path = join(ROOT, 'contracts/clauses.yaml');
const doc = parseDocument(readFileSync(path, 'utf8'));
const clauses = (doc.toJS() as { clauses: { id: string; level: string }[] }).clauses;
const known = new Set(clauses.map((c) => c.id));
const unknown = [...byClause.keys()].filter((id) => !known.has(id));
const missing = clauses.filter((c) => c.level === 'stated' && !byClause.has(c.id));
const levels = ['stated', 'inferred', 'open'].map((l) => {
  const cs = clauses.filter((c) => c.level === l);
  return `${l} ${cs.filter((c) => byClause.has(c.id)).length}/${cs.length}`;
});
console.log(`clauses:coverage: ${clauses.length} clauses; with tests: ${levels.join(', ')}`);
if (values.write) {
  const seq = doc.get('clauses') as Json;
  seq.items.forEach((item: Json) => item.set('checkedBy', [...(byClause.get(item.get('id')) ?? [])].sort()));
  writeFileSync(path, doc.toString({ lineWidth: 200 }));
  console.log('clauses:coverage: checkedBy written to contracts/clauses.yaml');
}
if (unknown.length > 0) console.error(`clauses:coverage: tests name clauses that are not in clauses.yaml: ${unknown.join(', ')}`);
if (missing.length > 0) console.error(`clauses:coverage: stated clauses without a test:\n  ${missing.map((c) => c.id).join('\n  ')}`);
process.exit(unknown.length > 0 || missing.length > 0 ? 1 : 0);
