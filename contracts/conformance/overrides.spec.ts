// Spec 2.9, 4.11 and 8: partially update experiment overrides, at most 1000 items. Manifest experiments only.
import { checks, expect, observe, test } from '../support/target.ts';
import { expectClientError, expectNotAccepted, expectSuccess } from '../support/checks.ts';

const overrides = (n: number, gate: string) => Array.from({ length: n }, (_, i) => ({ type: 'gate', id: gate, groupID: `group_${i % 4}` }));
/** The resulting arrays, from either shape the spec describes (4.11: envelope, or top-level arrays). */
const resulting = (body: any) => (body && 'overrides' in body ? body : body?.data ?? {});

test.describe('overrides', () => {
  test('overrides: 1000 overrides are accepted and returned [spec 4.11, 8]', checks('stated', 'overrides.patch.overrides.maxItems', 'overrides.patch.response'), async ({ t }) => {
    const path = `/console/v1/experiments/${t.manifest.experiments[0]}/overrides`;
    const body = expectSuccess('patchExperimentOverrides', await t.call('PATCH', path, { data: { overrides: overrides(1000, t.manifest.gates[0]), userIDOverrides: [{ groupID: 'group_0', ids: [`cc_user_${t.runId}`] }] } }));
    const r = resulting(body);
    expect(Array.isArray(r.overrides) ? r.overrides.length : -1, 'the resulting overrides hold the 1000 sent').toBeGreaterThanOrEqual(1000);
  });

  test('overrides: 1001 overrides are not accepted [spec 8]', checks('stated', 'overrides.patch.overrides.maxItems'), async ({ t }) => {
    const path = `/console/v1/experiments/${t.manifest.experiments[1 % t.manifest.experiments.length]}/overrides`;
    expectNotAccepted(await t.call('PATCH', path, { data: { overrides: overrides(1001, t.manifest.gates[0]), userIDOverrides: [] } }), '1001 overrides');
  });

  test('overrides: overrides and userIDOverrides are each required [spec 4.11]', checks('stated', 'overrides.patch.overrides.required', 'overrides.patch.userIDOverrides.required'), async ({ t }) => {
    const path = `/console/v1/experiments/${t.manifest.experiments[1 % t.manifest.experiments.length]}/overrides`;
    expectNotAccepted(await t.call('PATCH', path, { data: { userIDOverrides: [] } }), 'without overrides');
    expectNotAccepted(await t.call('PATCH', path, { data: { overrides: [] } }), 'without userIDOverrides');
  });

  test('overrides: the response shows the overrides sent; merge or replace is observed [spec 4.11]', checks('stated', 'overrides.patch.persisted', 'overrides.patch.merge'), async ({ t }, info) => {
    const path = `/console/v1/experiments/${t.manifest.experiments[2 % t.manifest.experiments.length]}/overrides`;
    const first = { type: 'gate', id: t.manifest.gates[0], groupID: `cc_first_${t.runId}` };
    const second = { type: 'gate', id: t.manifest.gates[0], groupID: `cc_second_${t.runId}` };
    const a = resulting(expectSuccess('patchExperimentOverrides', await t.call('PATCH', path, { data: { overrides: [first], userIDOverrides: [] } })));
    expect(a.overrides.some((o: any) => o.groupID === first.groupID), 'the resulting overrides include the one sent').toBe(true);
    const b = resulting(expectSuccess('patchExperimentOverrides', await t.call('PATCH', path, { data: { overrides: [second], userIDOverrides: [] } })));
    expect(b.overrides.some((o: any) => o.groupID === second.groupID), 'the resulting overrides include the one sent').toBe(true);
    observe(info, 'overrides.patch.merge', b.overrides.some((o: any) => o.groupID === first.groupID) ? 'merged' : 'replaced');
  });

  test('overrides: bad bodies and an unknown experiment get a 4xx [inferred]', checks('inferred', 'errors.badInput.4xx', 'errors.unknownId.404'), async ({ t }) => {
    const path = `/console/v1/experiments/${t.manifest.experiments[1 % t.manifest.experiments.length]}/overrides`;
    expectClientError(await t.call('PATCH', path, { data: { overrides: overrides(1001, 'g'), userIDOverrides: [] } }), '1001 overrides');
    expectClientError(await t.call('PATCH', path, { data: { overrides: 'x', userIDOverrides: [] } }), 'overrides not an array');
    expectClientError(await t.call('PATCH', path, { data: { overrides: [], userIDOverrides: [{ ids: 'u1' }] } }), 'ids not an array');
    expectClientError(await t.call('PATCH', `/console/v1/experiments/cc_missing_${t.runId}/overrides`, { data: { overrides: [], userIDOverrides: [] } }), 'unknown experiment');
  });
});
