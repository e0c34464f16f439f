// Nights against one long-lived target, through the real commands and a reference server on a database
// file: a run records every write in reports/ledger.json and gives back the gates' enabled state and the
// experiments' overrides; a read-only run changes nothing; a manifest that ran out of trigger phases is
// INCOMPLETE (exit 3) in conformance, junit.xml, verify and the page, never PASS; a waiver makes it pass,
// listed as waived.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import type { ConformanceReport, Ledger } from '../core/formats.ts';
import { randomApiKey, startReference, type ReferenceServer } from '../core/reference.ts';
import Database from '../core/sqlite.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

const REFERENCE_MANIFEST = JSON.parse(readFileSync(join(ROOT, 'fixtures/targets/reference.json'), 'utf8'));

function folder(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-nightly-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function longLived(t: TestContext, dir: string): Promise<{ server: ReferenceServer; db: string }> {
  const db = join(dir, 'staging.sqlite');
  const server = await startReference({ apiKey: randomApiKey(), db });
  t.after(() => server.stop());
  return { server, db };
}

function run(script: string, args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  return spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...clean, ...env },
  });
}

/** Every table of the reference's database, hashed row by row: equal when nothing was written. */
function fingerprint(db: string): Record<string, string> {
  const d = new Database(db, { readonly: true });
  try {
    const tables = (d.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    return Object.fromEntries(
      tables.map((name) => [
        name,
        createHash('sha256')
          .update(JSON.stringify(d.prepare(`SELECT * FROM ${name} ORDER BY 1`).all()))
          .digest('hex'),
      ]),
    );
  } finally {
    d.close();
  }
}

function gateState(db: string): Record<string, { enabled: boolean; rules: number }> {
  const d = new Database(db, { readonly: true });
  try {
    const rows = d.prepare("SELECT id, doc FROM gates WHERE id LIKE 'gate_cc_%'").all() as { id: string; doc: string }[];
    return Object.fromEntries(rows.map((r) => [r.id, { enabled: JSON.parse(r.doc).isEnabled, rules: JSON.parse(r.doc).rules.length }]));
  } finally {
    d.close();
  }
}

function overrides(db: string): Record<string, number> {
  const d = new Database(db, { readonly: true });
  try {
    const rows = d.prepare('SELECT experiment_id AS id, doc FROM overrides').all() as { id: string; doc: string }[];
    return Object.fromEntries(rows.map((r) => [r.id, JSON.parse(r.doc).overrides.length + JSON.parse(r.doc).userIDOverrides.length]));
  } finally {
    d.close();
  }
}

const metricCount = (db: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('SELECT count(*) AS n FROM metrics').get() as { n: number }).n;
  } finally {
    d.close();
  }
};

test("a night on a long-lived target: every write in the ledger, enabled states given back, owners' overrides never written; then read-only changes nothing", async (t) => {
  const dir = folder(t);
  const { server, db } = await longLived(t, dir);
  const env = { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: join(dir, 'reports') };
  const key = { 'SERVICE-API-KEY': server.apiKey };

  // Overrides their owners set, on experiments a manifest names by id only: the suite may not write them
  // (the API has no read of overrides, and this target replaces them on a patch), so they stay, and the
  // overrides checks are left unchecked with the fix (INCOMPLETE, exit 3).
  const reference = JSON.parse(readFileSync(join(ROOT, 'fixtures/targets/reference.json'), 'utf8'));
  const ids: string[] = reference.experiments.map((e: string | { id: string }) => (typeof e === 'string' ? e : e.id));
  const plain = join(dir, 'plain.json');
  writeFileSync(plain, JSON.stringify({ ...reference, experiments: ids }));
  const owners = {
    overrides: [{ type: 'gate', id: 'gate_owner', groupID: 'grp_0_control' }],
    userIDOverrides: [{ groupID: 'grp_0_test', ids: ['owner_user'] }],
  };
  for (const id of ids)
    await fetch(`${server.baseUrl}/console/v1/experiments/${id}/overrides`, {
      method: 'PATCH',
      headers: { ...key, 'Content-Type': 'application/json' },
      body: JSON.stringify(owners),
    });
  const notGiven = run('contracts/conformance.ts', ['--grep', 'overrides|envelope|auth'], { ...env, CONSOLE_TARGET_MANIFEST: plain });
  assert.equal(notGiven.status, 3, notGiven.stderr.slice(-2000));
  assert.match(notGiven.stderr, /INCOMPLETE: \d+ stated clauses unchecked: experiment \S+: the manifest does not give its overrides to the suite/);
  for (const id of ids) assert.equal(overrides(db)[id], 2, `${id}: the owners' overrides kept`);

  // A state of the target's own before the run: one gate the other way round.
  await fetch(`${server.baseUrl}/console/v1/gates/gate_cc_alpha/disable`, { method: 'PUT', headers: key });
  await fetch(`${server.baseUrl}/console/v1/gates/gate_cc_delta/enable`, { method: 'PUT', headers: key });
  const before = gateState(db);
  const metricsBefore = metricCount(db);

  const r = run('contracts/conformance.ts', [], env);
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  const after = gateState(db);
  for (const [id, g] of Object.entries(before)) assert.equal(after[id].enabled, g.enabled, `${id} enabled state given back`);

  const ledger = JSON.parse(readFileSync(join(dir, 'reports', 'ledger.json'), 'utf8')) as Ledger;
  assert.deepEqual(
    ledger.parts.map((p) => p.by),
    ['conformance:snapshot', 'conformance', 'conformance:restore'],
  );
  const writes = ledger.parts.flatMap((p) => p.writes);
  // The reference manifest gives its experiments' overrides to the suite: those writes are not given back
  // (their state before the first write was never known), every other write the API can undo is.
  assert.deepEqual(
    [...new Set(writes.filter((w) => w.undo === 'not restored').map((w) => w.operation))],
    ['patchExperimentOverrides'],
    'only the overrides given to the suite are not restored',
  );
  // What the ledger says was added is what the database gained.
  assert.equal(ledger.totals.metricsCreated, metricCount(db) - metricsBefore, 'metrics created, as the ledger counts them');
  for (const [id, g] of Object.entries(after)) assert.equal(ledger.totals.rulesAdded[id] ?? 0, g.rules - before[id].rules, `rules added to ${id}`);
  const restores = ledger.parts[2].restores;
  assert.ok(restores.some((x) => x.field === 'isEnabled') && restores.filter((x) => x.field === 'isEnabled').every((x) => x.ok), JSON.stringify(restores));
  assert.ok(
    restores.filter((x) => x.field === 'overrides').every((x) => !x.ok && /not known/.test(x.detail ?? '')),
    'overrides are never said restored',
  );

  const unchanged = fingerprint(db);
  const ro = run('scripts/verify.ts', ['--read-only', '--skip-load'], env);
  assert.equal(ro.status, 0, ro.stdout.slice(-3000) + ro.stderr.slice(-1000));
  assert.deepEqual(fingerprint(db), unchanged, 'a read-only run leaves every table as it was');
  const summary = (JSON.parse(readFileSync(join(dir, 'reports', 'conformance.json'), 'utf8')) as ConformanceReport).summary;
  assert.equal(summary.readOnly, true);
  assert.ok(summary.coverage!.checked > 50 && summary.coverage!.excluded > 0, JSON.stringify(summary.coverage));
  assert.equal(summary.coverage!.uncovered, 0);
  assert.match(ro.stdout, /read-only: \d+ need a write/);
  const roLedger = JSON.parse(readFileSync(join(dir, 'reports', 'ledger.json'), 'utf8')) as Ledger;
  assert.equal(roLedger.totals.writes, 0);
});

test('a manifest whose triggers ran out: INCOMPLETE, exit 3, in conformance, junit.xml, verify and the page; waived, it passes as waived', async (t) => {
  const dir = folder(t);
  const { server } = await longLived(t, dir);
  const manifest = join(dir, 'one-phase.json');
  // One trigger with one phase: the first run skips it, and nothing is left for the next.
  writeFileSync(
    manifest,
    JSON.stringify({ ...REFERENCE_MANIFEST, triggers: [{ ...REFERENCE_MANIFEST.triggers[0], phaseIDs: [REFERENCE_MANIFEST.triggers[0].phaseIDs[0]] }] }),
  );
  const env = {
    CONSOLE_BASE_URL: server.baseUrl,
    CONSOLE_API_KEY: server.apiKey,
    CONSOLE_TARGET_MANIFEST: manifest,
    CONSOLE_REPORTS_DIR: join(dir, 'reports'),
  };
  run('contracts/conformance.ts', ['--grep', 'triggers:'], env);

  const r = run('scripts/verify.ts', ['--skip-load', '--grep', 'triggers:'], env);
  assert.equal(r.status, 3, r.stdout.slice(-3000));
  assert.match(r.stdout, /INCOMPLETE \d+ stated clauses? unchecked: no manifest trigger had a phase left to skip: add triggers with phases to the manifest/);
  assert.match(r.stdout, /verdict {3}INCOMPLETE \(exit 3\)/);
  const report = JSON.parse(readFileSync(join(dir, 'reports', 'conformance.json'), 'utf8')) as ConformanceReport;
  assert.equal(report.summary.verdict, 'incomplete');
  assert.ok(report.summary.incomplete!.some((g) => g.clauses.includes('triggers.skip.status200')));
  const junit = readFileSync(join(dir, 'reports', 'junit.xml'), 'utf8');
  assert.match(junit, /<error type="incomplete" message="\d+ stated clauses? unchecked: no manifest trigger had a phase left to skip/);
  const page = readFileSync(join(dir, 'reports', 'index.html'), 'utf8');
  assert.match(page, /<span id="verdict" class="verdict v-INCOMPLETE">INCOMPLETE<\/span>/);
  assert.doesNotMatch(page, /class="verdict v-PASS"/);
  assert.match(page, /id="headline"[^>]*>[^<]*INCOMPLETE/);

  writeFileSync(
    manifest,
    JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), waive: [{ clauses: 'trigger*', reason: 'the staging pipeline is finished' }] }),
  );
  const waived = run('contracts/conformance.ts', ['--grep', 'triggers:'], env);
  assert.equal(waived.status, 0, waived.stdout.slice(-2000));
  assert.match(waived.stdout, /WAIVED \d+ clauses \(trigger\*\): the staging pipeline is finished/);
  const w = JSON.parse(readFileSync(join(dir, 'reports', 'conformance.json'), 'utf8')) as ConformanceReport;
  assert.equal(w.clauses.find((c) => c.id === 'triggers.skip.status200')?.status, 'waived');
});

test('a gate that is full (a target that caps rules) is a resource problem: INCOMPLETE naming the gate, never a contract failure', async (t) => {
  const dir = folder(t);
  const db = join(dir, 'staging.sqlite');
  const server = await startReference({ apiKey: randomApiKey(), db, variants: ['rules-cap:24'] });
  t.after(() => server.stop());
  // The nights so far: gate_cc_alpha holds 22 rules, two short of the cap.
  const held = gateState(db).gate_cc_alpha.rules;
  const rules = Array.from({ length: 22 - held }, (_, i) => ({ name: `earlier night ${i}`, passPercentage: 1, conditions: [] }));
  const filled = await fetch(`${server.baseUrl}/console/v1/gates/gate_cc_alpha/rules`, {
    method: 'POST',
    headers: { 'SERVICE-API-KEY': server.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ rules }),
  });
  assert.equal(filled.status, 200);
  const env = { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: join(dir, 'reports') };
  const r = run('contracts/conformance.ts', ['--grep', 'gates:'], env);
  assert.equal(r.status, 3, r.stdout.slice(-3000));
  assert.match(
    r.stdout,
    /INCOMPLETE \d+ stated clauses? unchecked \([^)]*\): gate gate_cc_alpha refuses new rules \(HTTP 400\) and held 22 when the run began: it may be full/,
  );
  const report = JSON.parse(readFileSync(join(dir, 'reports', 'conformance.json'), 'utf8')) as ConformanceReport;
  assert.equal(report.summary.verdict, 'incomplete');
  assert.equal(report.summary.clauses.fail, 0, 'no clause fails for a full gate');
});

test('a manifest gate the target does not know is a manifest to fix (exit 3, one line), not a contract failure', (t) => {
  const dir = folder(t);
  const manifest = join(dir, 'typo.json');
  writeFileSync(manifest, JSON.stringify({ ...REFERENCE_MANIFEST, gates: [...REFERENCE_MANIFEST.gates.slice(0, 3), 'gate_cc_detla'] }));
  const r = run('contracts/conformance.ts', [], { CONSOLE_TARGET_MANIFEST: manifest, CONSOLE_REPORTS_DIR: join(dir, 'reports') });
  assert.equal(r.status, 3, r.stdout.slice(-2000));
  assert.match(r.stderr, /manifest gate gate_cc_detla is not known to the target \(HTTP 404, where other gates answered\): fix or replace it in the manifest/);
});
