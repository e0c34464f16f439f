// Spec 2.7, 4.9, 4.10: skip a phase of, and unpause, a release pipeline trigger. Only manifest
// triggers are touched. Trigger statuses and their transitions are not shown (spec 3), so the suite
// finds the current phase by trying the manifest's phase ids, and reports a finished trigger as not
// covered rather than failing.
import { checks, expect, observe, test, type T } from '../support/target.ts';
import { expectClientError, expectNotAccepted, expectSuccess } from '../support/checks.ts';
import { clausesUnder } from '../support/clauses.ts';

const base = (id: string) => `/console/v1/release_pipeline_triggers/${id}`;

/** Skips the current phase of the first manifest trigger that still has one; the reply, or undefined. */
async function skipSomePhase(t: T) {
  for (const trigger of t.manifest.triggers) {
    for (const phaseID of trigger.phaseIDs) {
      const r = await t.call('PUT', `${base(trigger.id)}/skip`, { data: { phaseID } });
      if (r.status >= 200 && r.status < 300) return { trigger, phaseID, reply: r };
    }
  }
  return undefined;
}

test.describe.serial('triggers', () => {
  test('triggers: skip of the current phase answers 200 with the trigger and its actions [spec 4.9]', checks('stated', 'triggers.skip.status200', 'triggers.skip.response', ...clausesUnder('trigger.field.')), async ({ t }, info) => {
    const done = await skipSomePhase(t);
    test.info().annotations.push({ type: 'coverage', description: done ? `skipped ${done.phaseID} of ${done.trigger.id}` : 'no manifest trigger had a phase left' });
    expect(done, 'a manifest trigger with a phase left to skip (the manifest may be exhausted: add triggers)').toBeTruthy();
    const body = expectSuccess('skipTriggerPhase', done!.reply);
    expect(body.data.id).toBe(done!.trigger.id);
    expect(body.data.releasePipelineID).toBe(done!.trigger.releasePipelineID);
    expect(Array.isArray(body.data.actions) && body.data.actions.length > 0, 'the trigger carries its actions').toBe(true);
    observe(info, 'triggers.skip.message', body.message);
    // The status after a skip depends on the phase reached: recorded as evidence, not compared for drift.
    test.info().annotations.push({ type: 'note', description: `status after skip: ${body.data.status}` });
  });

  test('triggers: unpause of a paused trigger answers 200 with the trigger [spec 4.10]', checks('stated', 'triggers.unpause.status200', 'triggers.unpause.response'), async ({ t }, info) => {
    // A trigger is unpaused only when it is paused, and how it gets paused is not shown: skip phases
    // (bounded by the manifest) until an unpause is accepted.
    for (let attempt = 0; attempt < 6; attempt++) {
      for (const trigger of t.manifest.triggers) {
        for (const phaseID of trigger.phaseIDs) {
          const r = await t.call('PUT', `${base(trigger.id)}/unpause`, { data: { phaseID } });
          if (r.status >= 200 && r.status < 300) {
            const body = expectSuccess('unpauseTrigger', r);
            expect(body.data.id).toBe(trigger.id);
            observe(info, 'triggers.status', { afterUnpause: body.data.status });
            return;
          }
        }
      }
      if (!(await skipSomePhase(t))) break;
    }
    throw new Error('no manifest trigger could be unpaused: none became paused within the manifest phases');
  });

  test('triggers: phaseID is required to skip or unpause [spec 4.9, 4.10]', checks('stated', 'triggers.skip.phaseID.required', 'triggers.unpause.phaseID.required'), async ({ t }) => {
    const id = t.manifest.triggers[0].id;
    expectNotAccepted(await t.call('PUT', `${base(id)}/skip`, { data: {} }), 'skip without phaseID');
    expectNotAccepted(await t.call('PUT', `${base(id)}/unpause`, { data: {} }), 'unpause without phaseID');
  });

  test('triggers: an unknown trigger or phase gets a 4xx [inferred]', checks('inferred', 'errors.unknownId.404', 'errors.badInput.4xx'), async ({ t }) => {
    expectClientError(await t.call('PUT', `${base(`cc_missing_${t.runId}`)}/skip`, { data: { phaseID: 'x' } }), 'unknown trigger');
    expectClientError(await t.call('PUT', `${base(t.manifest.triggers[0].id)}/skip`, { data: { phaseID: `cc_no_phase_${t.runId}` } }), 'unknown phase');
    expectClientError(await t.call('PUT', `${base(t.manifest.triggers[0].id)}/skip`, { data: { phaseID: 42 } }), 'phaseID not a string');
  });
});
