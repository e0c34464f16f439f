// Spec 4.11: partially update the overrides of an experiment. Merge or replace is not shown (4.11):
// the body replaces the experiment's overrides.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import { successMessage } from '../messages.ts';
import { routeSchema } from '../schemas.ts';
import type { Overrides } from '../store/store.ts';

export function overrideRoutes(app: FastifyInstance, ctx: Ctx): void {
  const store = ctx.store('patchExperimentOverrides');
  app.patch<{ Params: { id: string }; Body: Overrides }>(
    '/console/v1/experiments/:id/overrides',
    { schema: routeSchema('patchExperimentOverrides') },
    (req) => {
      const id = req.params.id;
      const result = store.transaction(() => {
        if (!store.getExperiment(id)) throw notFound('experiment', id);
        return store.putOverrides(id, { overrides: req.body.overrides, userIDOverrides: req.body.userIDOverrides });
      });
      return { message: successMessage('patchExperimentOverrides'), data: result };
    },
  );
}
