// Spec 4.6 to 4.8: create and update metrics. dryRun validates and answers, and persists nothing.
import type { FastifyInstance } from 'fastify';
import { ACTOR, type Ctx } from '../context.ts';
import { SPEC_DEFAULTS } from '../../contracts/index.ts';
import { conflict, notFound } from '../errors.ts';
import { successMessage } from '../messages.ts';
import { routeSchema } from '../schemas.ts';
import { contractTyper } from '../store/contract-types.ts';
import type { Doc } from '../store/store.ts';

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

/** A metric in the types the contract gives its fields (store/contract-types.ts). */
const asMetric = contractTyper('Metric');

function newMetric(body: Doc, now: number): Doc {
  const events: Doc[] = body.metricEvents ?? [];
  const metric: Doc = {
    // The id is <name>::<type> (spec 2.8).
    id: `${body.name}::${body.type}`,
    name: body.name,
    directionality: body.directionality ?? SPEC_DEFAULTS.createMetric.directionality,
    type: body.type,
    description: body.description ?? '',
    isPermanent: body.isPermanent ?? false,
    isReadOnly: body.isReadOnly ?? false,
    isHidden: false,
    isVerified: body.isVerified ?? false,
    tags: body.tags ?? [],
    creatorName: ACTOR.name,
    creatorEmail: ACTOR.email,
    createdTime: now,
    owner: { name: ACTOR.name, ownerID: ACTOR.id, ownerType: 'SDK_KEY', ownerName: ACTOR.name, ownerEmail: ACTOR.email },
    lineage: { events: events.map((e) => e.name ?? ''), metrics: [] },
    team: body.team ?? '',
    unitTypes: body.unitTypes || [],
    metricEvents: events.map((e) => ({ name: e.name ?? '', type: e.type ?? 'value', criteria: [] })),
  };
  for (const k of KEPT) if (k in body) metric[k] = body[k];
  return asMetric(metric);
}

function applyUpdate(metric: Doc, body: Doc): Doc {
  const m = structuredClone(metric);
  for (const k of ['name', 'tags', 'isVerified', 'isReadOnly', 'isPermanent', 'warehouseNative', 'unitTypes', 'teamID', 'directionality', 'description']) {
    if (k in body) m[k] = body[k];
  }
  // The response types team as a string (spec 2.8); a null team is stored as no team.
  if ('team' in body) m.team = body.team ?? '';
  if (body.owner) {
    if (body.owner.email !== undefined) m.owner.ownerEmail = body.owner.email;
    if (body.owner.ownerID !== undefined) m.owner.ownerID = body.owner.ownerID;
  }
  // The id stays as created when the name changes: it is the metric's handle (spec 4.7 keeps {id} in the path).
  return asMetric(m);
}

export function metricRoutes(app: FastifyInstance, ctx: Ctx): void {
  const creating = ctx.store('createMetric');
  app.post<{ Body: Doc }>('/console/v1/metrics', { schema: routeSchema('createMetric') }, (req) => {
    const metric = newMetric(req.body, ctx.now());
    const created = creating.transaction(() => creating.createMetric(metric, { dryRun: req.body.dryRun === true }));
    // A dry run validates duplicates too.
    if (!created) throw conflict(`metric ${metric.id} already exists`);
    return { message: successMessage('createMetric'), data: created };
  });

  const updating = ctx.store('updateMetric');
  app.post<{ Params: { id: string }; Body: Doc }>('/console/v1/metrics/:id', { schema: routeSchema('updateMetric') }, (req) => {
    const updated = updating.transaction(() => {
      const metric = updating.getMetric(req.params.id);
      if (!metric) throw notFound('metric', req.params.id);
      return updating.putMetric(applyUpdate(metric, req.body), { dryRun: req.body.dryRun === true });
    });
    return { message: successMessage('updateMetric'), data: updated };
  });
}
