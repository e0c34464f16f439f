// The sharded example of .github/workflows/conformance-sharded.yml, on one machine: two shards of the
// real suite against one real reference server (with a fault only one shard's tests can see), each
// writing a blob report, then `conformance:merge` over both. The merged verdict must be the whole
// suite's, not either shard's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { startReference } from '../core/reference.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_') && !k.startsWith('PLAYWRIGHT_')));
const tsx = (script: string, args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...clean, ...env },
  });

// Four metrics tests, in file order: name of 4 and of 200 (a create: fails under the fault), name of 3
// and of 201, description of 1000 (a create: fails), name and type required.
const METRICS_FOUR = 'metrics: (name of [34] and|description of|name and type are)';

test('two shards merge into one verdict: the merged report holds every test and every failure of both shards', async () => {
  const work = mkdtempSync(join(tmpdir(), 'cc-shards-'));
  // A fault the metrics tests see: each shard's failures must all reach the merged report. Four of
  // them, two a shard, of which the two that create a metric fail: a failed test costs Playwright a new
  // worker, and twenty tests would show the merge no better than four.
  const server = await startReference({ faults: ['metric-id-shape-wrong'], stderr: 'ignore' });
  const shards: { status: number | null; total: number; failed: number }[] = [];
  try {
    for (const i of [1, 2]) {
      const r = tsx('contracts/conformance.ts', ['--grep', METRICS_FOUR, '--shard', `${i}/2`, '--reporter=dot,blob,./contracts/support/reporter.ts'], {
        CONSOLE_BASE_URL: server.baseUrl,
        CONSOLE_API_KEY: server.apiKey,
        CONSOLE_REPORTS_DIR: join(work, `reports-${i}`),
        PLAYWRIGHT_BLOB_OUTPUT_DIR: join(work, `blob-${i}`),
      });
      const summary = JSON.parse(readFileSync(join(work, `reports-${i}`, 'conformance.json'), 'utf8')).summary;
      shards.push({ status: r.status, total: summary.tests.total, failed: summary.tests.failed });
    }
  } finally {
    await server.stop();
  }
  assert.ok(shards.every((s) => s.total > 0) && shards.some((s) => s.status === 1), JSON.stringify(shards));
  const all = join(work, 'all-blob-reports');
  mkdirSync(all);
  for (const i of [1, 2]) for (const f of readdirSync(join(work, `blob-${i}`))) copyFileSync(join(work, `blob-${i}`, f), join(all, f));

  const short = tsx('contracts/merge-shards.ts', ['--expect-shards', '3', all], { CONSOLE_REPORTS_DIR: join(work, 'merged') });
  assert.equal(short.status, 3, short.stderr);
  assert.match(short.stderr, /expected 3 shard reports .* found 2/);

  const merged = tsx('contracts/merge-shards.ts', ['--expect-shards', '2', all], { CONSOLE_REPORTS_DIR: join(work, 'merged') });
  assert.equal(merged.status, 1, merged.stderr);
  const report = JSON.parse(readFileSync(join(work, 'merged', 'conformance.json'), 'utf8'));
  assert.equal(report.summary.tests.total, shards[0].total + shards[1].total);
  assert.equal(report.summary.tests.failed, shards[0].failed + shards[1].failed);
  assert.equal(report.summary.verdict, 'fail');
  assert.ok(
    report.failures.some((f: { clauses: string[] }) => f.clauses.some((c) => c.startsWith('metrics.'))),
    JSON.stringify(report.failures),
  );
  assert.match(readFileSync(join(work, 'merged', 'junit.xml'), 'utf8'), /<testsuites/);
});

test('conformance:merge exits 3 with one line when there is nothing to merge', () => {
  const empty = mkdtempSync(join(tmpdir(), 'cc-shards-empty-'));
  for (const args of [[empty], [join(empty, 'missing')], []]) {
    const r = tsx('contracts/merge-shards.ts', args, { CONSOLE_REPORTS_DIR: join(empty, 'r') });
    assert.equal(r.status, 3, `${args}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^conformance:merge: /);
  }
});
