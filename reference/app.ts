// build(options) -> a Fastify instance of the reference server, without opening a port (tests use
// inject()). The CLI (cli.ts) listens on it. The server is assembled in order: timing, the request
// layer, authentication, the response layer, 404/405, error shaping, then the routes, which hold what
// the spec says; faults and variants live in the layers (layers/, registered in faults.ts).
import Fastify, { type FastifyInstance } from 'fastify';
import { SPEC_LIMITS } from '../contracts/index.ts';
import type { Ctx } from './context.ts';
import { parseJsonBody } from './body.ts';
import { activeLayers, checkSwitches, slowFaults } from './faults.ts';
import { installTiming, type Latency } from './latency.ts';
import { operationOf } from './operations.ts';
import { authentication } from './plugins/auth.ts';
import { errorHandling, errorSender } from './plugins/errors.ts';
import { unmatchedRequests } from './plugins/not-found.ts';
import { requestLayer } from './plugins/request-layer.ts';
import { responseLayer } from './plugins/response-layer.ts';
import { compileFor } from './schemas.ts';
import { openDb } from './store/db.ts';
import { layeredStore } from './store/layered.ts';
import { seed, seededCopy } from './store/seed.ts';
import { sqliteStore } from './store/store.ts';
import { gateRoutes } from './routes/gates.ts';
import { experimentRoutes } from './routes/experiments.ts';
import { overrideRoutes } from './routes/overrides.ts';
import { pipelineRoutes } from './routes/pipelines.ts';
import { triggerRoutes } from './routes/triggers.ts';
import { metricRoutes } from './routes/metrics.ts';

export { allowedMethods } from './operations.ts';

export interface BuildOptions {
  apiKey: string;
  db?: string;
  seed?: number;
  scale?: number;
  faults?: string[];
  variants?: string[];
  logger?: boolean;
  /** Where the log goes when `logger` is on (default stdout); tests read it. */
  logStream?: NodeJS.WritableStream;
  now?: () => number;
  /**
   * An in-memory store is copied from an image of the seeded data this process keeps per seed and scale
   * (store/seed.ts seededCopy), not seeded anew: for a process that builds many servers (reference/host.ts).
   */
  seedCopies?: boolean;
  /** Network-like latency added to every response (reference/latency.ts); none by default. */
  latency?: Latency;
  /** The uniform generator of the latency draws (default Math.random); tests give a seeded one. */
  random?: () => number;
  /** Waits before a response (default setTimeout); tests record the waits instead of waiting. */
  wait?: (ms: number, done: () => void) => void;
}

/**
 * Largest accepted request body, beyond it 413: the most overrides the spec allows (4.11, 8), with
 * every field (about 85 bytes each), fit many times over.
 */
export const BODY_LIMIT = Math.max(2 * 1024 * 1024, SPEC_LIMITS.patchExperimentOverrides.overrides.maxItems * 1024);
export const DEFAULT_SCALE = 200;
/** Longest path parameter (an id) accepted, longer is 414: twice the longest metric name the spec allows (4.6, 8) and more. */
export const MAX_PARAM_LENGTH = Math.max(512, 2 * SPEC_LIMITS.createMetric.name.maxLength + 64);

/** The URL with the value of any SERVICE-API-KEY query parameter replaced. */
export const redactUrl = (url: string) => url.replace(/([?&]SERVICE-API-KEY=)[^&#]*/gi, '$1[redacted]');

export function build(opts: BuildOptions): FastifyInstance {
  const problem = checkSwitches(opts.faults ?? [], opts.variants ?? []);
  if (problem) throw new Error(problem);
  if (!opts.apiKey) throw new Error('an API key is required');
  const on = activeLayers(opts.faults ?? [], opts.variants ?? []);
  const seeding = { seed: opts.seed ?? 1, scale: opts.scale ?? DEFAULT_SCALE };
  const path = opts.db ?? ':memory:';
  const copied = opts.seedCopies === true && path === ':memory:';
  const db = copied ? seededCopy(seeding) : openDb(path);
  // A copy holds the seed already. (A database file keeps its seed across restarts: seed sees it and adds nothing.)
  if (!copied) seed(db, seeding);
  const now = opts.now ?? Date.now;
  const store = sqliteStore(db);
  const ctx: Ctx = { store: layeredStore(store, on.storage, { now }), now, pristine: on.count === 0 };
  const sendError = errorSender(on.errors);

  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    // Logs never carry the key: headers are not logged at all, and a key sent in the query string
    // (refused, but sent) is cut out of the logged URL.
    logger: opts.logger
      ? {
          level: 'info',
          ...(opts.logStream ? { stream: opts.logStream } : {}),
          serializers: { req: (req: { method: string; url: string }) => ({ method: req.method, url: redactUrl(req.url) }) },
        }
      : false,
    // Metric ids are `<name>::<type>` with names as long as the spec allows (4.6, 8); the default
    // limit of 100 would turn a long-named metric's update into an error.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    // Errors the router raises before any route or hook runs (a URL that does not decode, an id
    // over the limit): in the one error shape too, not Fastify's own.
    frameworkErrors: (err, _req, reply) => {
      const status: 400 | 414 = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      sendError(reply, status, status === 414 ? `a path parameter is longer than ${MAX_PARAM_LENGTH} characters` : 'the URL does not decode');
    },
  });
  app.decorate('db', db);
  app.addHook('onClose', async () => db.close());
  // First of the onRequest hooks (the plugins below add theirs when the server starts), so the time it
  // counts includes the key check.
  const wait = opts.wait ?? ((ms: number, done: () => void) => setTimeout(done, ms));
  installTiming(app, { latency: opts.latency, slow: slowFaults(opts.faults ?? []), operationOf, random: opts.random, wait });

  // Contract schemas (the request layer may change them per operation).
  // biome-ignore lint/suspicious/noExplicitAny: an Ajv validate function is what Fastify calls; its declared result type is narrower than Ajv's
  app.setValidatorCompiler(({ schema, httpPart }) => compileFor(httpPart, schema as { $id?: string }) as any);
  // Request bodies are JSON only (spec 4.0), checked and parsed in body.ts.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json'], { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.register(requestLayer, { changes: on.request, store, wait });
  app.register(authentication, { apiKey: opts.apiKey, loosened: on.request.flatMap((c) => c.auth ?? []) });
  app.register(responseLayer, { changes: on.response });
  app.register(unmatchedRequests, { send: sendError });
  app.register(errorHandling, { send: sendError });
  app.register((routes, _opts, done) => {
    gateRoutes(routes, ctx);
    experimentRoutes(routes, ctx);
    overrideRoutes(routes, ctx);
    pipelineRoutes(routes, ctx);
    triggerRoutes(routes, ctx);
    metricRoutes(routes, ctx);
    done();
  });
  return app;
}
