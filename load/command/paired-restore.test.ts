// The snapshot, restore and ledger of each side of a paired mutation run (withSnapshots), on two
// reference servers, with the run itself stood in for by a function that toggles a gate on each side:
// each side gets its gates back and a ledger of its own, even when the run throws, and one side whose
// ledger cannot be written at the end does not cost the other its restore; a side whose ledger cannot be
// written at the start (what the run would owe it is not recorded) is not written to at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifest, ROOT } from '../../core/config.ts';
import { readLedgerFile, type Side } from '../../core/formats.ts';
import { startReference, type ReferenceServer } from '../../core/reference.ts';
import type { Records } from '../lib/runtime.ts';
import { sidePlan } from '../lib/sides.ts';
import { emptyWrites } from '../lib/writes.ts';
import { pairWrites, withSnapshots } from './side-writes.ts';

const MANIFEST = join(ROOT, 'fixtures/targets/reference.json');

async function enabled(s: ReferenceServer, gate: string): Promise<boolean> {
  const r = await fetch(`${s.baseUrl}/console/v1/gates/${gate}/rules`, {
    method: 'POST',
    headers: { 'SERVICE-API-KEY': s.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ rules: [] }),
  });
  return ((await r.json()) as { data: { isEnabled: boolean } }).data.isEnabled;
}
const disable = (s: ReferenceServer, gate: string) =>
  fetch(`${s.baseUrl}/console/v1/gates/${gate}/disable`, { method: 'PUT', headers: { 'SERVICE-API-KEY': s.apiKey } });

/** What a paired mutation run's records say it toggled: gate_cc_alpha on both sides. */
const toggledAlpha: Records = {
  endpoints: {},
  checks: {},
  counters: {},
  writes: {
    current: { ...emptyWrites(), gateToggles: { gate_cc_alpha: 1 } },
    candidate: { ...emptyWrites(), gateToggles: { gate_cc_alpha: 1 } },
  },
};

test('each side is restored and ledgered on its own: after a run that throws, and when the other side cannot be ledgered', { timeout: 60_000 }, async () => {
  const servers = [await startReference({ stderr: 'ignore' }), await startReference({ stderr: 'ignore' })];
  const dir = mkdtempSync(join(tmpdir(), 'paired-restore-'));
  try {
    const manifest = loadManifest(MANIFEST);
    const side = (s: ReferenceServer) => ({ baseUrl: s.baseUrl, apiKey: s.apiKey, manifestPath: MANIFEST, manifest, external: true });
    const o = {
      scripts: ['mutation'],
      current: side(servers[0]),
      candidate: side(servers[1]),
      profile: 'smoke',
      minEffect: 0.1,
      reportDir: join(dir, 'latency'),
      reportsRoot: dir,
      requestTimeoutMs: 5_000,
    };
    const plan = sidePlan(manifest, manifest);
    assert.equal(await enabled(servers[0], 'gate_cc_alpha'), true, 'the seed enables gate_cc_alpha');

    // A run that throws: nothing says what it toggled, so every gate the snapshot found is written back.
    const ledgers: Partial<Record<Side, string>> = {};
    await assert.rejects(
      withSnapshots(pairWrites(o, plan), ledgers, async () => {
        for (const s of servers) await disable(s, 'gate_cc_alpha');
        throw new Error('the run broke');
      }),
      /the run broke/,
    );
    for (const s of servers) assert.equal(await enabled(s, 'gate_cc_alpha'), true);
    assert.deepEqual(Object.keys(ledgers).sort(), ['candidate', 'current']);
    for (const s of ['current', 'candidate'] as const) {
      const l = readLedgerFile(join(o.reportDir, s));
      assert.ok(l && l.parts[0].by === 'candidate:latency' && l.target === o[s].baseUrl);
      assert.ok(l.parts[0].restores.some((r) => r.resource === 'gates/gate_cc_alpha' && r.ok));
    }

    // The current's ledger cannot be written before the run: what it would owe cannot be recorded, so nothing is written.
    const refused = { ...o, reportDir: join(dir, 'latency3') };
    mkdirSync(refused.reportDir, { recursive: true });
    writeFileSync(join(refused.reportDir, 'current'), 'not a folder');
    let ran = false;
    await assert.rejects(
      withSnapshots(pairWrites(refused, plan), {}, async () => {
        ran = true;
        return { records: toggledAlpha };
      }),
    );
    assert.equal(ran, false, 'no write before what is owed is recorded');

    // The current's ledger cannot be written after the run (a file where its folder goes): the candidate is still restored and ledgered.
    const blocked = { ...o, reportDir: join(dir, 'latency2') };
    const after: Partial<Record<Side, string>> = {};
    const result = await withSnapshots(pairWrites(blocked, plan), after, async () => {
      for (const s of servers) await disable(s, 'gate_cc_alpha');
      rmSync(join(blocked.reportDir, 'current'), { recursive: true, force: true });
      writeFileSync(join(blocked.reportDir, 'current'), 'not a folder');
      return { records: toggledAlpha };
    });
    assert.equal(result.records, toggledAlpha);
    assert.deepEqual(Object.keys(after), ['candidate']);
    assert.equal(await enabled(servers[1], 'gate_cc_alpha'), true, "the candidate's gate given back");
    const l = readLedgerFile(join(blocked.reportDir, 'candidate'));
    assert.ok(l?.parts[0].writes.some((w) => w.operation === 'disableGate' && w.resource === 'gates/gate_cc_alpha'));
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
