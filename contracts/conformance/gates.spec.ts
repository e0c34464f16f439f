// Spec 2.2 to 2.4, 3, 4.1 to 4.3: add rules to a gate, enable and disable it. Only the manifest gates
// this file owns are touched (support/owners.ts): gates[0] (add rules, a rule without environments,
// disable, rejected rules, concurrent adds) and gates[1] (keep-or-replace, every rule field, enable).
// There is no delete (spec 4): every rule added stays on the gate, so each test adds as few as its
// check needs, and the two gates take 7 each a run.
import { checks, expect, test, type T } from '../support/suite-test.ts';
import { expectClientError, expectMessage, expectSuccess, ok2xx, operationClause, outcome, refusalClause, whenPresent } from '../support/checks.ts';
import { clausesUnder } from '../support/clauses.ts';
import { SPEC_OPERATIONS } from '../index.ts';
import type { Reply } from '../support/evidence.ts';
import { addRules, rulesPath } from '../support/gate-rules.ts';
import { expectBrokenBodiesRejected } from '../support/negative.ts';
import { checkAddsKeptOrReplaced, timed } from '../support/linearizability.ts';
import { judgeHistory } from '../support/histories.ts';
import { gateOf } from '../support/owners.ts';
import type { Manifest } from '../../core/config.ts';

/** gates[0], the gate of add rules, disable and the rejected and concurrent adds. */
const gateA = (m: Manifest) => gateOf(m, 'gatesA');
/** gates[1], the gate of keep-or-replace, every rule field and enable. */
const gateB = (m: Manifest) => gateOf(m, 'gatesB');
const condition = { type: 'country', targetValue: ['US', 'CA'], operator: 'any' };

/**
 * Conditions as they can be compared: targetValue is "array of string" (2.4), and nothing states that
 * its order is kept (a server may store the values as a set), so the values are compared sorted.
 */
const comparable = (conditions: unknown) =>
  Array.isArray(conditions) ? conditions.map((c: any) => (Array.isArray(c?.targetValue) ? { ...c, targetValue: [...c.targetValue].sort() } : c)) : conditions;

/** How the elements of an array look, for observations of shapes the spec leaves open. */
const elementKinds = (xs: unknown) =>
  Array.isArray(xs) ? [...new Set(xs.map((x) => (x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x)))].sort() : 'absent';

/**
 * An enable or disable answer carries the rules the gate holds ("data is the Gate", 4.2, 4.3; its rules,
 * 2.2): each rule of `known`, what the gate's last add-rules answer showed (nothing written to the gate
 * since but enable and disable), by id and name. Kept or replaced (not shown, 4.1), that answer showed
 * what the gate holds after it. An answer without rules leaves the clause unverifiable (its presence
 * is the schema's to judge).
 */
function expectCarriesRules(t: T, op: string, data: any, known: unknown): void {
  // What the add answered is judged by the add-rules clauses: without a list of rules, nothing is known here.
  if (!Array.isArray(known))
    return t.uncovered('gates.enableDisable.rules', "not verifiable: the add-rules answer shows no list of the gate's rules", 'unverifiable');
  whenPresent(t, 'gates.enableDisable.rules', data, 'rules', (rules) => {
    expect(Array.isArray(rules), `${op}: rules is an array`).toBe(true);
    const carried = (k: any) => rules.some((r: any) => r?.name === k?.name && (k?.id === undefined || r?.id === k.id));
    const missing = known.filter((k) => !carried(k)).map((k) => `${JSON.stringify(k?.name)} (id ${k?.id})`);
    expect(missing, `${op}: rules the gate holds (its last add-rules answer showed ${known.length}) that the answer lacks`).toEqual([]);
  });
}

/** The "No body." clause of enable and of disable (4.3, 4.2). */
const NO_BODY = { enableGate: 'gates.enable.noBody', disableGate: 'gates.disable.noBody' } as const;

/**
 * The clause a refusal of enable or disable, sent as 4.2 and 4.3 give it (no body), breaks. A 404 or
 * 405: the operation is not at its path (refusalClause). Any other: the same request is sent once more,
 * with an empty JSON object as its body; taken so, what was refused is the request without a body (the
 * operation's "No body."); refused again, the operation as the spec gives it (its path clause, as
 * before). The second request is sent only after a refusal: a target that takes the operation as the
 * spec gives it never gets it. A success: the path clause (what its answer breaks, expectSuccess blames).
 */
async function bodilessClause(t: T, operationId: keyof typeof NO_BODY, path: string, reply: Reply): Promise<string> {
  const operation = operationClause(operationId);
  if (ok2xx(reply) || refusalClause(operationId, reply, NO_BODY[operationId]) === operation) return operation;
  const withBody = await t.call('PUT', path, { data: {} });
  return ok2xx(withBody) ? NO_BODY[operationId] : operation;
}

// In order, in one worker: the tests share two gates, and a target may refuse a write to a gate while
// another is in flight. Not serial: one failure must not hide the others.
test.describe.configure({ mode: 'default' });

test.describe('gates', () => {
  test(
    'gates: add rules answers the gate with its rules and the spec message [spec 4.1]',
    checks(
      'stated',
      'gates.addRules.message',
      'gates.addRules.response.gate',
      'gates.addRules.rules.fields',
      'gates.addRules.body',
      'gates.addRules.path',
      'requests.json',
      'gates.enable.path',
    ),
    async ({ t }) => {
      const id = gateA(t.manifest);
      const name = `cc rule ${t.runId}`;
      const other = `cc rule ${t.runId} other`;
      const added = await addRules(t, id, {
        rules: [
          // 12.5: passPercentage is a number (2.3), not an integer.
          { name, passPercentage: 12.5, conditions: [condition], environments: ['production'] },
          // No conditions: an empty list is a value of the field, and the field is still there (4.1).
          { name: other, passPercentage: 5, conditions: [] },
        ],
      });
      // A refusal is of the body 4.1 describes, but a 404 or 405 at the manifest's gate: the operation is
      // not at its path (gates.addRules.path). A field's type or a stated presence, that field's clause.
      const body = await t.clause(refusalClause('addGateRules', added, 'gates.addRules.body'), async () => expectSuccess('addGateRules', added));
      expectMessage('addGateRules', body);
      const rule = await t.clause('gates.addRules.response.gate', async () => {
        // Each rule sent is added exactly once, whether the gate keeps its other rules or not (4.1): the names are this test's own.
        for (const sent of [name, other])
          expect(body.data.rules.filter((r: any) => r.name === sent).length, `rules named ${JSON.stringify(sent)} in the answer`).toBe(1);
        whenPresent(t, 'gates.addRules.response.gate', body.data, 'id', (got) => expect(got, 'data is the gate named in the path').toBe(id));
        const found = body.data.rules.find((r: any) => r.name === name);
        expect(found, 'the added rule is among the returned rules').toBeTruthy();
        return found;
      });
      await t.clause('gates.addRules.rules.fields', async () => {
        for (const added of body.data.rules.filter((r: any) => r.name === name || r.name === other))
          for (const field of ['id', 'baseID', 'name', 'passPercentage', 'conditions', 'environments'])
            expect(added, `the returned rule ${JSON.stringify(added.name)} carries ${field} (spec 2.3, 4.1)`).toHaveProperty(field);
        // The whole rule as sent: every field, and exactly the one condition (the server adds id and baseID).
        expect(rule, 'the added rule as sent').toMatchObject({ name, passPercentage: 12.5, environments: ['production'] });
        expect(comparable(rule.conditions), "the added rule's conditions as sent").toMatchObject(comparable([condition]) as object[]);
        expect(body.data.rules.find((r: any) => r.name === other)?.conditions, 'a rule sent without conditions').toEqual([]);
      });
      // Read back: an answer built from the request shows every rule sent whether or not the gate keeps
      // them. The gate as another operation answers it, with no rule written in between (an enable, which
      // leaves the rules alone; the disable test on this gate enables it first anyway), holds each rule
      // of the add, by id and name: what the add answered is the gate it stored (its own clause).
      const enabled = await t.clause('gates.enable.path', async () =>
        expectSuccess('enableGate', await t.call('PUT', `/console/v1/gates/${encodeURIComponent(id)}/enable`)),
      );
      await t.clause('gates.addRules.response.gate', async () => {
        const sent = body.data.rules.filter((r: any) => r.name === name || r.name === other);
        whenPresent(t, 'gates.addRules.response.gate', enabled.data, 'rules', (rules) => {
          const kept = (k: any) => Array.isArray(rules) && rules.some((r: any) => r?.name === k.name && (k.id === undefined || r?.id === k.id));
          expect(
            sent.filter((k: any) => !kept(k)).map((k: any) => k.name),
            `rules of one add (${sent.length} sent, each in its answer) that the gate, as enable answers it next, does not hold`,
          ).toEqual([]);
        });
      });
    },
  );

  test(
    'gates: a rule added without environments comes back with environments null [spec 2.3]',
    checks('stated', 'gates.addRules.environments.null', 'gates.addRules.rules.fields'),
    async ({ t }) => {
      const id = gateA(t.manifest);
      const name = `cc rule noenv ${t.runId}`;
      // passPercentage 0: a rule that passes no one still carries the field (a zero is a value, 2.3).
      const body = await t.clause('gates.addRules.body', async () =>
        expectSuccess('addGateRules', await addRules(t, id, { rules: [{ name, passPercentage: 0, conditions: [condition] }] })),
      );
      const rule = await t.clause('gates.addRules.response.gate', async () => {
        const rules = body.data.rules.filter((r: any) => r.name === name);
        expect(rules.length, 'the added rule, in the answer: exactly once').toBe(1);
        return rules[0];
      });
      await t.clause('gates.addRules.environments.null', async () => expect(rule.environments, 'environments is null when no restriction is set').toBeNull());
      await t.clause('gates.addRules.rules.fields', async () => {
        expect(rule, 'the added rule as sent, environments null').toMatchObject({ name, passPercentage: 0, environments: null });
        expect(comparable(rule.conditions), "the added rule's conditions as sent").toMatchObject(comparable([condition]) as object[]);
        expect(typeof rule.id === 'string' && typeof rule.baseID === 'string', 'the server gives the rule an id and a baseID').toBe(true);
      });
    },
  );

  test(
    'gates: keep-or-replace of rules, required rule fields and passPercentage bounds are observed [spec 2.3, 4.1, not shown]',
    checks('open', 'gates.addRules.merge', 'gates.addRules.rules.required', 'gateRule.passPercentage.bounds', 'condition.values'),
    async ({ t }) => {
      const id = gateB(t.manifest);
      const first = `cc keep ${t.runId}`;
      // What this test judges is stated: the adds are accepted (4.1) and answer the gate with the rule once.
      const second = await t.clause('gates.addRules.body', async () => {
        expectSuccess('addGateRules', await addRules(t, id, { rules: [{ name: first, passPercentage: 1, conditions: [condition] }] }));
        return expectSuccess('addGateRules', await addRules(t, id, { rules: [{ name: `cc second ${t.runId}`, passPercentage: 2, conditions: [condition] }] }));
      });
      t.observe('gates.addRules.merge', 'second add', second.data.rules.some((r: any) => r.name === first) ? 'existing rules kept' : 'existing rules replaced');
      // Kept or replaced, no rule is there twice: the one just added once, the earlier one once or not at all.
      const count = (n: string) => second.data.rules.filter((r: any) => r.name === n).length;
      await t.clause('gates.addRules.response.gate', async () => {
        expect(count(`cc second ${t.runId}`), 'the rule just added, in the answer').toBe(1);
        expect(count(first), 'the rule added before, in the answer (kept: once; replaced: none)').toBeLessThanOrEqual(1);
      });
      t.observe('gates.addRules.rules.required', 'rule with only a name', outcome(await addRules(t, id, { rules: [{ name: `cc bare ${t.runId}` }] })).status);
      t.observe(
        'gateRule.passPercentage.bounds',
        'passPercentage 150',
        outcome(await addRules(t, id, { rules: [{ name: `cc over ${t.runId}`, passPercentage: 150, conditions: [] }] })).status,
      );
      t.observe(
        'condition.values',
        'type user_id, operator none',
        outcome(
          await addRules(t, id, {
            rules: [{ name: `cc cond ${t.runId}`, passPercentage: 1, conditions: [{ type: 'user_id', targetValue: ['u1'], operator: 'none' }] }],
          }),
        ).status,
      );
      t.observe(
        'gateRule.passPercentage.bounds',
        'passPercentage -1',
        outcome(await addRules(t, id, { rules: [{ name: `cc under ${t.runId}`, passPercentage: -1, conditions: [] }] })).status,
      );
    },
  );

  test(
    'gates: disable answers the gate with isEnabled false, whatever its state before [spec 3, 4.2]',
    checks(
      'stated',
      'gates.disable.isEnabled',
      'gates.disable.message',
      'gates.disable.anyState',
      'gates.disable.path',
      'gates.disable.noBody',
      'gates.disable.response.isEnabled',
      'gates.enableDisable.owner',
      'gates.enableDisable.monitoringMetrics',
      'gates.enableDisable.rules',
    ),
    async ({ t }) => {
      const id = gateA(t.manifest);
      const enablePath = `/console/v1/gates/${encodeURIComponent(id)}/enable`;
      const disablePath = `/console/v1/gates/${encodeURIComponent(id)}/disable`;
      // From an enabled gate, then from a disabled one (spec 3: "Gate with any isEnabled").
      const enabling = await t.call('PUT', enablePath);
      const enabled = await t.clause(await bodilessClause(t, 'enableGate', enablePath, enabling), async () => expectSuccess('enableGate', enabling));
      // The disable answers must carry a rule without environments, to hold it to environments null (2.3).
      // One is added only when the gate has none: the tests before on this gate add such rules, and a
      // rule stays (no delete). (Had the enable answer left the field out, its schema check failed above.)
      // Else an add of no rule, which leaves none behind: either way an add answers the rules the gate
      // holds (4.1), which the disable answers must carry.
      const unrestricted = (rules: unknown) => Array.isArray(rules) && rules.some((r: any) => r?.environments === null);
      const rulesToAdd = unrestricted(enabled.data?.rules) ? [] : [{ name: `cc disable ${t.runId}`, passPercentage: 1, conditions: [] }];
      const held = await t.clause('gates.addRules.body', async () => expectSuccess('addGateRules', await addRules(t, id, { rules: rulesToAdd })));
      for (const before of ['enabled', 'disabled']) {
        // Refused: the operation of 4.2 as sent (bodilessClause), or, the gate already disabled (the
        // same request was just taken), its "any isEnabled" of spec 3.
        const reply = await t.call('PUT', disablePath);
        const refused = before === 'enabled' ? await bodilessClause(t, 'disableGate', disablePath, reply) : 'gates.disable.anyState';
        const body = await t.clause(refused, async () => expectSuccess('disableGate', reply));
        expectMessage('disableGate', body);
        await t.clause('gates.disable.response.isEnabled', async () =>
          whenPresent(t, 'gates.disable.response.isEnabled', body.data, 'id', (got) => expect(got, 'data is the gate named in the path').toBe(id)),
        );
        // An answer with isEnabled true is the answer 4.2 states broken, and the next state of spec 3 shown not to be false.
        await t.clause(['gates.disable.isEnabled', 'gates.disable.response.isEnabled'], async () =>
          expect(body.data.isEnabled, `isEnabled after disabling a gate that was ${before}`).toBe(false),
        );
        await t.clause('gates.enableDisable.rules', async () => expectCarriesRules(t, `disable of a gate that was ${before}`, body.data, held.data?.rules));
      }
      // The next state is isEnabled = false (spec 3), not only the answer: the gate as the next write
      // answers it (add rules answers the gate, 4.1; there is no read) is still disabled. An add of no
      // rule: it answers the gate and leaves no rule behind.
      const after = await t.clause('gates.addRules.body', async () =>
        expectSuccess('addGateRules', await t.call('POST', rulesPath(id), { data: { rules: [] } })),
      );
      await t.clause('gates.disable.isEnabled', async () =>
        whenPresent(t, 'gates.disable.isEnabled', after.data, 'isEnabled', (got) =>
          expect(got, 'isEnabled of the disabled gate, as add rules answers it').toBe(false),
        ),
      );
    },
  );

  test(
    `gates: enable answers ${SPEC_OPERATIONS.enableGate.successStatus} with the gate and the spec message, no review header needed [spec 4.0, 4.3]`,
    checks(
      'stated',
      'gates.enable.status200',
      'gates.enable.message',
      'gates.enable.path',
      'gates.enable.noBody',
      'reviewSettings.header.optional',
      'gates.enable.state',
      'reviewSettings.header.values',
      'gate.status.values',
      'gate.type.values',
      'gate.arrays.elementShape',
    ),
    async ({ t }) => {
      const id = gateB(t.manifest);
      const path = `/console/v1/gates/${encodeURIComponent(id)}/enable`;
      const reply = await t.call('PUT', path);
      // The review header is optional (4.0). An enable without it refused (a 4xx) is sent once more with
      // it: accepted then, the refusal was the header's absence. Only a refused enable makes that write.
      await t.clause('reviewSettings.header.optional', async () => {
        if (reply.status < 400 || reply.status >= 500) return;
        const withHeader = await t.call('PUT', path, { headers: { 'x-respect-review-settings': 'true' } });
        expect(
          ok2xx(withHeader),
          `enable refused without x-respect-review-settings (HTTP ${reply.status}) and accepted with it (HTTP ${withHeader.status}): the header is optional (spec 4.0)`,
        ).toBe(false);
      });
      // Refused: the operation of 4.3 as sent, with no body and no review header (bodilessClause tells a
      // refusal of the missing body); a 2xx other than 200: gates.enable.status200.
      const body = await t.clause(await bodilessClause(t, 'enableGate', path, reply), async () => expectSuccess('enableGate', reply));
      expectMessage('enableGate', body);
      await t.clause('gates.enable.message', async () =>
        whenPresent(t, 'gates.enable.message', body.data, 'id', (got) => expect(got, 'data is the gate named in the path').toBe(id)),
      );
      const g = body.data;
      t.observe('gates.enable.state', 'after enable', { isEnabled: g.isEnabled, status: g.status }, reply);
      t.observe('gate.status.values', 'after enable', g.status, reply);
      t.observe('gate.type.values', 'after enable', { type: g.type, typeReason: g.typeReason, ownerType: g.owner?.ownerType ?? null }, reply);
      t.observe(
        'gate.arrays.elementShape',
        'after enable',
        {
          targetApps: elementKinds(g.targetApps),
          holdoutIDs: elementKinds(g.holdoutIDs),
          monitoringMetrics: elementKinds(g.monitoringMetrics),
          allowedReviewers: elementKinds(g.reviewSettings?.allowedReviewers),
        },
        reply,
      );
      // The header's values and effect are not shown (spec 4.0): what `true` does is recorded only.
      t.observe(
        'reviewSettings.header.values',
        'enable with x-respect-review-settings: true',
        outcome(await t.call('PUT', path, { headers: { 'x-respect-review-settings': 'true' } })).status,
      );
    },
  );

  test(
    'gates: every field of the returned gate, its rules and conditions has its spec type [spec 2.2 to 2.4]',
    checks(
      'stated',
      'fields.caseSensitive',
      'timestamps.integer',
      ...clausesUnder('gate.field.'),
      ...clausesUnder('gateRule.field.'),
      ...clausesUnder('condition.field.'),
      'gates.enableDisable.owner',
      'gates.enableDisable.monitoringMetrics',
      'gates.enableDisable.rules',
    ),
    async ({ t }) => {
      const id = gateB(t.manifest);
      // Every rule and condition field the spec accepts in requests (2.3, 2.4), so the returned ones are checked too.
      const body = await t.clause('gates.addRules.body', async () =>
        expectSuccess(
          'addGateRules',
          await addRules(t, id, {
            rules: [
              {
                name: `cc fields ${t.runId}`,
                passPercentage: 50,
                conditions: [{ ...condition, field: 'country', customID: 'cc' }],
                environments: null,
                returnValue: { on: true },
                completedAutomatedRollouts: [{ time: 1, passPercent: 10 }],
                pendingAutomatedRollouts: [{ time: 2, passPercent: 20 }],
              },
            ],
          }),
        ),
      );
      await t.clause('gate.field.rules', async () => expect(body.data.rules.length, 'the gate has rules to check').toBeGreaterThan(0));
      // owner and monitoringMetrics are present in enable/disable responses (spec 2.2).
      const disabled = await t.clause('gates.disable.path', async () =>
        expectSuccess('disableGate', await t.call('PUT', `/console/v1/gates/${encodeURIComponent(id)}/disable`)),
      );
      await t.clause('gates.enableDisable.owner', async () =>
        expect(typeof disabled.data.owner === 'object' && disabled.data.owner !== null, 'owner in a disable response').toBe(true),
      );
      await t.clause('gates.enableDisable.monitoringMetrics', async () =>
        expect(Array.isArray(disabled.data.monitoringMetrics), 'monitoringMetrics in a disable response').toBe(true),
      );
      // The gate holds what the add answered: the disable answer, and the enable answer after it, carry those rules.
      await t.clause('gates.enableDisable.rules', async () => expectCarriesRules(t, 'disable after add rules', disabled.data, body.data.rules));
      const enabled = await t.clause('gates.enable.path', async () =>
        expectSuccess('enableGate', await t.call('PUT', `/console/v1/gates/${encodeURIComponent(id)}/enable`)),
      );
      await t.clause('gates.enableDisable.rules', async () => expectCarriesRules(t, 'enable after add rules and disable', enabled.data, body.data.rules));
    },
  );

  test(
    'gates: add rules, enable and disable carrying x-respect-review-settings get a success or a 4xx, never a 5xx [inferred, spec 4.0]',
    checks('inferred', 'reviewSettings.header.no5xx'),
    async ({ t }) => {
      // The header is optional and declared for the mutation endpoints (4.0); what it does, and what it
      // answers when a review is required, is not shown: a refusal is legal, a server error is not.
      // An add of no rule: it answers the gate and leaves no rule behind.
      const id = encodeURIComponent(gateB(t.manifest));
      const headers = { 'x-respect-review-settings': 'true' };
      for (const [op, method, path, data] of [
        ['addGateRules', 'POST', `/console/v1/gates/${id}/rules`, { rules: [] }],
        ['disableGate', 'PUT', `/console/v1/gates/${id}/disable`, undefined],
        ['enableGate', 'PUT', `/console/v1/gates/${id}/enable`, undefined],
      ] as const) {
        const r = await t.call(method, path, { data, headers });
        await t.clause('reviewSettings.header.no5xx', async () =>
          expect(r.status, `${op} with x-respect-review-settings: true answered ${r.status}`).toBeLessThan(500),
        );
      }
    },
  );

  test('gates: an unknown gate id is rejected with a 4xx [inferred]', checks('inferred', 'errors.unknownId.404', 'errors.shape'), async ({ t }) => {
    const missing = `cc_missing_gate_${t.runId}`;
    const replies = [
      await t.call('PUT', `/console/v1/gates/${missing}/disable`),
      await t.call('PUT', `/console/v1/gates/${missing}/enable`),
      await t.call('POST', rulesPath(missing), { data: { rules: [] } }),
    ];
    t.observe('errors.shape', 'unknown gate', outcome(replies[0]), replies[0]);
    for (const r of replies) expectClientError(r, 'unknown gate');
  });

  test(
    'gates: add rules rejects rules of the wrong type and bodies that break its schema, and keeps none of them [inferred]',
    checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing'),
    async ({ t }) => {
      const id = gateA(t.manifest);
      const bad = `cc bad ${t.runId}`;
      const generated = await t.clause('errors.badInput.4xx', async () => {
        for (const data of [
          { rules: 'not-an-array' },
          { rules: [{ name: bad, passPercentage: 'ten' }] },
          { rules: [{ name: bad, conditions: 'x' }] },
          { rules: [{ name: bad, environments: 'production' }] },
        ]) {
          expectClientError(await t.call('POST', rulesPath(id), { data }), `add rules with ${JSON.stringify(data)}`);
        }
        // The generated negative data of add rules (support/negative.ts): this file owns the gate.
        return expectBrokenBodiesRejected(t, 'addGateRules', 'POST', rulesPath(id), { rules: [] });
      });
      expect(generated, 'generated invalid bodies sent').toBeGreaterThan(0);
      await t.clause('writes.rejectedPersistNothing', async () => {
        const after = await t.call('POST', rulesPath(id), { data: { rules: [] } });
        expect(ok2xx(after), 'a valid add after the rejected ones succeeds').toBe(true);
        expect(
          after.body.data.rules.some((r: any) => r.name === bad),
          'a rejected rule is not kept',
        ).toBe(false);
      });
    },
  );

  test(
    'gates: concurrent add-rules on one gate each succeed or get a 4xx, the gate stays well formed, and the history is linearizable [inferred]',
    checks('inferred', 'writes.concurrentSafe', 'gates.addRules.concurrentNoLostAdd'),
    async ({ t }) => {
      const id = gateA(t.manifest);
      // Four at once: enough to overlap, and every rule taken stays on the gate (no delete). A 4xx is a
      // refusal (a target may refuse a write while another to the gate is in flight: 409, or 429 after
      // its waits), not a lost write: only the adds answered 2xx are in the history.
      const names = Array.from({ length: 4 }, (_, i) => `cc concurrent ${i} ${t.runId}`);
      const burst = await Promise.all(
        names.map((name, i) => timed([name], () => addRules(t, id, { rules: [{ name, passPercentage: i, conditions: [condition] }] }))),
      );
      await t.clause('writes.concurrentSafe', async () => {
        for (const { reply } of burst) expect(reply.status < 500, `a concurrent add-rules answered ${reply.status}`).toBe(true);
        expect(burst.filter((o) => ok2xx(o.reply)).length, 'at least one concurrent add succeeded').toBeGreaterThan(0);
      });
      // The read-back is the history's last operation: an add of no rule answers the gate (4.1) and leaves no rule behind.
      const read = await timed([] as string[], () => t.call('POST', rulesPath(id), { data: { rules: [] } }));
      await t.clause('writes.concurrentSafe', async () => expectSuccess('addGateRules', read.reply));
      // Each answer, as the names of this burst's rules it shows; an answer without a list of rules has nothing to judge.
      const history = [...burst, read]
        .filter((o) => ok2xx(o.reply) && Array.isArray(o.reply.body?.data?.rules))
        .map((o) => ({ ...o, output: o.reply.body.data.rules.map((r: any) => r?.name).filter((n: unknown) => names.includes(n as string)) as string[] }));
      // Kept or replaced is not shown (4.1): a history either reading explains holds.
      await judgeHistory(t, 'gates.addRules.concurrentNoLostAdd', 'adds of rules', history, checkAddsKeptOrReplaced(history));
    },
  );
});
