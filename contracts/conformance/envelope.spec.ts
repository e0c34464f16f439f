// Spec 2.1 and 4.0: every successful response is a JSON object with a message string and a data
// value (an object, or an array for lists, which also carry pagination). Trigger responses are held to
// the same schema in triggers.spec.ts (their state decides when a success is possible). The writes go
// to the gate and the experiment this file owns (support/owners.ts) and to the worker's metric.
import { checks, expect, test, type T } from '../support/suite-test.ts';
import { expectSuccess, metricName, ok2xx, operationClause, outcome } from '../support/checks.ts';
import type { Reply } from '../support/evidence.ts';
import { experimentOf, gateOf, overridesNotOwned, ownedExperimentOf } from '../support/owners.ts';
import { OPERATIONS } from '../index.ts';
import { workerMetric, workerMetricCreation } from '../support/worker-metric.ts';
import { METRIC_TYPE, NAME_LENGTH_ORDINARY } from '../support/boundaries.ts';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Operations whose success a trigger's state decides, and that consume the manifest's phases: this file
 * sends them nothing; triggers.spec.ts, which owns the triggers, holds their successes to the envelope.
 */
const HELD_ELSEWHERE: Readonly<Record<string, string>> = { skipTriggerPhase: 'triggers.spec.ts', unpauseTrigger: 'triggers.spec.ts' };

/**
 * One successful call of each operation of the contract (OPERATIONS) that a run can always make; ids
 * from the manifest. The create is the one that made the worker's metric: a create answers the same
 * whoever sends it, and each metric a run creates stays on the target (no delete). `unchecked` names
 * each operation of the contract this file has no call of and no other file holds (one a revision of
 * the spec added, or the overrides patch without an experiment the manifest gives the suite), with why.
 */
async function successes(t: T): Promise<{ replies: [string, Reply][]; unchecked: string[] }> {
  const m = t.manifest;
  const gate = gateOf(m, 'envelope');
  const experiment = ownedExperimentOf(m, 'envelope');
  const at = (op: string, id?: string) => (id === undefined ? OPERATIONS[op].path : OPERATIONS[op].path.replace(/\{[^}]+\}/g, encodeURIComponent(id)));
  const callers: Record<string, () => Promise<Reply>> = {
    addGateRules: () => t.call('POST', at('addGateRules', gate), { data: { rules: [] } }),
    disableGate: () => t.call('PUT', at('disableGate', gate)),
    enableGate: () => t.call('PUT', at('enableGate', gate)),
    listExperiments: () => t.call('GET', `${at('listExperiments')}?limit=5`),
    listReleasePipelines: () => t.call('GET', `${at('listReleasePipelines')}?limit=5`),
    createMetric: () => workerMetricCreation(t),
    updateMetric: async () => t.call('POST', at('updateMetric', (await workerMetric(t)).id), { data: { description: 'envelope' } }),
    // Only on an experiment whose overrides the manifest gives the suite: on a target that replaces, even an empty patch clears them.
    ...(experiment === undefined
      ? {}
      : { patchExperimentOverrides: () => t.call('PATCH', at('patchExperimentOverrides', experiment), { data: { overrides: [], userIDOverrides: [] } }) }),
  };
  const replies: [string, Reply][] = [];
  const unchecked: string[] = [];
  for (const op of Object.keys(OPERATIONS)) {
    const call = callers[op];
    if (call) replies.push([op, await call()]);
    else if (!HELD_ELSEWHERE[op]) {
      const { method, path, section } = OPERATIONS[op];
      unchecked.push(
        op === 'patchExperimentOverrides'
          ? overridesNotOwned(experimentOf(m, 'envelope'))
          : `not checked for ${op} (${method} ${path}, spec ${section}): the suite has no successful call of it (a test for it is the fix)`,
      );
    }
  }
  return { replies, unchecked };
}

/**
 * Leaves `clauses` unchecked for each operation `successes` had no call of: a check that claims every
 * operation of the spec is never a pass for one it did not make. Called after the test's checks held,
 * so that an operation left out never hides a failure of the others.
 */
function reportUnchecked(t: T, clauses: string[], unchecked: string[]): void {
  for (const reason of unchecked) for (const clause of clauses) t.uncovered(clause, reason, 'resource');
}

// In order, in one worker: the tests share this file's gate and experiment. Not serial: one failure
// must not hide the others.
test.describe.configure({ mode: 'default' });

test.describe('envelope', () => {
  test(
    'envelope: every operation answers message, data, and pagination on lists [spec 2.1, 4.0]',
    checks('stated', 'envelope.message', 'envelope.data', 'envelope.pagination', 'envelope.successObject', 'envelope.allEndpoints', 'responses.successStatus'),
    async ({ t }) => {
      const { replies, unchecked } = await successes(t);
      for (const [op, reply] of replies) {
        // 4.0: every operation answers the envelope of 2.1. A success that is an object carrying neither
        // message nor data is not the envelope with a field missing (envelope.message, envelope.data) but
        // another shape (the resource answered bare): the operation left the envelope out. The overrides
        // answer may have its arrays at the top level instead (4.11); a body that is no object at all is
        // envelope.successObject's (spec 1), which the schema check below blames.
        if (op !== 'patchExperimentOverrides' && ok2xx(reply) && isObject(reply.body))
          await t.clause('envelope.allEndpoints', async () =>
            expect(
              'message' in reply.body || 'data' in reply.body,
              `${op}: the answer is the envelope of 2.1, not an object of ${JSON.stringify(Object.keys(reply.body).slice(0, 8))}`,
            ).toBe(true),
          );
        // A request valid in every part refused: that operation's; the envelope's fields, their own clauses.
        const body = await t.clause(operationClause(op), async () => expectSuccess(op, reply));
        t.observe('responses.successStatus', op, reply.status, reply);
        // The overrides response may have its arrays at the top level instead (spec 4.11): its own schema admits both.
        if (op === 'patchExperimentOverrides' && !('message' in body)) continue;
        await t.clause('envelope.message', async () => expect(typeof body.message, `${op}: message is a string`).toBe('string'));
        const list = op.startsWith('list');
        await t.clause('envelope.data', async () =>
          expect(
            list ? Array.isArray(body.data) : typeof body.data === 'object' && body.data !== null && !Array.isArray(body.data),
            `${op}: data is ${list ? 'an array' : 'an object'}`,
          ).toBe(true),
        );
        if (list)
          await t.clause('envelope.pagination', async () =>
            expect(typeof body.pagination === 'object' && body.pagination !== null, `${op}: pagination is an object`).toBe(true),
          );
      }
      reportUnchecked(t, ['envelope.allEndpoints'], unchecked);
    },
  );

  test(
    'envelope: successes are 2xx and JSON; the media type of errors is observed [inferred, spec 7]',
    checks('inferred', 'responses.success.2xx', 'responses.json', 'errors.shape'),
    async ({ t }) => {
      // application/json or a structured JSON type such as application/problem+json (RFC 9457, a common error body).
      const json = (r: Reply) =>
        /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(r.headers['content-type'] ?? '') && typeof r.body === 'object' && r.body !== null;
      const { replies, unchecked } = await successes(t);
      for (const [op, reply] of replies) {
        await t.clause('responses.success.2xx', async () => expect(ok2xx(reply), `${op} answered ${reply.status}`).toBe(true));
        await t.clause('responses.json', async () => expect(json(reply), `${op}: a JSON body with a JSON Content-Type`).toBe(true));
      }
      // Error bodies are not shown (spec 7): JSON, problem+json or a framework's line of text are all a
      // correct server's. What each failure answered is recorded, and compared with the previous run.
      const failures: [string, Reply][] = [
        ['no key', await t.raw('GET', '/console/v1/experiments')],
        ['unknown gate', await t.call('PUT', `/console/v1/gates/cc_missing_${t.runId}/disable`)],
        ['bad body', await t.call('POST', '/console/v1/metrics', { data: { name: 5 } })],
        ['malformed JSON', await t.call('POST', '/console/v1/metrics', { rawBody: '{"name": ' })],
        ['unknown route', await t.call('GET', `/console/v1/cc_no_such_resource_${t.runId}`)],
      ];
      for (const [what, r] of failures)
        t.observe('errors.shape', `media type: ${what}`, (r.headers['content-type'] ?? 'none').split(';')[0].trim().toLowerCase(), r);
      reportUnchecked(t, ['responses.success.2xx', 'responses.json'], unchecked);
    },
  );

  test(
    'envelope: a body field the spec does not name is rejected or ignored alike by every write, never echoed [inferred]',
    checks('inferred', 'requests.unknownFields.consistent'),
    async ({ t }) => {
      const m = t.manifest;
      const metric = (await workerMetric(t)).id;
      const extra = { ccUnknownField: `cc_marker_${t.runId}` };
      const replies: [string, Reply][] = [
        [
          'createMetric',
          await t.call('POST', '/console/v1/metrics', {
            data: { name: metricName(m.metricPrefix, t.runId, NAME_LENGTH_ORDINARY, '_unknown2'), type: METRIC_TYPE, dryRun: true, ...extra },
          }),
        ],
        ['updateMetric', await t.call('POST', `/console/v1/metrics/${encodeURIComponent(metric)}`, { data: { description: 'x', ...extra } })],
        ['addGateRules', await t.call('POST', `/console/v1/gates/${encodeURIComponent(gateOf(m, 'envelope'))}/rules`, { data: { rules: [], ...extra } })],
        ...(ownedExperimentOf(m, 'envelope') === undefined
          ? []
          : [
              [
                'patchExperimentOverrides',
                await t.call('PATCH', `/console/v1/experiments/${encodeURIComponent(ownedExperimentOf(m, 'envelope')!)}/overrides`, {
                  data: { overrides: [], userIDOverrides: [], ...extra },
                }),
              ] as [string, Reply],
            ]),
      ];
      const kinds = replies.map(([op, r]) => `${op}: ${ok2xx(r) ? 'ignored' : r.status < 500 ? 'rejected' : `HTTP ${r.status}`}`);
      expect(new Set(kinds.map((k) => k.split(': ')[1])).size, `every write treats an unknown field alike: ${kinds.join(', ')}`).toBe(1);
      for (const [op, r] of replies) if (ok2xx(r)) expect(r.text.includes(extra.ccUnknownField), `${op} echoed the unknown field`).toBe(false);
      // Every other write of the contract with a body (one a revision of the spec added, or the overrides
      // patch on an experiment the manifest does not give the suite) is named as not compared.
      const sent = new Set(replies.map(([op]) => op));
      const others = Object.keys(OPERATIONS).filter((op) => OPERATIONS[op].body && !sent.has(op) && !HELD_ELSEWHERE[op]);
      reportUnchecked(
        t,
        ['requests.unknownFields.consistent'],
        others.map((op) => `not compared for ${op} (${OPERATIONS[op].method} ${OPERATIONS[op].path}): the suite sends it no write here`),
      );
    },
  );

  test(
    'envelope: reads the spec does not show and version headers are observed [spec 1, 9, not shown]',
    checks('open', 'scope.otherOperations', 'versioning.policy'),
    async ({ t }) => {
      const r = await t.call('GET', `/console/v1/gates/${encodeURIComponent(gateOf(t.manifest, 'envelope'))}`);
      t.observe('scope.otherOperations', 'GET a single gate', outcome(r).status, r);
      const list = await t.call('GET', '/console/v1/release_pipelines?limit=1');
      t.observe(
        'versioning.policy',
        'version headers',
        Object.keys(list.headers)
          .filter((h) => /version|deprecat|sunset/i.test(h))
          .sort(),
        list,
      );
    },
  );
});
