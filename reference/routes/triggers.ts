// Spec 4.9, 4.10: skip a phase of, or unpause, a release pipeline trigger. Status values and the
// effect of skip and unpause are not shown (spec 2.7, 3); the reference's state machine:
// IN_PROGRESS -> (skip current phase) -> next phase, PAUSED if it requires review, COMPLETED after the last;
// PAUSED -> (unpause with current phase) -> IN_PROGRESS. Anything else is a 409.
import type { FastifyInstance } from 'fastify';
import { ACTOR, type Ctx } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { successMessage } from '../messages.ts';
import { routeSchema } from '../schemas.ts';
import type { Doc, Store } from '../store/store.ts';

export function triggerRoutes(app: FastifyInstance, ctx: Ctx): void {
  const action = (type: string, phaseID: string) => ({ type, timeMs: ctx.now(), phaseID, actorID: ACTOR.id, actorName: ACTOR.name });

  function change(store: Store, id: string, phaseID: string, op: 'skip' | 'unpause'): Doc {
    return store.transaction(() => {
      const t = store.getTrigger(id);
      if (!t) throw notFound('release pipeline trigger', id);
      if (t.status === 'COMPLETED') throw conflict(`trigger ${id} is completed`);
      if (phaseID !== t.currentPhaseID) throw conflict(`phase ${JSON.stringify(phaseID)} is not the current phase of trigger ${id} (${t.currentPhaseID})`);
      if (op === 'unpause') {
        if (t.status !== 'PAUSED') throw conflict(`trigger ${id} is not paused (${t.status})`);
        t.status = 'IN_PROGRESS';
        t.actions.push(action('UNPAUSED', phaseID));
      } else {
        const pipeline = store.getPipeline(t.releasePipelineID) as Doc;
        const at = pipeline.phases.findIndex((p: Doc) => p.id === phaseID);
        t.actions.push(action('SKIPPED', phaseID));
        const next = pipeline.phases[at + 1];
        if (!next) {
          t.status = 'COMPLETED';
        } else {
          t.status = next.requiredReview ? 'PAUSED' : 'IN_PROGRESS';
          t.currentPhase = next.name;
          t.currentPhaseID = next.id;
          t.currentPhaseEndTime = ctx.now() + next.timeIntervalMs;
          t.actions.push(action('STARTED', next.id));
        }
      }
      t.lastModifierID = ACTOR.id;
      t.lastModifierName = ACTOR.name;
      return store.putTrigger(t);
    });
  }

  const skipping = ctx.store('skipTriggerPhase');
  app.put<{ Params: { id: string }; Body: { phaseID: string } }>(
    '/console/v1/release_pipeline_triggers/:id/skip',
    { schema: routeSchema('skipTriggerPhase') },
    (req) => ({ message: successMessage('skipTriggerPhase'), data: change(skipping, req.params.id, req.body.phaseID, 'skip') }),
  );
  const unpausing = ctx.store('unpauseTrigger');
  app.put<{ Params: { id: string }; Body: { phaseID: string } }>(
    '/console/v1/release_pipeline_triggers/:id/unpause',
    { schema: routeSchema('unpauseTrigger') },
    (req) => ({ message: successMessage('unpauseTrigger'), data: change(unpausing, req.params.id, req.body.phaseID, 'unpause') }),
  );
}
