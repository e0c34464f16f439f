// Applies the request layer's changes that are on (layers/request.ts): arrivals refused before the key
// check, the contract's request schemas as changed, rewrites and refusals before the handler, the
// answer to a rewritten request given back in the client's terms, writes held in flight, and requests
// delayed between what they read and their handler's write. With no change on, it adds no hook at all.
import type { FastifyRequest } from 'fastify';
import { conflict } from '../errors.ts';
import type { RequestChange, RequestView, ResponseView } from '../layers/types.ts';
import { OPERATION_IDS, operationOf, operationOfRoute } from '../operations.ts';
import type { Store } from '../store/store.ts';
import { atRoot } from './root.ts';
import type { JsonObject } from '../../core/json.ts';

export interface RequestLayerOptions {
  changes: readonly RequestChange[];
  /** For reading, by rewrites and checks. */
  store: Store;
  /** Waits `ms` then calls `done` (build()'s `wait`: setTimeout, or a test's recorder). */
  wait(ms: number, done: () => void): void;
}

/** How long past its hold a resource whose write never finished (a dropped connection) stays busy. */
const STALE_AFTER_MS = 10_000;

const applies = (operationId: string) => (c: RequestChange) => !c.operations || c.operations.includes(operationId);

export const requestLayer = atRoot<RequestLayerOptions>((app, { changes, store, wait }, done) => {
  // Before the key check (registered ahead of plugins/auth.ts): a refused arrival is refused with or without a key.
  const arrivals = changes.filter((c) => c.arrive);
  if (arrivals.length > 0) {
    app.addHook('onRequest', (_req, _reply, next) => {
      for (const c of arrivals) {
        const refusal = c.arrive?.();
        if (refusal) return next(refusal);
      }
      next();
    });
  }

  const schemaChanges = changes.filter((c) => c.schema);
  if (schemaChanges.length > 0) {
    app.addHook('onRoute', (route) => {
      const id = typeof route.method === 'string' ? operationOfRoute(route.method, route.url) : undefined;
      const on = id ? schemaChanges.filter(applies(id)) : [];
      if (on.length === 0 || !route.schema) return;
      const s = route.schema as JsonObject;
      for (const part of ['body', 'querystring', 'params'] as const) {
        if (!s[part]) continue;
        const changed = structuredClone(s[part]);
        delete changed.$id; // a changed schema must not be confused with the contract's own in the validator cache
        for (const c of on) c.schema?.(changed, part);
        if (JSON.stringify({ ...s[part], $id: undefined }) !== JSON.stringify(changed)) s[part] = changed;
      }
    });
  }

  const before = changes.filter((c) => c.rewrite || c.check || c.hold || c.delay);
  if (before.length > 0) {
    const byOperation = new Map(OPERATION_IDS.map((id) => [id, before.filter(applies(id))]));
    /** Resources with a write in flight, each with the time after which it counts as abandoned. */
    const busy = new Map<string, number>();
    const held = new WeakMap<FastifyRequest, { key: string; ms: number }>();
    app.addHook('preHandler', (req, _reply, next) => {
      const operationId = operationOf(req);
      const on = operationId ? byOperation.get(operationId) : undefined;
      if (!operationId || !on?.length) return next();
      const view: RequestView = {
        operationId,
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: req.body,
        headers: req.headers,
      };
      try {
        for (const c of on) c.rewrite?.(view, store);
        for (const c of on) c.check?.(view, store);
      } catch (err) {
        return next(err as Error);
      }
      req.body = view.body;
      // Taken last, once nothing else refuses the request: a refused write holds nothing.
      for (const c of on) {
        if (!c.hold) continue;
        const key = c.hold.key(view);
        if ((busy.get(key) ?? 0) > Date.now()) return next(c.hold.refuse?.(key) ?? conflict(`${key} is being changed by another request; try again`));
        busy.set(key, Date.now() + c.hold.ms + STALE_AFTER_MS);
        held.set(req, { key, ms: c.hold.ms });
      }
      const delay = Math.max(0, ...on.map((c) => c.delay ?? 0));
      if (delay > 0) return wait(delay, () => next());
      next();
    });
    if (before.some((c) => c.hold)) {
      // The write is done (stored) when its answer is ready; the answer waits, the resource still held.
      app.addHook('onSend', (req, _reply, payload, next) => {
        const h = held.get(req);
        if (!h) return next(null, payload);
        wait(h.ms, () => next(null, payload));
      });
      app.addHook('onResponse', (req, _reply, next) => {
        const h = held.get(req);
        if (h) busy.delete(h.key);
        next();
      });
    }
  }

  const answers = changes.filter((c) => c.answer);
  if (answers.length > 0) {
    app.addHook('preSerialization', (req, reply, payload, next) => {
      const operationId = operationOf(req);
      if (!operationId || reply.statusCode >= 300) return next(null, payload);
      const r: ResponseView = { operationId, status: reply.statusCode, body: payload, request: { body: req.body, query: req.query } };
      for (const c of answers) if (applies(operationId)(c)) c.answer?.(r);
      if (r.status !== reply.statusCode) reply.code(r.status);
      next(null, r.body);
    });
  }
  done();
});
