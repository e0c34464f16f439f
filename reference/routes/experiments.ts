// Spec 4.4: list experiments with filters and paging.
import type { Statement } from '../store/sqlite.ts';
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { badRequest } from '../errors.ts';
import { listBody, pageFromClient, pageToClient, pagination, pastTheEnd, readPage, type Page } from '../paging.ts';
import { routeSchema } from '../schemas.ts';

interface Query {
  layerID?: string;
  idType?: string;
  teamID?: string;
  status?: string;
  targetAppID?: string;
  createdStartDate?: string;
  createdEndDate?: string;
  creatorName?: string;
  creatorID?: string;
  tags?: string | string[];
  limit?: number;
  page?: number;
}

const DAY = 86_400_000;
/** Variant created-dates-los-angeles: a day starts at 08:00 UTC (UTC-8, Los Angeles standard time). */
const LOS_ANGELES = 8 * 3_600_000;

/** YYYY-MM-DD as a UTC day start; the format is checked by the contract, the calendar here. */
function dayStart(text: string, name: string): number {
  const t = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== text) throw badRequest(`${name} is not a calendar date: ${text}`);
  return t;
}

/**
 * tags=a,b or tags=a&tags=b (encoding not shown, spec 4.4): an experiment matches when it has every tag.
 * Variant tags-brackets reads tags[]=a&tags[]=b instead, as PHP and Rails clients send an array.
 */
function tagList(tags: Query['tags']): string[] {
  const raw = tags === undefined ? [] : Array.isArray(tags) ? tags : [tags];
  return raw
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

export function experimentRoutes(app: FastifyInstance, ctx: Ctx): void {
  // Totals per filter set: experiments never change through this API, so a count is computed once.
  const totals = new Map<string, number>();
  // Prepared once per distinct SQL text: preparing is a large share of a small query's cost.
  // pluck(): rows come back as the doc strings themselves, without a row object each.
  const statements = new Map<string, Statement<unknown[]>>();
  const stmt = (sql: string) => {
    let s = statements.get(sql);
    if (!s) {
      s = ctx.db.prepare(sql).pluck();
      statements.set(sql, s);
    }
    return s;
  };

  app.get<{ Querystring: Query }>('/console/v1/experiments', { schema: routeSchema('listExperiments') }, (req, reply) => {
    const q = req.query;
    let p: Page = readPage(pageFromClient(q, ctx), ctx);
    const where: string[] = [];
    const args: unknown[] = [];
    const eq = (column: string, value: string | undefined) => {
      if (value !== undefined) {
        where.push(`${column} = ?`);
        args.push(value);
      }
    };
    eq('layer_id', q.layerID);
    if (!ctx.fault('filter-idtype-ignored')) eq('id_type', q.idType);
    eq('team_id', q.teamID);
    if (!ctx.fault('filter-status-ignored')) eq('status', q.status);
    eq('target_app_id', q.targetAppID);
    eq('creator_name', q.creatorName);
    eq('creator_id', q.creatorID);
    // Both dates are inclusive calendar days (not shown, spec 4.4): UTC days, or UTC-8 days under the variant.
    const zone = ctx.variant('created-dates-los-angeles') ? LOS_ANGELES : 0;
    if (q.createdStartDate !== undefined) {
      where.push('created_time >= ?');
      args.push(dayStart(q.createdStartDate, 'createdStartDate') + zone);
    }
    if (q.createdEndDate !== undefined) {
      where.push('created_time < ?');
      args.push(dayStart(q.createdEndDate, 'createdEndDate') + DAY + zone);
    }
    if (!ctx.fault('filter-tags-ignored')) {
      const tags = ctx.variant('tags-brackets') ? (req.query as Record<string, Query['tags']>)['tags[]'] : q.tags;
      for (const tag of tagList(tags)) {
        where.push('EXISTS (SELECT 1 FROM experiment_tags t WHERE t.tag = ? AND t.experiment_id = e.id)');
        args.push(tag);
      }
    }
    // Fault filtered-page-ignored: any filter given, every page is the first.
    if (where.length > 0 && ctx.fault('filtered-page-ignored')) p = { ...p, page: 1, offset: 0 };
    // Variant unfiltered-hides-archived: archived experiments are listed only when asked for by status
    // (the spec never says the list without a status filter holds every status, 4.4).
    if (q.status === undefined && ctx.variant('unfiltered-hides-archived')) where.push("status <> 'archived'");
    const filter = where.length ? `WHERE ${where.join(ctx.fault('filters-or-combined') ? ' OR ' : ' AND ')}` : '';
    const key = JSON.stringify([filter, args]);
    let total = totals.get(key);
    if (total === undefined) {
      total = stmt(`SELECT count(*) FROM experiments e ${filter}`).get(...args) as number;
      totals.set(key, total);
    }
    const order = ctx.variant('order-by-id') ? 'ORDER BY e.id' : 'ORDER BY e.rank';
    // Unfiltered, default order: rank is the position, so a deep page is an index seek.
    const rows = (
      pastTheEnd(p, total)
        ? []
        : filter === '' && !ctx.variant('order-by-id')
          ? stmt('SELECT doc FROM experiments e WHERE e.rank >= ? ORDER BY e.rank LIMIT ?').all(p.offset, ctx.fault('limit-ignored') ? p.limit + 5 : p.limit)
          : stmt(`SELECT doc FROM experiments e ${filter} ${order} LIMIT ? OFFSET ?`).all(...args, ctx.fault('limit-ignored') ? p.limit + 5 : p.limit, p.offset)
    ) as string[];
    const message = ctx.fault('wrong-message-experiments')
      ? 'Experiments fetched.'
      : ctx.fault('experiments-empty-message') && rows.length === 0
        ? 'No experiments found.'
        : 'Experiments listed successfully.';
    if (ctx.pristine) {
      // The stored documents are the API's JSON already: splice them in instead of parsing and re-encoding.
      const pg = JSON.stringify(pagination(p, total, ctx));
      reply.type('application/json; charset=utf-8').send(`{"message":${JSON.stringify(message)},"data":[${rows.join(',')}],"pagination":${pg}}`);
      // Not `return reply`: a sync handler's return value is sent again, and Fastify builds an
      // "already sent" error object (a stack trace) for it on every request.
      return;
    }
    const data = rows.map((doc) => {
      const e = JSON.parse(doc);
      if (ctx.fault('created-time-string')) e.createdTime = String(e.createdTime);
      if (ctx.variant('timestamps-seconds')) for (const k of ['createdTime', 'lastModifiedTime']) e[k] = Math.floor(e[k] / 1000);
      return e;
    });
    const body = pageToClient(listBody(message, data, p, total, ctx), ctx);
    if (ctx.fault('envelope-data-renamed')) {
      body.experiments = body.data;
      delete body.data;
    }
    return body;
  });
}
