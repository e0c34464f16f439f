// Spec 4.9, 4.10: skip a phase of, or unpause, a release pipeline trigger. Status values and the
// effect of skip and unpause are not shown (spec 2.7, 3); the reference's state machine:
// IN_PROGRESS -> (skip current phase) -> next phase, PAUSED if it requires review, COMPLETED after the last;
// PAUSED -> (unpause with current phase) -> IN_PROGRESS. Anything else is a 409.
import type { FastifyInstance } from 'fastify';
import { ACTOR, type Ctx } from '../context.ts';
import { conflict, notFound } from '../errors.ts';
import { routeSchema } from '../schemas.ts';
import { getDoc, putDoc } from '../store/db.ts';

type Doc = Record<string, any>;

export function triggerRoutes(app: FastifyInstance, ctx: Ctx): void {
  const action = (type: string, phaseID: string) => ({ type, timeMs: ctx.now(), phaseID, actorID: ACTOR.id, actorName: ACTOR.name });

  function change(id: string, requested: string | undefined, op: 'skip' | 'unpause'): Doc {
    return ctx.db.transaction(() => {
      const t = getDoc<Doc>(ctx.db, 'triggers', id);
      if (!t) throw notFound('release pipeline trigger', id);
      if (t.status === 'COMPLETED') throw conflict(`trigger ${id} is completed`);
      // Only reachable under the self-test fault phaseid-optional: a missing phaseID acts on the current phase.
      const phaseID: string = requested ?? t.currentPhaseID;
      if (phaseID !== t.currentPhaseID) throw conflict(`phase ${JSON.stringify(phaseID)} is not the current phase of trigger ${id} (${t.currentPhaseID})`);
      if (op === 'unpause') {
        if (t.status !== 'PAUSED') throw conflict(`trigger ${id} is not paused (${t.status})`);
        t.status = 'IN_PROGRESS';
        t.actions.push(action('UNPAUSED', phaseID));
      } else {
        const pipeline = JSON.parse((ctx.db.prepare('SELECT doc FROM pipelines WHERE id = ?').get(t.releasePipelineID) as { doc: string }).doc);
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
      putDoc(ctx.db, 'triggers', id, t);
      return t;
    })();
  }

  const respond = (t: Doc, message: string) => {
    const data = ctx.fault('trigger-actions-missing') ? { ...t, actions: undefined } : t;
    return { message, data };
  };

  app.put<{ Params: { id: string }; Body: { phaseID: string } }>(
    '/console/v1/release_pipeline_triggers/:id/skip',
    { schema: routeSchema('skipTriggerPhase') },
    (req) =>
      respond(change(req.params.id, req.body.phaseID, 'skip'), ctx.variant('skip-message-other') ? 'Phase skipped' : 'Trigger phase skipped successfully.'),
  );
  app.put<{ Params: { id: string }; Body: { phaseID: string } }>(
    '/console/v1/release_pipeline_triggers/:id/unpause',
    { schema: routeSchema('unpauseTrigger') },
    (req) => respond(change(req.params.id, req.body.phaseID, 'unpause'), 'Trigger unpaused successfully.'),
  );
}
