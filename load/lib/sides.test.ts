// The pairing of two manifests for a paired mutation run, on hand-made manifests and bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Manifest } from '../../core/config.ts';
import { candidateBody, candidateIds, pairedBudget, sidePlan } from './sides.ts';

const current: Manifest = {
  gates: ['g_a', 'g_b', 'g_c'],
  experiments: ['e_1', 'e_2', 'e_3'],
  overridesOwned: ['e_1', 'e_2'],
  triggers: [
    { id: 't_1', releasePipelineID: 'rp_1', phaseIDs: ['p_1_1', 'p_1_2', 'p_1_3'] },
    { id: 't_2', releasePipelineID: 'rp_2', phaseIDs: ['p_2_1'] },
  ],
  metricPrefix: 'cc_',
  metricOwner: { email: 'ada@example.com', ownerID: 'u_ada' },
};
const candidate: Manifest = {
  gates: ['h_a', 'h_b'],
  experiments: ['f_1', 'f_2', 'f_3'],
  overridesOwned: ['f_1', 'f_3'],
  triggers: [{ id: 'u_1', releasePipelineID: 'sp_1', phaseIDs: ['q_1_1', 'q_1_2'] }],
  metricPrefix: 'cd_',
  overrideGroupIDs: ['on', 'off', 'third'],
};

test('sidePlan pairs by position and leaves out, with a note each, what only one side has or gives', () => {
  const p = sidePlan(current, candidate);
  assert.deepEqual(p.current.gates, ['g_a', 'g_b']);
  assert.deepEqual(p.candidate.gates, ['h_a', 'h_b']);
  // e_2/f_2: owned by the current only; e_3/f_3: by the candidate only.
  assert.deepEqual(p.current.experiments, ['e_1']);
  assert.deepEqual(p.candidate.experiments, ['f_1']);
  assert.deepEqual(p.current.triggers, [{ id: 't_1', releasePipelineID: 'rp_1', phaseIDs: ['p_1_1', 'p_1_2'] }]);
  assert.deepEqual(p.candidate.triggers, [{ id: 'u_1', releasePipelineID: 'sp_1', phaseIDs: ['q_1_1', 'q_1_2'] }]);
  assert.deepEqual(p.current.overrideGroupIDs, ['control', 'test']);
  assert.deepEqual(p.candidate.overrideGroupIDs, ['on', 'off']);
  assert.equal(p.current.metricPrefix, 'cc_');
  assert.equal(p.candidate.metricPrefix, 'cd_');
  for (const id of ['g_c', 'e_2', 'e_3', 't_2'])
    assert.ok(
      p.notes.some((n) => n.includes(id)),
      `no note names ${id}: ${p.notes.join(' | ')}`,
    );
  assert.ok(p.notes.some((n) => n.includes('first 2 phases')));
  assert.equal(candidateIds(p).get('p_1_2'), 'q_1_2');
  assert.equal(candidateIds(p).get('rp_1'), 'sp_1');
  assert.equal(candidateIds(p).get('test'), 'off');
});

test('pairedBudget: the smaller of each kind; a side started for the run (null) bounds nothing', () => {
  const a = { triggerPhasesPerRun: 2, metricsPerRun: 6, rulesPerGatePerRun: 1 };
  const b = { triggerPhasesPerRun: 0, metricsPerRun: 3, rulesPerGatePerRun: 5 };
  assert.deepEqual(pairedBudget(a, b), { triggerPhasesPerRun: 0, metricsPerRun: 3, rulesPerGatePerRun: 1 });
  assert.deepEqual(pairedBudget(a, null), a);
  assert.deepEqual(pairedBudget(null, b), b);
  assert.equal(pairedBudget(null, null), null);
});

test("candidateBody: the candidate's ids, its prefix on what the run names, its owner; nothing else touched", () => {
  const p = sidePlan(current, candidate);
  const body = {
    name: 'cc_run1_rule_x',
    rules: [{ name: 'cc_run1_rule_y', conditions: [{ type: 'public', targetValue: ['g_a'] }] }],
    overrides: [
      { type: 'gate', id: 'g_b', groupID: 'control' },
      { type: 'gate', id: 'g_c', groupID: 'test' },
    ],
    phaseID: 'p_1_1',
    owner: { email: 'ada@example.com', ownerID: 'u_ada' },
    description: 'cc_ is a prefix, but not of this run: cc_other',
    n: 3,
    on: true,
  };
  const out = candidateBody(body, p, 'run1');
  assert.deepEqual(out, {
    name: 'cd_run1_rule_x',
    rules: [{ name: 'cd_run1_rule_y', conditions: [{ type: 'public', targetValue: ['h_a'] }] }],
    // g_c is not paired: it stays (the plan's bodies are written for the paired gates only).
    overrides: [
      { type: 'gate', id: 'h_b', groupID: 'on' },
      { type: 'gate', id: 'g_c', groupID: 'off' },
    ],
    phaseID: 'q_1_1',
    // The candidate's manifest names no owner: none is sent there.
    description: 'cc_ is a prefix, but not of this run: cc_other',
    n: 3,
    on: true,
  });
  assert.equal(body.name, 'cc_run1_rule_x', 'the current body is left as it was');
  const withOwner = sidePlan(current, { ...candidate, metricOwner: { email: 'bo@example.com', ownerID: 'u_bo' } });
  assert.deepEqual(candidateBody({ owner: { email: 'ada@example.com', ownerID: 'u_ada' } }, withOwner, 'run1'), {
    owner: { email: 'bo@example.com', ownerID: 'u_bo' },
  });
  // An owner that is not the current's manifest owner is not the manifest's to swap.
  assert.deepEqual(candidateBody({ owner: { email: 'x@example.com', ownerID: 'u_x' } }, withOwner, 'run1'), {
    owner: { email: 'x@example.com', ownerID: 'u_x' },
  });
});
