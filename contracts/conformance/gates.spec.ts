// Spec 2.2, 2.3, 3, 4.1 to 4.3: add rules to a gate, enable and disable it. Only manifest gates are touched.
import { checks, expect, observe, test } from '../support/target.ts';
import { expectClientError, expectMessage, expectSuccess } from '../support/checks.ts';
import { clausesUnder } from '../support/clauses.ts';

const gate = (gates: string[], i: number) => gates[i % gates.length];
const condition = { type: 'country', targetValue: ['US', 'CA'], operator: 'any' };

test.describe('gates', () => {
  test('gates: add rules answers the gate with its rules and the spec message [spec 4.1]', checks('stated', 'gates.addRules.message', 'gates.addRules.response.gate', 'gates.addRules.rules.fields', 'gates.addRules.body', 'requests.json'), async ({ t }) => {
    const id = gate(t.manifest.gates, 0);
    const name = `cc rule ${t.runId}`;
    const body = expectSuccess('addGateRules', await t.call('POST', `/console/v1/gates/${id}/rules`, { data: { rules: [{ name, passPercentage: 25, conditions: [condition], environments: ['production'] }] } }));
    expectMessage(body, 'Gate rules added successfully.');
    expect(body.data.id, 'data is the gate named in the path').toBe(id);
    const rule = body.data.rules.find((r: any) => r.name === name);
    expect(rule, 'the added rule is among the returned rules').toBeTruthy();
    expect(rule.passPercentage).toBe(25);
    expect(rule.environments).toEqual(['production']);
    expect(rule.conditions[0]).toMatchObject(condition);
  });

  test('gates: a rule added without environments comes back with environments null [spec 2.3]', checks('stated', 'gates.addRules.environments.null'), async ({ t }) => {
    const id = gate(t.manifest.gates, 0);
    const name = `cc rule noenv ${t.runId}`;
    const body = expectSuccess('addGateRules', await t.call('POST', `/console/v1/gates/${id}/rules`, { data: { rules: [{ name, passPercentage: 5, conditions: [condition] }] } }));
    const rule = body.data.rules.find((r: any) => r.name === name);
    expect(rule, 'the added rule is returned').toBeTruthy();
    expect(rule.environments, 'environments is null when no restriction is set').toBeNull();
    expect(typeof rule.id === 'string' && typeof rule.baseID === 'string', 'the server gives the rule an id and a baseID').toBe(true);
  });

  test('gates: whether add rules keeps or replaces existing rules is observed [spec 4.1, not shown]', checks('open', 'gates.addRules.merge'), async ({ t }, info) => {
    const id = gate(t.manifest.gates, 2);
    const first = `cc keep ${t.runId}`;
    expectSuccess('addGateRules', await t.call('POST', `/console/v1/gates/${id}/rules`, { data: { rules: [{ name: first, passPercentage: 1, conditions: [condition] }] } }));
    const body = expectSuccess('addGateRules', await t.call('POST', `/console/v1/gates/${id}/rules`, { data: { rules: [{ name: `cc second ${t.runId}`, passPercentage: 2, conditions: [condition] }] } }));
    observe(info, 'gates.addRules.merge', body.data.rules.some((r: any) => r.name === first) ? 'existing rules kept' : 'existing rules replaced');
  });

  test('gates: disable answers the gate with isEnabled false [spec 3, 4.2]', checks('stated', 'gates.disable.isEnabled', 'gates.disable.message'), async ({ t }) => {
    const id = gate(t.manifest.gates, 1);
    const body = expectSuccess('disableGate', await t.call('PUT', `/console/v1/gates/${id}/disable`));
    expectMessage(body, 'Gate updated successfully.');
    expect(body.data.id).toBe(id);
    expect(body.data.isEnabled, 'isEnabled after disable').toBe(false);
  });

  test('gates: enable answers 200 with the gate and the spec message [spec 4.3]', checks('stated', 'gates.enable.status200', 'gates.enable.message'), async ({ t }, info) => {
    const id = gate(t.manifest.gates, 3);
    const body = expectSuccess('enableGate', await t.call('PUT', `/console/v1/gates/${id}/enable`));
    expectMessage(body, 'Gate updated successfully.');
    expect(body.data.id).toBe(id);
    observe(info, 'gates.enable.state', { isEnabled: body.data.isEnabled, status: body.data.status });
  });

  test('gates: every field of the returned gate, its rules and conditions has its spec type [spec 2.2 to 2.4]', checks('stated', ...clausesUnder('gate.field.'), ...clausesUnder('gateRule.field.'), ...clausesUnder('condition.field.')), async ({ t }) => {
    const id = gate(t.manifest.gates, 0);
    const body = expectSuccess('addGateRules', await t.call('POST', `/console/v1/gates/${id}/rules`, { data: { rules: [{ name: `cc fields ${t.runId}`, passPercentage: 50, conditions: [{ ...condition, field: 'country', customID: 'cc' }], environments: null, returnValue: { on: true }, completedAutomatedRollouts: [{ time: 1, passPercent: 10 }], pendingAutomatedRollouts: [{ time: 2, passPercent: 20 }] }] } }));
    expect(body.data.rules.length, 'the gate has rules to check').toBeGreaterThan(0);
    // Owner and monitoringMetrics are present in enable/disable responses (spec 2.2).
    const disabled = expectSuccess('disableGate', await t.call('PUT', `/console/v1/gates/${gate(t.manifest.gates, 1)}/disable`));
    expect(typeof disabled.data.owner, 'owner in a disable response').toBe('object');
    expect(Array.isArray(disabled.data.monitoringMetrics), 'monitoringMetrics in a disable response').toBe(true);
  });

  test('gates: an unknown gate id is rejected with a 4xx [inferred]', checks('inferred', 'errors.unknownId.404'), async ({ t }, info) => {
    const missing = `cc_missing_gate_${t.runId}`;
    const replies = [
      await t.call('PUT', `/console/v1/gates/${missing}/disable`),
      await t.call('PUT', `/console/v1/gates/${missing}/enable`),
      await t.call('POST', `/console/v1/gates/${missing}/rules`, { data: { rules: [] } }),
    ];
    for (const r of replies) expectClientError(r, 'unknown gate');
    observe(info, 'errors.shape', { unknownId: replies[0].status, bodyKeys: Object.keys(replies[0].body ?? {}).sort() });
  });

  test('gates: add rules rejects rules of the wrong type [inferred]', checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing'), async ({ t }) => {
    const id = gate(t.manifest.gates, 0);
    const bad = `cc bad ${t.runId}`;
    for (const data of [{ rules: 'not-an-array' }, { rules: [{ name: bad, passPercentage: 'ten' }] }, { rules: [{ name: bad, conditions: 'x' }] }]) {
      expectClientError(await t.call('POST', `/console/v1/gates/${id}/rules`, { data }), `add rules with ${JSON.stringify(data)}`);
    }
    const after = expectSuccess('addGateRules', await t.call('POST', `/console/v1/gates/${id}/rules`, { data: { rules: [] } }));
    expect(after.data.rules.some((r: any) => r.name === bad), 'a rejected rule is not kept').toBe(false);
  });
});
