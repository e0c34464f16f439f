// Spec 4.6 to 4.8: create and update metrics. dryRun validates and answers, and persists nothing.
import type { FastifyInstance } from 'fastify';
import { ACTOR, type Ctx } from '../context.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { routeSchema } from '../schemas.ts';
import { getDoc, insertDoc, putDoc } from '../store/db.ts';

type Doc = Record<string, any>;

// Fields kept as sent (not part of the 2.8 table, but accepted by 4.6 and returned as sent).
const KEPT = [
  'metricComponentMetrics',
  'rollupTimeWindow',
  'customRollUpStart',
  'customRollUpEnd',
  'funnelEventList',
  'funnelCountDistinct',
  'warehouseNative',
  'teamID',
];

function newMetric(body: Doc, ctx: Ctx): Doc {
  const idName = ctx.fault('metric-id-name-lowercased') ? body.name.toLowerCase() : ctx.fault('metric-id-name-truncated') ? body.name.slice(0, 100) : body.name;
  const id = ctx.fault('metric-id-shape-wrong') ? body.name : `${idName}::${body.type}`;
  const flags = !ctx.fault('metric-create-ignores-flags');
  const events: Doc[] = body.metricEvents ?? [];
  const metric: Doc = {
    id,
    name: body.name,
    directionality: body.directionality ?? (ctx.fault('directionality-default-decrease') ? 'decrease' : 'increase'),
    type: body.type,
    description: body.description ?? '',
    isPermanent: flags && (body.isPermanent ?? false),
    isReadOnly: flags && (body.isReadOnly ?? false),
    isHidden: false,
    isVerified: flags && (body.isVerified ?? false),
    tags: body.tags ?? [],
    creatorName: ACTOR.name,
    creatorEmail: ACTOR.email,
    createdTime: ctx.now(),
    owner: { name: ACTOR.name, ownerID: ACTOR.id, ownerType: 'SDK_KEY', ownerName: ACTOR.name, ownerEmail: ACTOR.email },
    lineage: { events: events.map((e) => e.name ?? ''), metrics: [] },
    team: body.team ?? '',
    unitTypes: (!ctx.fault('metric-create-ignores-unittypes') && body.unitTypes) || [],
    metricEvents: events.map((e) => ({ name: e.name ?? '', type: e.type ?? 'value', criteria: [] })),
  };
  for (const k of KEPT) if (k in body) metric[k] = body[k];
  if (ctx.variant('metric-write-version')) Object.assign(metric, { version: 1, updatedTime: metric.createdTime });
  return metric;
}

function applyUpdate(metric: Doc, body: Doc, ctx: Ctx): Doc {
  const m = structuredClone(metric);
  for (const k of ['name', 'tags', 'isVerified', 'isReadOnly', 'isPermanent', 'warehouseNative', 'unitTypes', 'teamID', 'directionality']) {
    if (k in body) m[k] = body[k];
  }
  if ('description' in body && !ctx.fault('metric-update-ignores-description')) m.description = body.description;
  if (ctx.fault('metric-update-ignores-ispermanent')) m.isPermanent = metric.isPermanent;
  if ('tags' in body && ctx.fault('metric-update-tags-append')) m.tags = [...(metric.tags ?? []), ...body.tags];
  // The response types team as a string (spec 2.8); a null team is stored as no team.
  if ('team' in body) m.team = body.team ?? '';
  if (body.owner) {
    if (body.owner.email !== undefined) m.owner.ownerEmail = body.owner.email;
    if (body.owner.ownerID !== undefined) m.owner.ownerID = body.owner.ownerID;
  }
  // The id stays as created when the name changes: it is the metric's handle (spec 4.7 keeps {id} in the path).
  return m;
}

export function metricRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.post<{ Body: Doc }>('/console/v1/metrics', { schema: routeSchema('createMetric') }, (req, reply) => {
    // Self-test faults: lengths counted in UTF-8 bytes (the contract's schema counts characters).
    const bytes = (s: unknown) => (typeof s === 'string' ? Buffer.byteLength(s) : 0);
    if (ctx.fault('metric-name-counts-bytes') && (bytes(req.body.name) < 4 || bytes(req.body.name) > 200)) throw badRequest('name must be 4 to 200 bytes');
    if (ctx.fault('metric-description-counts-bytes') && bytes(req.body.description) > 1000) throw badRequest('description must be at most 1000 bytes');
    // A legal variant: a server may restrict a name's characters, which the spec does not address.
    if (ctx.variant('metric-name-ascii-only') && /[^\x20-\x7e]/.test(String(req.body.name))) throw badRequest('name must be printable ASCII');
    const metric = newMetric(req.body, ctx);
    if (ctx.fault('metric-id-length-limit') && `${req.body.name}::${req.body.type}`.length > 210) throw badRequest('metric id must be at most 210 characters');
    const dry = ctx.fault('metric-dryrun-false-not-persisted') ? 'dryRun' in req.body : req.body.dryRun === true;
    const persist = !dry || ctx.fault('metric-dryrun-persists');
    ctx.db.transaction(() => {
      if (getDoc(ctx.db, 'metrics', metric.id)) throw conflict(`metric ${metric.id} already exists`);
      if (persist) insertDoc(ctx.db, 'metrics', metric.id, metric);
    })();
    if (ctx.variant('create-metric-201')) reply.code(201);
    // A legal variant: what a dry run answers is not shown (4.6), so it may be a summary, not the Metric.
    if (dry && ctx.variant('dryrun-create-summary')) return { message: 'Metric created successfully.', data: { id: metric.id, dryRun: true, valid: true } };
    return { message: ctx.fault('wrong-message-metric-created') ? 'Metric created.' : 'Metric created successfully.', data: metric };
  });

  app.post<{ Params: { id: string }; Body: Doc }>('/console/v1/metrics/:id', { schema: routeSchema('updateMetric') }, (req) => {
    const updated = ctx.db.transaction(() => {
      const metric = getDoc<Doc>(ctx.db, 'metrics', req.params.id);
      if (!metric) throw notFound('metric', req.params.id);
      const m = applyUpdate(metric, req.body, ctx);
      const dry = ctx.fault('metric-update-dryrun-false-not-persisted') ? 'dryRun' in req.body : req.body.dryRun === true;
      const stored = !dry || ctx.fault('metric-update-dryrun-persists');
      if (stored && ctx.variant('metric-write-version')) Object.assign(m, { version: (metric.version ?? 1) + 1, updatedTime: ctx.now() });
      if (stored) {
        if (!ctx.fault('metric-update-not-persisted')) putDoc(ctx.db, 'metrics', metric.id, m);
      } else if (ctx.fault('metric-update-dryrun-persists-tags')) putDoc(ctx.db, 'metrics', metric.id, { ...metric, tags: m.tags });
      else if (ctx.fault('metric-update-dryrun-persists-description')) putDoc(ctx.db, 'metrics', metric.id, { ...metric, description: m.description });
      else if (ctx.fault('metric-update-dryrun-persists-warehousenative') && 'warehouseNative' in req.body)
        putDoc(ctx.db, 'metrics', metric.id, { ...metric, warehouseNative: m.warehouseNative });
      return { m, dry };
    })();
    // The legal variant of create's dry run, for update's too: a real server answers both dry runs alike.
    if (updated.dry && ctx.variant('dryrun-create-summary'))
      return { message: 'Metric updated successfully.', data: { id: updated.m.id, dryRun: true, valid: true } };
    return { message: ctx.fault('wrong-message-metric-updated') ? 'Metric saved.' : 'Metric updated successfully.', data: updated.m };
  });
}
