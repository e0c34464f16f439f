// Spec 4.4: list experiments with filters and paging.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { badRequest } from '../errors.ts';
import { successMessage } from '../messages.ts';
import { listBody, pagination, readPage } from '../paging.ts';
import { routeSchema } from '../schemas.ts';
import type { ExperimentFilter } from '../store/store.ts';

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
const MESSAGE = successMessage('listExperiments');

/** YYYY-MM-DD as a UTC day start; the format is checked by the contract, the calendar here. */
function dayStart(text: string, name: string): number {
  const t = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== text) throw badRequest(`${name} is not a calendar date: ${text}`);
  return t;
}

/** tags=a,b or tags=a&tags=b (encoding not shown, spec 4.4): an experiment matches when it has every tag. */
function tagList(tags: Query['tags']): string[] {
  const raw = tags === undefined ? [] : Array.isArray(tags) ? tags : [tags];
  return raw
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

/** The filters of the query: equalities, and both dates as inclusive calendar days of UTC (not shown, spec 4.4). */
function filterOf(q: Query): ExperimentFilter {
  const { layerID, idType, teamID, status, targetAppID, creatorName, creatorID } = q;
  return {
    equals: { layerID, idType, teamID, status, targetAppID, creatorName, creatorID },
    ...(q.createdStartDate === undefined ? {} : { createdFrom: dayStart(q.createdStartDate, 'createdStartDate') }),
    ...(q.createdEndDate === undefined ? {} : { createdBefore: dayStart(q.createdEndDate, 'createdEndDate') + DAY }),
    tags: tagList(q.tags),
  };
}

export function experimentRoutes(app: FastifyInstance, ctx: Ctx): void {
  const store = ctx.store('listExperiments');
  app.get<{ Querystring: Query }>('/console/v1/experiments', { schema: routeSchema('listExperiments') }, (req, reply) => {
    const p = readPage(req.query);
    const { total, docs } = store.listExperiments({ filter: filterOf(req.query), limit: p.limit, offset: p.offset });
    if (ctx.pristine) {
      // The stored documents are the API's JSON already: splice them in instead of parsing and re-encoding.
      const pg = JSON.stringify(pagination(p, total));
      reply.type('application/json; charset=utf-8').send(`{"message":${JSON.stringify(MESSAGE)},"data":[${docs.join(',')}],"pagination":${pg}}`);
      // Not `return reply`: a sync handler's return value is sent again, and Fastify builds an
      // "already sent" error object (a stack trace) for it on every request.
      return;
    }
    return listBody(
      MESSAGE,
      docs.map((d) => JSON.parse(d)),
      p,
      total,
    );
  });
}
