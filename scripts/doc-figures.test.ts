// The docs state the conformance suite's test count (verify's progress and stop lines, the verdict); the
// docs test holds those phrases to scripts/lib/doc-figures.ts, which reads the count from the test files
// so that it runs in process. Here that reading is held to Playwright's own listing, which is what a run
// counts: a test made in a loop, or a declaration the reading misses, fails here and not in a user's docs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Json } from '../core/json.ts';
import { listSuite } from '../contracts/suite-listing.ts';
import { conformanceTests } from './lib/doc-figures.ts';

test('the conformance tests the docs count are the ones Playwright lists (playwright test --list, as clauses:coverage lists them)', () => {
  const list = listSuite();
  assert.ok(list.report, list.error);
  const count = (suite: Json): number =>
    (suite.specs ?? []).reduce((n: number, spec: Json) => n + (spec.tests ?? []).length, 0) +
    (suite.suites ?? []).reduce((n: number, child: Json) => n + count(child), 0);
  const listed = (list.report.suites as Json[]).reduce((n, s) => n + count(s), 0);
  assert.ok(listed > 0, 'Playwright lists the suite');
  assert.equal(conformanceTests(), listed);
});
