// Spec 2.7, 4.9, 4.10: skip a phase of, and unpause, a release pipeline trigger. Only manifest
// triggers are touched, and only by this file (support/owners.ts). Trigger statuses and the effect of
// skip and unpause are not shown (spec 2.7, 3), so the suite finds the current phase by trying the
// manifest's phase ids in order (a phase that is not current is refused), and when every manifest
// trigger is finished it reports the clauses as not covered, for a reason the user can fix (add
// triggers with phases to the manifest), instead of failing. Finite state: there is no operation that
// resets a trigger, so a run consumes only what the stated clauses need: one skip, then unpause is
// tried at every phase, and another phase is skipped only while no trigger is paused (the reference
// pauses at every second phase: at most 2 phases a run).
import { checks, expect, test, type T } from '../support/suite-test.ts';
import { expectClientError, expectNotAccepted, expectSuccess, ok2xx, outcome, whenPresent } from '../support/checks.ts';
import { clausesUnder } from '../support/clauses.ts';
import { SPEC_OPERATIONS } from '../index.ts';
import type { Reply } from '../support/evidence.ts';
import { failedExchange } from '../support/blame.ts';
import { expectBrokenBodiesRejected } from '../support/negative.ts';

const base = (id: string) => `/console/v1/release_pipeline_triggers/${encodeURIComponent(id)}`;
const DAY_MS = 86_400_000;

/**
 * timeMs of the action a skip caused is the time of that request in milliseconds since the epoch
 * (2.7: the field is named for milliseconds). The action it caused: the newest of the phase the skip
 * made current (currentPhaseID after it, another than the phase skipped); none shown (the last phase
 * was skipped, or the answer names no such action), and the clause is not verifiable. A day either
 * way allows for the clocks of client and server; seconds since the epoch are about 1000 times smaller.
 */
function expectActionTimeOfRequest(t: T, data: any, skipped: string, at: number): void {
  const current = data?.currentPhaseID;
  const actions: any[] = Array.isArray(data?.actions) ? data.actions : [];
  const started = actions.filter((a) => typeof current === 'string' && current !== skipped && a?.phaseID === current && Number.isFinite(a?.timeMs));
  if (started.length === 0)
    return t.uncovered('trigger.actions.timeMs.unit', 'not verifiable: the skip answer shows no action of a phase it made current', 'unverifiable');
  const newest = Math.max(...started.map((a) => a.timeMs));
  expect(
    Math.abs(newest - at),
    `timeMs ${newest} of the action the skip caused, against the request's time ${at} ms since the epoch: more than a day apart (seconds instead of milliseconds?)`,
  ).toBeLessThanOrEqual(DAY_MS);
}

/**
 * Skips the current phase of the first manifest trigger that still has one; the reply, or undefined.
 * With `keyless`, each phase is first asked for without the key (spec 5): that request can succeed only
 * at the current phase, which is found only here, so this is where a skip served without a key shows.
 * Those that were accepted are pushed onto `keyless`; with `refused`, the skips (with the key) refused.
 */
async function skipSomePhase(t: T, keyless?: Reply[], refused?: Reply[]) {
  for (const trigger of t.manifest.triggers) {
    for (const phaseID of trigger.phaseIDs) {
      if (keyless) {
        const anonymous = await t.raw('PUT', `${base(trigger.id)}/skip`, { data: { phaseID } });
        if (ok2xx(anonymous)) keyless.push(anonymous);
      }
      // The client's clock when the skip went out: the time of the actions it causes (within a day of skew).
      const at = Date.now();
      const reply = await t.call('PUT', `${base(trigger.id)}/skip`, { data: { phaseID } });
      if (ok2xx(reply)) return { trigger, phaseID, reply, at };
      refused?.push(reply);
    }
  }
  return undefined;
}

/**
 * Skip is found at its path (4.9), judged when no manifest phase could be skipped. Every skip answered
 * 404 means the target does not know the manifest's triggers (the user's to fix), or skip is not found
 * at its path; an unpause with a phase no trigger has tells them apart: a target that knows the trigger
 * refuses it otherwise than it refuses a trigger that does not exist. (Refusals are not shown, 7: a
 * target that answers both alike, or refuses a skip otherwise than 404, gives nothing to judge here.)
 */
async function expectSkipFound(t: T, refused: Reply[]): Promise<void> {
  if (refused.length === 0 || refused.some((r) => r.status !== 404)) return;
  const trigger = t.manifest.triggers[0].id;
  const phaseID = `cc_no_phase_${t.runId}`;
  const known = await t.call('PUT', `${base(trigger)}/unpause`, { data: { phaseID } });
  const unknown = await t.call('PUT', `${base(`cc_missing_${t.runId}`)}/unpause`, { data: { phaseID } });
  if (known.status === 404 || known.status === unknown.status) return;
  failedExchange(refused.filter((r) => r.exchange.path.startsWith(`${base(trigger)}/`)).at(-1)?.exchange);
  expect(
    refused.every((r) => r.status === 404),
    `skip answered 404 at all ${refused.length} manifest phases, though the target knows trigger ${trigger} (an unpause of it with a phase it lacks answered ${known.status}, of a trigger that does not exist ${unknown.status}): skip is not found at PUT /console/v1/release_pipeline_triggers/{id}/skip`,
  ).toBe(false);
}

/**
 * Unpause is found at its path (4.10), judged when no unpause was accepted. Every unpause answered 404,
 * though the target knows the trigger (a skip of it was answered 2xx in this run, `known`), and it
 * refuses a skip at a phase a trigger is not at otherwise than 404: what it answers a trigger that is not
 * paused is no 404 either, so unpause is not found at its path. Anything else gives nothing to judge.
 */
function expectUnpauseFound(known: string | undefined, answered: Reply[], skipRefused: Reply[]): void {
  if (!known || answered.length === 0 || answered.some((r) => r.status !== 404)) return;
  const refusal = skipRefused.find((r) => r.status !== 404);
  if (!refusal) return;
  failedExchange(answered.filter((r) => r.exchange.path.startsWith(`${base(known)}/`)).at(-1)?.exchange);
  expect(
    answered.every((r) => r.status === 404),
    `unpause answered 404 all ${answered.length} times, though the target knows trigger ${known} (a skip of it was answered 2xx in this run) and refuses a skip at a phase a trigger is not at with ${refusal.status}: unpause is not found at PUT /console/v1/release_pipeline_triggers/{id}/unpause`,
  ).toBe(false);
}

/** A phase of a pipeline other than `pipelineID`, from the first page of the pipeline list; undefined when it shows none. */
async function phaseOfAnotherPipeline(t: T, pipelineID: string, own: string[]): Promise<{ phaseID: string; of: string } | undefined> {
  const r = await t.call('GET', '/console/v1/release_pipelines?limit=100');
  const pipelines: any[] = ok2xx(r) && Array.isArray(r.body?.data) ? r.body.data : [];
  const mine = new Set([...own, ...(pipelines.find((p) => p?.id === pipelineID)?.phases ?? []).map((ph: any) => ph?.id)]);
  for (const p of pipelines) {
    if (p?.id === pipelineID || !Array.isArray(p?.phases)) continue;
    const phase = p.phases.find((ph: any) => typeof ph?.id === 'string' && !mine.has(ph.id));
    if (phase) return { phaseID: phase.id, of: `a phase of pipeline ${p.id}` };
  }
  return undefined;
}

/** A write without the key that was accepted: a stated failure (spec 5), with the exchange as its evidence. */
function expectNoneServedWithoutKey(accepted: Reply[], op: string): void {
  const first = accepted[0];
  expect(first ? `${first.status}: ${JSON.stringify(first.body)?.slice(0, 200)}` : 'none', `${op} without SERVICE-API-KEY must not be accepted`).toBe('none');
}

/**
 * The skip the first test made, for the test after it that judges the time its answer gives (null: no
 * phase was left to skip). Module state of the worker: the tests of this file run in order in one.
 */
let lastSkip: { trigger: string; data: any; phaseID: string; at: number; reply: Reply } | null | undefined;

// In order, in one worker: the tests move the same triggers forward. Not serial: one failure must not
// hide the others.
test.describe.configure({ mode: 'default' });

test.describe('triggers', () => {
  const skipClauses = ['triggers.skip.status200', 'triggers.skip.response', 'triggers.skip.path', 'triggers.skip.message', ...clausesUnder('trigger.field.')];
  test(
    `triggers: skip of the current phase answers ${SPEC_OPERATIONS.skipTriggerPhase.successStatus} with the trigger and its actions, and not without the key [spec 2.7, 4.9, 5]`,
    checks('stated', ...skipClauses, 'auth.key.required'),
    async ({ t }) => {
      const keyless: Reply[] = [];
      const refused: Reply[] = [];
      const done = await skipSomePhase(t, keyless, refused);
      await t.clause('auth.key.required', async () => expectNoneServedWithoutKey(keyless, 'skip'));
      lastSkip = done ? undefined : null;
      if (!done) {
        await t.clause('triggers.skip.path', () => expectSkipFound(t, refused));
        return skipClauses.forEach((c) => t.uncovered(c, 'no manifest trigger had a phase left to skip: add triggers with phases to the manifest', 'resource'));
      }
      const body = expectSuccess('skipTriggerPhase', done.reply);
      await t.clause('triggers.skip.response', async () => {
        whenPresent(t, 'triggers.skip.response', body.data, 'id', (got) => expect(got, 'data is the trigger named in the path').toBe(done.trigger.id));
        whenPresent(t, 'triggers.skip.response', body.data, 'releasePipelineID', (got) => expect(got).toBe(done.trigger.releasePipelineID));
        whenPresent(t, 'triggers.skip.response', body.data, 'actions', (got) =>
          expect(Array.isArray(got) && got.length > 0, 'the trigger carries its actions').toBe(true),
        );
      });
      t.observe('triggers.skip.message', 'skip', body.message, done.reply);
      lastSkip = { trigger: done.trigger.id, data: body.data, phaseID: done.phaseID, at: done.at, reply: done.reply };
    },
  );

  test(
    'triggers: the action a skip caused carries the time of that request, in milliseconds since the epoch [inferred]',
    checks('inferred', 'trigger.actions.timeMs.unit'),
    async ({ t }) => {
      // The skip of the test before (a phase is finite: this one skips none of its own), which a
      // read-only run does not send.
      t.needsWrite('the skip of the test before');
      if (lastSkip === null)
        return t.uncovered('trigger.actions.timeMs.unit', 'no manifest trigger had a phase left to skip: add triggers with phases to the manifest', 'resource');
      if (lastSkip === undefined)
        return t.uncovered(
          'trigger.actions.timeMs.unit',
          'not verifiable: no skip was answered in this worker (the skip test failed or was not run)',
          'unverifiable',
        );
      // Its evidence is that skip's exchange.
      const skip = lastSkip;
      await test.info().attach('exchange', { body: JSON.stringify(skip.reply.exchange), contentType: 'application/json' });
      await t.clause('trigger.actions.timeMs.unit', async () => expectActionTimeOfRequest(t, skip.data, skip.phaseID, skip.at));
    },
  );

  const unpauseClauses = ['triggers.unpause.status200', 'triggers.unpause.response', 'triggers.unpause.path', 'triggers.status', 'triggers.transitions'];
  test(
    `triggers: unpause of a paused trigger answers ${SPEC_OPERATIONS.unpauseTrigger.successStatus} with the trigger, and not without the key [spec 2.7, 4.10, 5]`,
    checks('stated', ...unpauseClauses, 'auth.key.required', 'triggers.unpause.phaseID.required'),
    async ({ t }) => {
      // A trigger is unpaused only when it is paused, and how it gets paused is not shown: skip phases
      // (bounded by the manifest) until an unpause is accepted. Each unpause is first sent without the
      // key: it could only succeed there, at a paused trigger's phase.
      const keyless: Reply[] = [];
      // The unpauses refused (with the key), and the skips refused here, for the path check at the end.
      const answered: Reply[] = [];
      const skipRefused: Reply[] = [];
      // A trigger a skip of this run moved: the target knows it, and it is the one a pause follows.
      let known = lastSkip?.trigger;
      let moved = known;
      for (let attempt = 0; attempt < 6; attempt++) {
        // Without phaseID an unpause is refused (4.10), also at the trigger most likely paused, where a
        // server that acts on the current phase instead would unpause it.
        if (moved) {
          const r = await t.call('PUT', `${base(moved)}/unpause`, { data: {} });
          await t.clause('triggers.unpause.phaseID.required', async () =>
            expectNotAccepted(r, `unpause of ${moved}, which a skip just moved, without phaseID`),
          );
          moved = undefined;
        }
        for (const trigger of t.manifest.triggers) {
          for (const phaseID of trigger.phaseIDs) {
            const anonymous = await t.raw('PUT', `${base(trigger.id)}/unpause`, { data: { phaseID } });
            if (ok2xx(anonymous)) keyless.push(anonymous);
            const r = await t.call('PUT', `${base(trigger.id)}/unpause`, { data: { phaseID } });
            if (!ok2xx(r)) {
              answered.push(r);
              continue;
            }
            const body = expectSuccess('unpauseTrigger', r);
            await t.clause('triggers.unpause.response', async () => {
              whenPresent(t, 'triggers.unpause.response', body.data, 'id', (got) => expect(got, 'data is the trigger named in the path').toBe(trigger.id));
              whenPresent(t, 'triggers.unpause.response', body.data, 'actions', (got) =>
                expect(Array.isArray(got) && got.length > 0, 'the trigger carries its actions').toBe(true),
              );
            });
            t.observe('triggers.status', 'after unpause', body.data.status, r);
            const again = await t.call('PUT', `${base(trigger.id)}/unpause`, { data: { phaseID } });
            t.observe('triggers.transitions', 'unpause of a trigger just unpaused', outcome(again).status, again);
            await t.clause('auth.key.required', async () => expectNoneServedWithoutKey(keyless, 'unpause'));
            return;
          }
        }
        const skipped = await skipSomePhase(t, undefined, skipRefused);
        if (!skipped) break;
        known = moved = skipped.trigger.id;
      }
      await t.clause('auth.key.required', async () => expectNoneServedWithoutKey(keyless, 'unpause'));
      await t.clause('triggers.unpause.path', async () => expectUnpauseFound(known, answered, skipRefused));
      unpauseClauses.forEach((c) =>
        t.uncovered(c, 'no manifest trigger became paused within its remaining phases: add triggers with phases to the manifest', 'resource'),
      );
    },
  );

  test(
    'triggers: phaseID is required to skip or unpause, and must be a phase of the trigger [spec 4.9, 4.10]',
    checks('stated', 'triggers.skip.phaseID.required', 'triggers.unpause.phaseID.required', 'triggers.skip.phaseID.identifies'),
    async ({ t }) => {
      const [first, second] = t.manifest.triggers;
      const noSkipPhase = await t.call('PUT', `${base(first.id)}/skip`, { data: {} });
      await t.clause('triggers.skip.phaseID.required', async () => expectNotAccepted(noSkipPhase, 'skip without phaseID'));
      const noUnpausePhase = await t.call('PUT', `${base(first.id)}/unpause`, { data: {} });
      await t.clause('triggers.unpause.phaseID.required', async () => expectNotAccepted(noUnpausePhase, 'unpause without phaseID'));
      // A phase of another trigger's pipeline identifies no phase of this one: the manifest's second
      // trigger's, else one of another pipeline the list shows (a read: no second trigger is needed).
      const foreign = second?.phaseIDs.find((p) => !first.phaseIDs.includes(p))
        ? { phaseID: second.phaseIDs.find((p) => !first.phaseIDs.includes(p))!, of: `a phase of ${second.id}` }
        : await phaseOfAnotherPipeline(t, first.releasePipelineID, first.phaseIDs);
      if (foreign) {
        const r = await t.call('PUT', `${base(first.id)}/skip`, { data: { phaseID: foreign.phaseID } });
        await t.clause('triggers.skip.phaseID.identifies', async () => expectNotAccepted(r, `skip of ${first.id} with ${foreign.phaseID}, ${foreign.of}`));
      } else
        t.uncovered(
          'triggers.skip.phaseID.identifies',
          'the manifest names one trigger and the pipeline list shows no phase of another pipeline: no foreign phase to try; add a second trigger to the manifest',
          'resource',
        );
    },
  );

  test(
    'triggers: an unknown trigger or phase, and a body that breaks the schema, get a 4xx that does not carry the key [inferred]',
    checks('inferred', 'errors.unknownId.404', 'errors.badInput.4xx', 'triggers.phaseID.unknown', 'auth.key.notEchoed'),
    async ({ t }) => {
      const first = t.manifest.triggers[0].id;
      const refused: [string, Reply][] = [
        ['unknown trigger', await t.call('PUT', `${base(`cc_missing_${t.runId}`)}/skip`, { data: { phaseID: 'x' } })],
        ['unknown trigger', await t.call('PUT', `${base(`cc_missing_${t.runId}`)}/unpause`, { data: { phaseID: 'x' } })],
        ['unknown phase', await t.call('PUT', `${base(first)}/skip`, { data: { phaseID: `cc_no_phase_${t.runId}` } })],
        ['unknown phase', await t.call('PUT', `${base(first)}/unpause`, { data: { phaseID: `cc_no_phase_${t.runId}` } })],
        ['phaseID not a string', await t.call('PUT', `${base(first)}/skip`, { data: { phaseID: 42 } })],
      ];
      const clauseOf: Record<string, string> = {
        'unknown trigger': 'errors.unknownId.404',
        'unknown phase': 'triggers.phaseID.unknown',
        'phaseID not a string': 'errors.badInput.4xx',
      };
      for (const [what, r] of refused) await t.clause(clauseOf[what], async () => expectClientError(r, what));
      // The generated negative data of skip and unpause (support/negative.ts): this file owns the triggers.
      for (const op of ['skip', 'unpause'] as const) {
        const sent = await t.clause('errors.badInput.4xx', () =>
          expectBrokenBodiesRejected(t, op === 'skip' ? 'skipTriggerPhase' : 'unpauseTrigger', 'PUT', `${base(first)}/${op}`, {
            phaseID: `cc_no_phase_${t.runId}`,
          }),
        );
        expect(sent, `generated invalid ${op} bodies sent`).toBeGreaterThan(0);
      }
      // auth.spec.ts holds every other operation's answers to it, and skip and unpause only at a trigger no
      // target has: the refusals of a real trigger are sent here, by the file that owns the triggers.
      await t.clause('auth.key.notEchoed', async () => {
        for (const [what, r] of refused)
          expect(r.text.includes(t.apiKey) || Object.values(r.headers).some((v) => v.includes(t.apiKey)), `${what}: the key is in the response`).toBe(false);
      });
    },
  );

  test(
    'triggers: skip and unpause carrying x-respect-review-settings get a success or a 4xx, never a 5xx [inferred, spec 4.0]',
    checks('inferred', 'reviewSettings.header.no5xx'),
    async ({ t }) => {
      // What the header does, and what it answers when a review is required, is not shown (4.0): a refusal
      // is legal, a server error is not. To a trigger this file owns, at a phase it does not have: a phase
      // is spent only by a skip, and the suite spends one a run (the first test's).
      const first = t.manifest.triggers[0].id;
      for (const op of ['skip', 'unpause']) {
        const r = await t.call('PUT', `${base(first)}/${op}`, {
          data: { phaseID: `cc_no_phase_${t.runId}` },
          headers: { 'x-respect-review-settings': 'true' },
        });
        await t.clause('reviewSettings.header.no5xx', async () =>
          expect(r.status, `${op} with x-respect-review-settings: true answered ${r.status}`).toBeLessThan(500),
        );
      }
    },
  );
});
