// The docs state the conformance suite's test count (verify's progress and stop lines, the verdict); the
// docs test holds those phrases to scripts/lib/doc-figures.ts, which reads the count from the test files
// so that it runs in process. Here that reading is held to Playwright's own listing, which is what a run
// counts: a test made in a loop, or a declaration the reading misses, fails here and not in a user's docs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import type { Json } from '../core/json.ts';
import { conformanceTests } from './lib/doc-figures.ts';

test('the conformance tests the docs count are the ones Playwright lists (playwright test --list, as clauses:coverage lists them)', () => {
  // Listing needs no target: the config is loaded, no test runs (a placeholder target, as in contracts/coverage.ts).
  const list = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--list', '--reporter=json', '-c', join(ROOT, 'playwright.config.ts')],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CONSOLE_BASE_URL: 'http://127.0.0.1:9', CONSOLE_API_KEY: 'listing-only' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  assert.equal(list.status, 0, list.stderr);
  const count = (suite: Json): number =>
    (suite.specs ?? []).reduce((n: number, spec: Json) => n + (spec.tests ?? []).length, 0) +
    (suite.suites ?? []).reduce((n: number, child: Json) => n + count(child), 0);
  const listed = (JSON.parse(list.stdout).suites as Json[]).reduce((n, s) => n + count(s), 0);
  assert.ok(listed > 0, 'Playwright lists the suite');
  assert.equal(conformanceTests(), listed);
});
