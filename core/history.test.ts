// The run history: a run written is read back whole, runs come back per target and oldest first,
// the schema version is kept and a newer one refused, and a failing write is a one-line warning.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config.ts';
import { HISTORY_SCHEMA, appendRun, coverageRate, passRate, readRuns, recordRun, type HistoryRun } from './history.ts';
import Database from './sqlite.ts';

function folder(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-history-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const zero = { pass: 0, fail: 0, warn: 0, observed: 0, uncovered: 0 };
const run = (startedAt: string, extra: Partial<HistoryRun> = {}): HistoryRun => ({
  startedAt,
  target: 'reference fixtures/targets/reference.json',
  version: '0.1.0 (3afac32)',
  exitCode: 0,
  verdict: 'pass',
  strict: false,
  profile: 'smoke',
  partial: false,
  clauses: { stated: { ...zero, pass: 300, fail: 1 }, inferred: { ...zero, pass: 20, warn: 1 }, open: { ...zero, observed: 35 } },
  coverage: { total: 305, checked: 301, uncovered: 4, unverifiable: 0, waived: 0, excluded: 0 },
  footprint: {
    totals: {
      writes: 40,
      rulesAdded: { gate_a: 7 },
      metricsCreated: 5,
      metricsUpdated: 9,
      phasesSkipped: { trg_1: 2 },
      unpaused: 1,
      gateToggles: 6,
      overridePatches: 8,
      notRestored: 0,
    },
    state: { gates: { gate_a: { rules: 70, isEnabled: true } }, triggers: { trg_1: { currentPhaseID: 'ph_5', status: 'PAUSED' } } },
  },
  endpoints: [
    { script: 'paging', endpoint: 'listExperiments.page1', p50: 1.1, p95: 2.2, p99: 3.3, count: 40, median: 1.09, scale: 0.98 },
    { script: 'paging', endpoint: 'calibration', p50: 0.5, p95: 0.9, p99: 1, count: 20, median: null, scale: null },
  ],
  ...extra,
});

test('a run is read back as it was written, with its load figures', (t) => {
  const file = join(folder(t), 'nested', 'history.sqlite');
  const written = run('2026-11-20T03:17:00.000Z');
  const id = appendRun(file, written);
  const [back] = readRuns(file);
  assert.deepEqual(back, { ...written, id, endpoints: written.endpoints.slice().sort((a, b) => a.endpoint.localeCompare(b.endpoint)) });
});

test('runs come back oldest first, per target, the last `limit` of them', (t) => {
  const file = join(folder(t), 'history.sqlite');
  appendRun(file, run('2026-11-22T03:17:00.000Z'));
  appendRun(file, run('2026-11-20T03:17:00.000Z'));
  appendRun(file, run('2026-11-21T03:17:00.000Z', { target: 'https://staging.example.com fixtures/targets/staging.json', clauses: null, endpoints: [] }));
  appendRun(file, run('2026-11-23T03:17:00.000Z'));
  assert.deepEqual(
    readRuns(file).map((r) => r.startedAt.slice(8, 10)),
    ['20', '21', '22', '23'],
  );
  assert.deepEqual(
    readRuns(file, { target: 'reference fixtures/targets/reference.json', limit: 2 }).map((r) => r.startedAt.slice(8, 10)),
    ['22', '23'],
  );
  assert.equal(readRuns(file, { target: 'https://staging.example.com fixtures/targets/staging.json' })[0].clauses, null);
});

test('no file, or an empty one, is an empty history', (t) => {
  const dir = folder(t);
  assert.deepEqual(readRuns(join(dir, 'none.sqlite')), []);
  new Database(join(dir, 'empty.sqlite')).close();
  assert.deepEqual(readRuns(join(dir, 'empty.sqlite')), []);
});

test('the schema version is kept in the file, and a newer one is neither written nor read', (t) => {
  const dir = folder(t);
  const file = join(dir, 'history.sqlite');
  appendRun(file, run('2026-11-20T03:17:00.000Z'));
  const db = new Database(file);
  assert.equal(db.pragma('user_version', { simple: true }), HISTORY_SCHEMA);
  db.pragma(`user_version = ${HISTORY_SCHEMA + 1}`);
  db.close();
  assert.throws(() => appendRun(file, run('2026-11-21T03:17:00.000Z')), /newer than this code/);
  assert.throws(() => readRuns(file), /newer than this code/);
});

test('a failing write is one warning line and no exception', (t) => {
  const dir = folder(t);
  const notSqlite = join(dir, 'history.sqlite');
  writeFileSync(notSqlite, 'this is not a database, but some other file the user pointed at');
  const lines: string[] = [];
  assert.equal(
    recordRun(notSqlite, run('2026-11-20T03:17:00.000Z'), (l) => lines.push(l)),
    false,
  );
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^warning: run history not written to .*history\.sqlite: /);
  assert.doesNotMatch(lines[0], /\n/);
  // A folder that cannot be made (its parent is a file): refused whoever runs the test, root included.
  assert.equal(
    recordRun(join(notSqlite, 'sub', 'h.sqlite'), run('2026-11-20T03:17:00.000Z'), (l) => lines.push(l)),
    false,
  );
  assert.equal(lines.length, 2);
  assert.match(lines[1], /^warning: run history not written to /);
});

test('a schema 1 file is brought to schema 2 on the next write: its rows keep no coverage or footprint', (t) => {
  const file = join(folder(t), 'history.sqlite');
  const db = new Database(file);
  db.exec(`CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, target TEXT NOT NULL, version TEXT, exit_code INTEGER NOT NULL,
    verdict TEXT, strict INTEGER NOT NULL, profile TEXT, partial INTEGER NOT NULL, clauses TEXT, pass_rate REAL)`);
  db.exec(`INSERT INTO runs (started_at, target, version, exit_code, verdict, strict, profile, partial, clauses, pass_rate)
    VALUES ('2026-11-01T03:00:00.000Z', 'reference fixtures/targets/reference.json', '0.1.0', 0, 'pass', 0, 'smoke', 0, NULL, NULL)`);
  db.pragma('user_version = 1');
  db.close();
  appendRun(file, run('2026-11-20T03:17:00.000Z'));
  const [old, now] = readRuns(file);
  assert.equal(old.coverage, null);
  assert.equal(old.footprint, null);
  assert.equal(now.coverage?.checked, 301);
  assert.equal(now.footprint?.totals.rulesAdded.gate_a, 7);
  const check = new Database(file);
  assert.equal(check.pragma('user_version', { simple: true }), 2);
  check.close();
});

test('coverage rate: stated clauses judged over those in scope (not waived, not excluded)', () => {
  assert.equal(coverageRate(run('x')), 301 / 305);
  assert.equal(coverageRate({ coverage: { total: 305, checked: 200, uncovered: 0, unverifiable: 5, waived: 50, excluded: 50 } }), 200 / 205);
  assert.equal(coverageRate({ coverage: null }), null);
});

test('pass rate: passed over judged (pass, fail, warn), observed and uncovered left out', () => {
  assert.equal(passRate(run('x').clauses), 320 / 322);
  assert.equal(passRate(null), null);
  assert.equal(passRate({ stated: zero, inferred: zero, open: { ...zero, observed: 3 } }), null);
});

test('the history file: CONSOLE_HISTORY, else history.sqlite in the reports folder', () => {
  assert.equal(loadConfig({ CONSOLE_REPORTS_DIR: '/tmp/r' }).historyFile, '/tmp/r/history.sqlite');
  assert.equal(loadConfig({ CONSOLE_REPORTS_DIR: '/tmp/r', CONSOLE_HISTORY: '/var/h.sqlite' }).historyFile, '/var/h.sqlite');
});
