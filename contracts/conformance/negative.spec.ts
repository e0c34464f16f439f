// negative_data_rejection: generated invalid bodies for every write operation get a 4xx, never a 2xx
// or a 5xx (inferred). Each body breaks the contract's request schema in one place, and the contract
// itself confirms it is invalid before it is sent.
import { checks, expect, test } from '../support/target.ts';
import { expectClientError } from '../support/checks.ts';
import { requestErrors } from '../support/validators.ts';

const WRONG: unknown[] = [null, 17, 'text', true, [], {}];

/** Variants of `valid` with one property replaced by a value of another type, or one required property removed. */
function mutations(valid: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const key of Object.keys(valid)) {
    for (const w of WRONG) out.push({ ...valid, [key]: w });
    const { [key]: _, ...rest } = valid;
    out.push(rest);
  }
  out.push({ ...valid, ccUnknownField: 1 });
  return out;
}

test('negative data: every write operation rejects bodies that break its schema with a 4xx [inferred]', checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing'), async ({ t }) => {
  const m = t.manifest;
  const ops: [string, string, string, Record<string, unknown>][] = [
    ['createMetric', 'POST', '/console/v1/metrics', { name: `${m.metricPrefix}${t.runId}_neg`, type: 'sum', dryRun: true }],
    ['updateMetric', 'POST', `/console/v1/metrics/${m.metricPrefix}${t.runId}_neg::sum`, { description: 'x', dryRun: true }],
    ['addGateRules', 'POST', `/console/v1/gates/${m.gates[0]}/rules`, { rules: [{ name: 'neg', passPercentage: 1 }] }],
    ['skipTriggerPhase', 'PUT', `/console/v1/release_pipeline_triggers/${m.triggers[0].id}/skip`, { phaseID: 'cc_not_a_phase' }],
    ['unpauseTrigger', 'PUT', `/console/v1/release_pipeline_triggers/${m.triggers[0].id}/unpause`, { phaseID: 'cc_not_a_phase' }],
    ['patchExperimentOverrides', 'PATCH', `/console/v1/experiments/${m.experiments[0]}/overrides`, { overrides: [{ type: 'gate', id: 'g', groupID: 'x' }], userIDOverrides: [] }],
  ];
  let sent = 0;
  for (const [op, method, path, valid] of ops) {
    for (const body of mutations(valid)) {
      // Only bodies the contract calls invalid: optional fields removed stay valid and are skipped.
      if (requestErrors(op, body).length === 0) continue;
      expectClientError(await t.call(method, path, { data: body }), `${op} with ${JSON.stringify(body).slice(0, 100)}`);
      sent++;
    }
    expectClientError(await t.call(method, path, { rawBody: '{"truncated": ' }), `${op} with malformed JSON`);
    sent++;
  }
  expect(sent, 'invalid bodies sent').toBeGreaterThan(50);
});
