// Spec 4.11: partially update the overrides of an experiment.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { routeSchema } from '../schemas.ts';

interface Overrides {
  overrides: Record<string, unknown>[];
  userIDOverrides: Record<string, unknown>[];
}

export function overrideRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.patch<{ Params: { id: string }; Body: Overrides }>(
    '/console/v1/experiments/:id/overrides',
    { schema: routeSchema('patchExperimentOverrides') },
    (req) => {
      const id = req.params.id;
      // userIDOverrides is required by the contract; only the self-test fault userid-overrides-optional lets it be absent.
      req.body.userIDOverrides ??= [];
      // Self-test fault: an item twice and one lost, so that the number of items stays what was sent.
      if (ctx.fault('overrides-duplicated')) {
        req.body.overrides = req.body.overrides.length > 1 ? [req.body.overrides[0], ...req.body.overrides.slice(0, -1)] : req.body.overrides;
        req.body.userIDOverrides = req.body.userIDOverrides.map((u) => (Array.isArray(u.ids) ? { ...u, ids: [...u.ids, ...u.ids] } : u));
      }
      const result = ctx.db.transaction(() => {
        const experiment = ctx.db.prepare('SELECT doc FROM experiments WHERE id = ?').get(id) as { doc: string } | undefined;
        if (!experiment) throw notFound('experiment', id);
        // A legal variant: which item values a server takes is not shown (4.11); a real one may take only groups the experiment has.
        if (ctx.variant('overrides-known-groups-only')) {
          const groups = new Set((JSON.parse(experiment.doc).groups as { id: string }[]).map((g) => g.id));
          const unknown = [...req.body.overrides, ...req.body.userIDOverrides].map((o) => o.groupID).find((g) => !groups.has(String(g)));
          if (unknown !== undefined) throw badRequest(`groupID ${JSON.stringify(unknown)} is not a group of experiment ${id}`);
        }
        const row = ctx.db.prepare('SELECT doc FROM overrides WHERE experiment_id = ?').get(id) as { doc: string } | undefined;
        const before: Overrides = row ? JSON.parse(row.doc) : { overrides: [], userIDOverrides: [] };
        // Merge or replace is not shown (spec 4.11): the body replaces; variant overrides-merge appends.
        const after: Overrides = ctx.variant('overrides-merge')
          ? { overrides: [...before.overrides, ...req.body.overrides], userIDOverrides: [...before.userIDOverrides, ...req.body.userIDOverrides] }
          : { overrides: req.body.overrides, userIDOverrides: req.body.userIDOverrides };
        // A legal variant: one override per target (type, id, environment), the last one sent for it kept.
        if (ctx.variant('overrides-one-per-target')) {
          const byTarget = new Map<string, Record<string, unknown>>();
          for (const o of after.overrides) byTarget.set(JSON.stringify([o.type, o.id, o.environment ?? null]), o);
          after.overrides = [...byTarget.values()];
        }
        if (!ctx.fault('overrides-not-persisted')) {
          ctx.db
            .prepare('INSERT INTO overrides (experiment_id, doc) VALUES (?, ?) ON CONFLICT(experiment_id) DO UPDATE SET doc = excluded.doc')
            .run(id, JSON.stringify(after));
        } else if (!row) {
          return { overrides: [], userIDOverrides: [] };
        } else {
          return before;
        }
        return after;
      })();
      // The spec declares the envelope but its example shows the arrays at the top level (4.11).
      if (ctx.variant('overrides-toplevel-response')) return result;
      return { message: 'Experiment overrides updated successfully.', data: result };
    },
  );
}
