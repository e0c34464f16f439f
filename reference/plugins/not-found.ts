// Requests no operation serves: a path of the contract with a method it does not declare is 405 with
// Allow (RFC 9110, 15.5.6), answered after the key and before any body handling (a method such as
// QUERY without a content type would otherwise be a 400); any other path is 404. Fastify answers HEAD
// for GET routes.
import { allowedMethods } from '../operations.ts';
import type { SendError } from './errors.ts';
import { atRoot } from './root.ts';

export const unmatchedRequests = atRoot<{ send: SendError }>((app, { send }, done) => {
  app.addHook('onRequest', (req, reply, next) => {
    const allow = req.is404 ? allowedMethods(req.url) : undefined;
    if (!allow) return next();
    send(reply.header('allow', allow), 405, `${req.method} is not allowed on ${req.url.split('?')[0]}; allowed: ${allow}`);
  });
  app.setNotFoundHandler((req, reply) => {
    send(reply, 404, `no operation ${req.method} ${req.url.split('?')[0]}`);
  });
  done();
});
