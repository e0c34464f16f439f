// The request bodies of a paired mutation run (writePairedBodies: fixtures/generate.ts run for the
// current's part of the plan) and their candidate copies (load/lib/sides.ts, as the workers make them):
// every copy is a body the contract accepts, and none names an id of the current's manifest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requestErrors } from '../../contracts/index.ts';
import { loadManifest, ROOT, type Manifest } from '../../core/config.ts';
import { candidateBody, sidePlan } from '../lib/sides.ts';
import { writePairedBodies } from './prepare.ts';

const BODIES: Record<string, string> = {
  creates: 'createMetric',
  updates: 'updateMetric',
  rules: 'addGateRules',
  overrides: 'patchExperimentOverrides',
  overrides1000: 'patchExperimentOverrides',
};

test("every body of a paired mutation run, copied for the candidate, is valid and names none of the current's ids", () => {
  const current = loadManifest(join(ROOT, 'fixtures/targets/reference.json'));
  const candidate: Manifest = {
    ...current,
    gates: ['gate_seed_1', 'gate_seed_2', 'gate_seed_3'],
    experiments: [...current.experiments].reverse(),
    overridesOwned: [...current.overridesOwned].reverse(),
    triggers: [...current.triggers].reverse(),
    metricPrefix: 'cd_',
    metricOwner: { email: 'bo@example.com', ownerID: 'u_bo' },
  };
  const withOwner: Manifest = { ...current, metricOwner: { email: 'ada@example.com', ownerID: 'u_ada' }, budget: { metricsPerRun: 5 } };
  const dir = mkdtempSync(join(tmpdir(), 'paired-bodies-'));
  try {
    const plan = sidePlan(withOwner, candidate);
    writePairedBodies({
      seed: 3,
      runId: 'run7',
      dataDir: dir,
      plan,
      current: { manifest: withOwner, external: true },
      candidate: { manifest: { ...candidate, budget: { metricsPerRun: 2 } }, external: true },
    });
    const run = JSON.parse(readFileSync(join(dir, 'mutation.json'), 'utf8'));
    assert.deepEqual(run.pair, plan, 'the plan travels to the workers as it is');
    assert.equal(run.budget.metricsPerRun, 2, 'the smaller budget');
    assert.deepEqual(run.manifest.gates, ['gate_cc_alpha', 'gate_cc_beta', 'gate_cc_gamma'], "the current's gates beyond the candidate's are left out");
    const currentIds = [...current.gates, ...current.experiments, ...current.triggers.flatMap((t) => [t.id, t.releasePipelineID, ...t.phaseIDs])].filter(
      (id) => !JSON.stringify(candidate).includes(`"${id}"`),
    );
    let seen = 0;
    for (const [key, operation] of Object.entries(BODIES))
      for (const [i, body] of (run[key] as unknown[]).entries()) {
        const copy = candidateBody(body, plan, 'run7');
        assert.deepEqual(requestErrors(operation, copy), [], `${key}[${i}]`);
        const text = JSON.stringify(copy);
        for (const id of currentIds) assert.ok(!text.includes(`"${id}"`), `${key}[${i}] names the current's ${id}`);
        assert.ok(!text.includes('"cc_run7') && !text.includes('u_ada'), `${key}[${i}] keeps the current's prefix or owner`);
        seen++;
      }
    assert.ok(seen > 500, `${seen} bodies`);
    assert.ok(
      (run.updates as { owner?: unknown }[]).some((u) => u.owner !== undefined),
      "some updates name the current's owner (so that its swap is tested)",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
