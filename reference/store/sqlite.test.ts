// The SQLite driver that reference/store/sqlite.ts picks loads on this Node and survives the garbage
// collector taking its statements: the driver before better-sqlite3 13 aborted the process on Node
// 24.19 as soon as a collected Statement was destroyed outside JavaScript (a collection finished by
// one of V8's own tasks while the event loop waits), and better-sqlite3 13 cannot load on Node 20.
// A forced gc() would not show it (it destroys them inside JavaScript), so the child makes garbage
// and lets the event loop turn, as the server does while it seeds. It runs in a child process, so
// that a crash is a failed assertion, not a dead test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const ADAPTER = new URL('./sqlite.ts', import.meta.url).href;
const ROUNDS = 20; // with the old driver on Node 24.19, 3 rounds were enough to abort, every time
const PER_ROUND = 200;

const CHILD = `
const { default: Database, DRIVER } = await import(${JSON.stringify(ADAPTER)});
const db = new Database(':memory:');
db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)');
let garbage = [];
for (let round = 0; round < ${ROUNDS}; round++) {
  // A statement per call, as the server's store prepares them: each is garbage at once.
  for (let i = 1; i <= ${PER_ROUND}; i++) db.prepare('INSERT INTO t (v) VALUES (?)').run(i);
  garbage = Array.from({ length: 20000 }, (_, i) => ({ i, s: String(i) }));
  await new Promise((resolve) => setTimeout(resolve, 1));
}
const count = db.prepare('SELECT count(*) FROM t').pluck().get();
const sum = db.prepare('SELECT sum(v) FROM t').pluck().get();
console.log(JSON.stringify({ driver: DRIVER, count, sum }));
db.close();
`;

test('the SQLite driver loads on this Node and its collected statements do not kill the process', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.signal, null, `child killed by ${r.signal}: ${r.stderr.slice(0, 400)}`);
  assert.equal(r.status, 0, `child exited ${r.status}: ${r.stderr.slice(0, 400)}`);
  assert.deepEqual(JSON.parse(r.stdout.trim()), {
    // Node-API 10 (Node >= 22.14, 24) can load better-sqlite3 13; Node 20 has Node-API 9.
    driver: Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20',
    count: ROUNDS * PER_ROUND,
    sum: (ROUNDS * PER_ROUND * (PER_ROUND + 1)) / 2,
  });
});
