// The side-by-side latency with writes (`npm run candidate -- --latency --writes`,
// the load runner, load/command/run-plan.ts, given a pair) on real parts: two reference servers given as URL targets (so
// budgets, snapshots, restores and ledgers apply), the paging and mutation profiles on Artillery, every
// write sent to both sides with each side's own ids and names. The candidate's manifest names other
// gates (gate_seed_*, which the current's side also has, so an id sent untranslated would show), its
// experiments and triggers in reverse order, and another metric prefix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifest, ROOT } from '../core/config.ts';
import { readLedgerFile, type CandidateLatency, type Ledger, type LoadScript } from '../core/formats.ts';
import { startReference, type ReferenceServer } from '../core/reference.ts';
import { scan } from '../core/scan.ts';
import { pairedPlan } from '../load/command/plan.ts';
import { runPlan } from '../load/command/run-plan.ts';
import { latencyLines } from './report.ts';

const REFERENCE = JSON.parse(readFileSync(join(ROOT, 'fixtures/targets/reference.json'), 'utf8'));

/** A gate as an add of no rule answers it (the API has no gate read). */
async function gateOf(s: ReferenceServer, id: string): Promise<{ isEnabled: boolean; rules: { name: string }[] }> {
  const r = await fetch(`${s.baseUrl}/console/v1/gates/${id}/rules`, {
    method: 'POST',
    headers: { 'SERVICE-API-KEY': s.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ rules: [] }),
  });
  return ((await r.json()) as { data: { isEnabled: boolean; rules: { name: string }[] } }).data;
}

interface Outcome {
  latency: CandidateLatency;
  ledgers: { current: Ledger; candidate: Ledger };
  gates: { candidateAlpha: string[]; candidateSeed1: string[]; currentAlpha: string[]; candidateSeed2Enabled: boolean };
}

async function pairedWithWrites(candidate: { faults?: string[]; variants?: string[] }, scripts: LoadScript[]): Promise<Outcome> {
  const servers: ReferenceServer[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'candidate-latency-writes-'));
  try {
    // Network-like latency on both sides: loopback's fraction of a millisecond would be all HTTP stack.
    servers.push(await startReference({ latency: '10', stderr: 'ignore' }));
    servers.push(await startReference({ latency: '10', faults: candidate.faults, variants: candidate.variants, stderr: 'ignore' }));
    const [cur, cand] = servers;
    // The candidate's gate_seed_2 starts disabled: the run toggles it, the restore must disable it again.
    await fetch(`${cand.baseUrl}/console/v1/gates/gate_seed_2/disable`, { method: 'PUT', headers: { 'SERVICE-API-KEY': cand.apiKey } });
    const currentManifest = join(dir, 'current.json');
    const candidateManifest = join(dir, 'candidate.json');
    writeFileSync(currentManifest, JSON.stringify({ ...REFERENCE, budget: { metricsPerRun: 6, triggerPhasesPerRun: 2, rulesPerGatePerRun: 2 } }));
    writeFileSync(
      candidateManifest,
      JSON.stringify({
        gates: ['gate_seed_1', 'gate_seed_2', 'gate_seed_3', 'gate_seed_4'],
        experiments: [...REFERENCE.experiments].reverse(),
        triggers: [...REFERENCE.triggers].reverse(),
        metricPrefix: 'cd_',
        budget: { metricsPerRun: 3, triggerPhasesPerRun: 2, rulesPerGatePerRun: 2 },
      }),
    );
    const side = (s: ReferenceServer, manifestPath: string) => ({
      baseUrl: s.baseUrl,
      apiKey: s.apiKey,
      manifestPath,
      manifest: loadManifest(manifestPath),
      external: true,
    });
    const reportDir = join(dir, 'candidate', 'latency');
    const latency = (
      await runPlan(
        pairedPlan({
          scripts,
          current: side(cur, currentManifest),
          candidate: side(cand, candidateManifest),
          profile: 'smoke',
          seconds: 8,
          minEffect: 0.1,
          reportDir,
          reportsRoot: dir,
          requestTimeoutMs: 15_000,
        }),
      )
    ).latency!;
    // No form of either key (raw, encoded, near misses) in anything the run wrote: reports, ledgers.
    for (const s of servers) assert.deepEqual(scan([dir], s.apiKey).found, []);
    const ledger = (side: string) => {
      const l = readLedgerFile(join(reportDir, side));
      assert.ok(l, `no ledger of the ${side}: ${latencyLines(latency).join('\n')}`);
      return l;
    };
    const names = async (s: ReferenceServer, id: string) => (await gateOf(s, id)).rules.map((r) => r.name);
    return {
      latency,
      ledgers: { current: ledger('current'), candidate: ledger('candidate') },
      gates: {
        candidateAlpha: await names(cand, 'gate_cc_alpha'),
        candidateSeed1: await names(cand, 'gate_seed_1'),
        currentAlpha: await names(cur, 'gate_cc_alpha'),
        candidateSeed2Enabled: (await gateOf(cand, 'gate_seed_2')).isEnabled,
      },
    };
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const resources = (l: Ledger) => [...new Set(l.parts.flatMap((p) => p.writes.map((w) => w.resource)))];
const created = (l: Ledger) => l.parts.flatMap((p) => p.writes.filter((w) => w.operation === 'createMetric')).reduce((n, w) => n + w.count, 0);
const skipped = (l: Ledger) => l.parts.flatMap((p) => p.writes.filter((w) => w.operation === 'skipTriggerPhase')).reduce((n, w) => n + w.count, 0);

/**
 * A paired run that was delivered as asked: on a machine busy with other tests the generator can fall
 * behind the schedule, and the run is then rightly not carried out (exit 3), which says nothing of what a
 * delivered run judges; such a run is made once more, and its outcome is the test's.
 */
async function deliveredPair(candidate: { faults?: string[]; variants?: string[] }, scripts: LoadScript[]): Promise<Outcome> {
  const first = await pairedWithWrites(candidate, scripts);
  const undelivered =
    first.latency.verdict === 'not carried out' && /fell behind the asked schedule|load fell short/.test(latencyLines(first.latency).join('\n'));
  return undelivered ? pairedWithWrites(candidate, scripts) : first;
}

test('writes paired with each side its own ids: a candidate slower on createMetric is found there only; both sides ledgered and restored', {
  timeout: 180_000,
}, async () => {
  // Four times slower, not twice: createMetric's pairs are few, and with three test files loading both
  // cores a 2x handler once measured 1.77x end to end at p 0.0024, short of the corrected 0.0011.
  const o = await deliveredPair({ faults: ['metric-id-shape-wrong', 'slow:createMetric:300'] }, ['paging', 'mutation']);
  const l = o.latency;
  const screen = latencyLines(l).join('\n');
  assert.deepEqual(l.scripts, ['paging', 'mutation']);
  assert.equal(l.verdict, 'regression', screen);
  assert.deepEqual(
    l.endpoints.filter((e) => e.regression).map((e) => e.endpoint),
    ['createMetric'],
    screen,
  );
  assert.equal(l.runs?.length, 2);
  assert.ok(
    l.runs?.every((r) => r.calibration !== null),
    screen,
  );
  // Bonferroni over every operation of both runs.
  const judged = l.endpoints.filter((e) => e.n.current > 0);
  for (const e of judged) assert.ok(Math.abs(e.alpha - 0.01 / judged.length) < 1e-12, `${e.endpoint}: alpha ${e.alpha}`);
  // The candidate's metrics are updated by the ids it answered (its bare names, under this fault), not the current's.
  const update = l.endpoints.find((e) => e.endpoint === 'updateMetric');
  assert.ok(update && update.n.current > 0, screen);
  assert.equal(update.candidate?.unexpected, 0, screen);
  // Each side's writes are on its own resources only, within its own budget (the smaller of the two).
  for (const r of resources(o.ledgers.candidate))
    assert.match(r, /^(gates\/gate_seed_\d|metrics\/cd_\*|experiments\/exp_cc_overrides_\d|release_pipeline_triggers\/trg_cc_\d)$/);
  for (const r of resources(o.ledgers.current))
    assert.match(r, /^(gates\/gate_cc_\w+|metrics\/cc_\*|experiments\/exp_cc_overrides_\d|release_pipeline_triggers\/trg_cc_\d)$/);
  for (const side of ['current', 'candidate'] as const) {
    assert.ok(created(o.ledgers[side]) > 0 && created(o.ledgers[side]) <= 3, `${side} created ${created(o.ledgers[side])}`);
    assert.ok(skipped(o.ledgers[side]) <= 2, `${side} skipped ${skipped(o.ledgers[side])}`);
    const restores = o.ledgers[side].parts.flatMap((p) => p.restores);
    assert.ok(restores.length > 0 && restores.every((r) => r.ok), `${side}: ${JSON.stringify(restores)}`);
    assert.ok(o.ledgers[side].parts.every((p) => p.by === 'candidate:latency'));
  }
  // The current's rules went to the current's gates, the candidate's copies (its prefix) to the candidate's.
  assert.deepEqual(o.gates.candidateAlpha, []);
  assert.ok(o.gates.candidateSeed1.length > 0 && o.gates.candidateSeed1.every((n) => n.startsWith('cd_')), o.gates.candidateSeed1.join(', '));
  assert.ok(o.gates.currentAlpha.length > 0 && o.gates.currentAlpha.every((n) => n.startsWith('cc_')), o.gates.currentAlpha.join(', '));
  assert.equal(o.gates.candidateSeed2Enabled, false, 'the restore gave back the disabled state the candidate started with');
});

test('a candidate refusing some rule adds: that operation is not judged a regression, and the run passes', { timeout: 180_000 }, async () => {
  // Seeded gates hold no rule: with a cap of 1 the second rule added to each gate is refused (400).
  const o = await deliveredPair({ variants: ['rules-cap:1'] }, ['mutation']);
  const l = o.latency;
  const screen = latencyLines(l).join('\n');
  assert.equal(l.verdict, 'pass', screen);
  assert.deepEqual(l.scripts, ['mutation']);
  const add = l.endpoints.find((e) => e.endpoint === 'addGateRules');
  assert.ok(add, screen);
  assert.ok((add.candidate?.unexpected ?? 0) > 0, screen);
  assert.equal(add.regression, false);
  // The smoke profile allows no unexpected answer: the operation is left undecided, saying why.
  assert.equal(add.decidable, false, screen);
  assert.match(add.reason, /the candidate answered \d+ of \d+ unexpectedly/);
  for (const side of ['current', 'candidate'] as const) assert.ok(o.ledgers[side].parts.flatMap((p) => p.restores).every((r) => r.ok));
});
