// Crash safety: kill -9 the reference server in the middle of mutation load on a database
// file, restart it on the same file: every write that was answered 2xx is there, and SQLite's
// integrity check passes. Prints writes acknowledged and lost (lost must be 0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../reference/store/sqlite.ts';
import { loadManifest } from '../../core/config.ts';
import { ROOT } from '../../core/config.ts';
import { callServer, startServer, type Server } from './server.ts';

const WORKERS = 8;
/** Writes acknowledged before the kill; the load itself is unbounded until then. */
const ACKS_BEFORE_KILL = 400;

interface Acked {
  metrics: string[];
  rules: Map<string, string[]>;
}

/** One worker: alternate metric creations and rule additions until the server stops answering. */
async function writer(server: Server, worker: number, gates: string[], acked: Acked, stop: { now: boolean }): Promise<void> {
  for (let i = 0; !stop.now; i++) {
    try {
      if (i % 2 === 0) {
        const name = `cc_crash_${worker}_${i}`;
        const r = await callServer(server, 'POST', '/console/v1/metrics', { name, type: 'sum' });
        if (r.status >= 200 && r.status < 300) acked.metrics.push(r.body.data.id);
        else assert.ok(r.status < 500, `create metric answered ${r.status}`);
      } else {
        const gate = gates[i % gates.length];
        const id = `rule_crash_${worker}_${i}`;
        const r = await callServer(server, 'POST', `/console/v1/gates/${gate}/rules`, { rules: [{ id, name: id, passPercentage: 10 }] });
        if (r.status >= 200 && r.status < 300) acked.rules.get(gate)!.push(id);
        else assert.ok(r.status < 500, `add rules answered ${r.status}`);
      }
    } catch (err) {
      // A request in flight when the server died has no answer: it was never acknowledged.
      if (stop.now) return;
      throw err;
    }
  }
}

test('crash: kill -9 under mutation load loses no acknowledged write, and the database passes integrity_check', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-crash-'));
  const db = join(dir, 'crash.db');
  const gates = loadManifest(join(ROOT, 'fixtures/targets/reference.json')).gates;
  const acked: Acked = { metrics: [], rules: new Map(gates.map((g) => [g, []])) };
  const first = await startServer({ db });
  const stop = { now: false };
  try {
    const workers = Array.from({ length: WORKERS }, (_, w) => writer(first, w, gates, acked, stop));
    // A worker that fails (a 5xx, a refused connection) ends the wait at once with its error.
    let failure: unknown;
    for (const w of workers)
      w.catch((err) => {
        failure ??= err;
      });
    const count = () => acked.metrics.length + [...acked.rules.values()].reduce((n, r) => n + r.length, 0);
    while (count() < ACKS_BEFORE_KILL && failure === undefined) await new Promise((r) => setTimeout(r, 5));
    if (failure !== undefined) throw failure;
    // The kill lands while every worker has a request in flight; from here on a failed request is
    // expected (the workers stop sending new ones, the ones in flight die with the server).
    stop.now = true;
    await first.kill9();
    await Promise.all(workers);
  } finally {
    stop.now = true;
    await first.kill9();
  }
  const acknowledged = acked.metrics.length + [...acked.rules.values()].reduce((n, r) => n + r.length, 0);

  // SQLite's own check, on the file exactly as the crash left it (opening it replays the WAL).
  const check = new Database(db);
  const integrity = check.pragma('integrity_check', { simple: true });
  check.close();
  assert.equal(integrity, 'ok');

  // Restarted on the same file, the server answers with everything it acknowledged.
  const second = await startServer({ db });
  let lost = 0;
  try {
    for (const id of acked.metrics) {
      const r = await callServer(second, 'POST', `/console/v1/metrics/${encodeURIComponent(id)}`, { dryRun: true });
      if (r.status !== 200) lost++;
    }
    for (const [gate, ids] of acked.rules) {
      // An empty add-rules returns the gate with all its rules (rules are appended, docs/development.md).
      const r = await callServer(second, 'POST', `/console/v1/gates/${gate}/rules`, { rules: [] });
      assert.equal(r.status, 200);
      const present = new Set((r.body.data.rules as { id: string }[]).map((x) => x.id));
      lost += ids.filter((id) => !present.has(id)).length;
    }
  } finally {
    await second.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`crash: ${acknowledged} writes acknowledged before kill -9, ${lost} lost; integrity_check ${integrity}`);
  assert.ok(acknowledged >= ACKS_BEFORE_KILL, `only ${acknowledged} writes acknowledged`);
  assert.equal(lost, 0, `${lost} acknowledged writes lost`);
});
