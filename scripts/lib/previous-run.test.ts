// Drift by default: verify compares with the previous run's observations only when that run was
// against the same target, of the whole suite, and carried out; a run that could not serve keeps
// what the one before it left.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareReports } from './previous-run.ts';

const REFERENCE = { target: { url: 'http://127.0.0.1:1', reference: true }, manifest: 'fixtures/targets/reference.json' };
const STAGING = { target: { url: 'https://staging.example.com', reference: false }, manifest: 'fixtures/targets/staging.json' };

/** A reports folder that is removed when test `t` ends. */
function reportsDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-prev-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function lastRun(
  dir: string,
  run: { target: { url: string; reference: boolean }; manifest: string },
  extra: { grep?: string; exitCode?: number } = {},
  observations = '{"a":1}',
) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'verify.json'), JSON.stringify({ ...run, exitCode: extra.exitCode ?? 0, options: { grep: extra.grep ?? null } }));
  writeFileSync(join(dir, 'observations.json'), observations);
  for (const f of ['conformance.json', 'index.html']) writeFileSync(join(dir, f), '{}');
}

test('previous run: the same target (the reference on another port) gives its observations, and the outputs are cleared', (t) => {
  const dir = reportsDir(t);
  lastRun(dir, REFERENCE);
  const prev = prepareReports(dir, { ...REFERENCE, target: { url: 'http://127.0.0.1:2', reference: true } });
  assert.equal(prev, join(dir, 'previous/observations.json'));
  assert.equal(readFileSync(prev!, 'utf8'), '{"a":1}');
  for (const f of ['verify.json', 'observations.json', 'conformance.json', 'index.html']) assert.ok(!existsSync(join(dir, f)), f);
});

test('previous run: another target or manifest gives nothing, and drops what was kept', (t) => {
  const dir = reportsDir(t);
  lastRun(dir, REFERENCE);
  assert.ok(prepareReports(dir, REFERENCE));
  lastRun(dir, REFERENCE);
  assert.equal(prepareReports(dir, STAGING), undefined);
  assert.ok(!existsSync(join(dir, 'previous')));
});

test('previous run: a --grep run or one that could not be carried out does not serve; the one before it still does', (t) => {
  for (const extra of [{ grep: 'metrics' }, { exitCode: 3 }]) {
    const dir = reportsDir(t);
    lastRun(dir, STAGING, {}, '{"full":1}');
    prepareReports(dir, STAGING);
    lastRun(dir, STAGING, extra, '{"part":1}');
    const prev = prepareReports(dir, STAGING);
    assert.equal(readFileSync(prev!, 'utf8'), '{"full":1}', JSON.stringify(extra));
  }
});

test('the history in reports/ outlives the clearing of the last run, and so does nothing else of it', (t) => {
  const dir = reportsDir(t);
  writeFileSync(join(dir, 'verify.json'), JSON.stringify(REFERENCE));
  writeFileSync(join(dir, 'ledger.json'), '{}');
  writeFileSync(join(dir, 'history.sqlite'), 'kept');
  prepareReports(dir, REFERENCE);
  assert.equal(existsSync(join(dir, 'verify.json')), false, 'the last run is cleared');
  assert.equal(existsSync(join(dir, 'ledger.json')), false, "the last run's ledger is cleared");
  assert.equal(existsSync(join(dir, 'history.sqlite')), true);
});
