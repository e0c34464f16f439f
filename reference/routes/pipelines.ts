// Spec 4.5: list release pipelines, paged like experiments.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { successMessage } from '../messages.ts';
import { listBody, readPage } from '../paging.ts';
import { routeSchema } from '../schemas.ts';

export function pipelineRoutes(app: FastifyInstance, ctx: Ctx): void {
  const store = ctx.store('listReleasePipelines');
  app.get<{ Querystring: { limit?: number; page?: number } }>('/console/v1/release_pipelines', { schema: routeSchema('listReleasePipelines') }, (req) => {
    const p = readPage(req.query);
    const { total, docs } = store.listPipelines({ limit: p.limit, offset: p.offset });
    return listBody(
      successMessage('listReleasePipelines'),
      docs.map((d) => JSON.parse(d)),
      p,
      total,
    );
  });
}
