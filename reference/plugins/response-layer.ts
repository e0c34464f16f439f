// Applies the response layer's changes that are on (layers/response.ts) to each answer the server
// serializes, in the layer's order: success answers of the operations a change names, and error
// answers too for a change that asks for them. With no change on, it adds no hook at all, and a
// handler may send stored JSON text as it is.
import type { ResponseChange, ResponseView } from '../layers/types.ts';
import { operationOf } from '../operations.ts';
import { atRoot } from './root.ts';

export const responseLayer = atRoot<{ changes: readonly ResponseChange[] }>((app, { changes }, done) => {
  if (changes.length > 0) {
    app.addHook('preSerialization', (req, reply, payload, next) => {
      const operationId = operationOf(req);
      const r: ResponseView = { operationId, status: reply.statusCode, body: payload, request: { body: req.body, query: req.query, headers: req.headers } };
      for (const c of changes) {
        if (r.status >= 300 && !c.errors) continue;
        if (c.operations !== 'all' && !(operationId && c.operations.includes(operationId))) continue;
        c.transform(r);
      }
      if (r.status !== reply.statusCode) reply.code(r.status);
      if (r.contentType) reply.header('content-type', r.contentType);
      next(null, r.body);
    });
  }
  done();
});
