// Spec 4.5: list release pipelines, paged like experiments.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { listBody, pageFromClient, pageToClient, pastTheEnd, readPage } from '../paging.ts';
import { routeSchema } from '../schemas.ts';

export function pipelineRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get<{ Querystring: { limit?: number; page?: number } }>('/console/v1/release_pipelines', { schema: routeSchema('listReleasePipelines') }, (req) => {
    const p = readPage(pageFromClient(req.query, ctx), ctx);
    const total = (ctx.db.prepare('SELECT count(*) AS n FROM pipelines').get() as { n: number }).n;
    const order = ctx.variant('order-by-id') ? 'id DESC' : 'created_time, id';
    const rows = pastTheEnd(p, total)
      ? []
      : (ctx.db.prepare(`SELECT doc FROM pipelines ORDER BY ${order} LIMIT ? OFFSET ?`).all(ctx.fault('limit-ignored') ? p.limit + 5 : p.limit, p.offset) as {
          doc: string;
        }[]);
    const message = ctx.fault('wrong-message-pipelines')
      ? 'Pipelines listed successfully.'
      : ctx.fault('pipelines-empty-message') && rows.length === 0
        ? 'No pipelines found'
        : 'List pipelines success';
    return pageToClient(
      listBody(
        message,
        rows.map((r) => JSON.parse(r.doc)),
        p,
        total,
        ctx,
      ),
      ctx,
    );
  });
}
