// build(options) -> a Fastify instance of the reference server, without opening a port (tests use
// inject()). The CLI (cli.ts) listens on it.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Ctx } from './context.ts';
import { parseJsonBody } from './body.ts';
import { HttpError, errorBody } from './errors.ts';
import { checkSwitches, type FaultName, faultSchema, isFault, isVariant, slowFaults } from './faults.ts';
import { installTiming, type Latency } from './latency.ts';
import { SHAPE_VARIANTS, shapeResponse } from './shapes.ts';
import { OPERATIONS as CONTRACT_OPERATIONS } from '../contracts/index.ts';
import { compileFor, operation } from './schemas.ts';
import { openDb } from './store/db.ts';
import { seed } from './store/seed.ts';
import { gateRoutes } from './routes/gates.ts';
import { experimentRoutes } from './routes/experiments.ts';
import { overrideRoutes } from './routes/overrides.ts';
import { pipelineRoutes } from './routes/pipelines.ts';
import { triggerRoutes } from './routes/triggers.ts';
import { metricRoutes } from './routes/metrics.ts';

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
  /** Network-like latency added to every response (reference/latency.ts); none by default. */
  latency?: Latency;
  /** The uniform generator of the latency draws (default Math.random); tests give a seeded one. */
  random?: () => number;
  /** Waits before a response (default setTimeout); tests record the waits instead of waiting. */
  wait?: (ms: number, done: () => void) => void;
}

/** Largest accepted request body: 1000 overrides fit many times over; beyond it 413. */
export const BODY_LIMIT = 2 * 1024 * 1024;
export const DEFAULT_SCALE = 200;
/** Longest path parameter (an id) accepted; longer is 414. */
export const MAX_PARAM_LENGTH = 512;

/** Every operation of the contract (routes/ serves each). */
const OPERATIONS = Object.keys(CONTRACT_OPERATIONS);
const fastifyPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');
const OPERATION_BY_ROUTE = new Map(OPERATIONS.map((id) => [`${operation(id).method} ${fastifyPath(operation(id).path)}`, id]));
/** Each path of the contract as a pattern over the raw request path, with the methods it declares. */
const PATH_METHODS = [...new Set(OPERATIONS.map((id) => operation(id).path))].map((path) => ({
  pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
  allow: OPERATIONS.filter((id) => operation(id).path === path)
    .map((id) => operation(id).method)
    .join(', '),
}));

/** The methods declared for a request path, or undefined when the contract has no such path. */
export function allowedMethods(url: string): string | undefined {
  const path = url.split('?')[0];
  return PATH_METHODS.find((p) => p.pattern.test(path))?.allow;
}

/** The URL with the value of any SERVICE-API-KEY query parameter replaced. */
export const redactUrl = (url: string) => url.replace(/([?&]SERVICE-API-KEY=)[^&#]*/gi, '$1[redacted]');

const digest = (s: string) => hash('sha256', s, 'buffer');

export function build(opts: BuildOptions): FastifyInstance {
  const problem = checkSwitches(opts.faults ?? [], opts.variants ?? []);
  if (problem) throw new Error(problem);
  if (!opts.apiKey) throw new Error('an API key is required');
  // checkSwitches refused any unknown name above, so the filters keep every name and only narrow the type.
  const faults = new Set((opts.faults ?? []).filter(isFault));
  const variants = new Set((opts.variants ?? []).filter(isVariant));
  const db = openDb(opts.db ?? ':memory:');
  seed(db, { seed: opts.seed ?? 1, scale: opts.scale ?? DEFAULT_SCALE });
  const ctx: Ctx = {
    db,
    fault: (n) => faults.has(n),
    variant: (n) => variants.has(n),
    now: opts.now ?? Date.now,
    pristine: faults.size === 0 && variants.size === 0,
  };

  // Every error leaves through here: the one error shape, RFC 9457's under the variant errors-problem-json,
  // or one line of plain text under errors-plain-text (a framework's default, e.g. Go's "404 page not found").
  const sendError = (reply: FastifyReply, status: number, text: string) =>
    variants.has('errors-problem-json')
      ? reply
          .code(status)
          .type('application/problem+json')
          .send({ type: 'about:blank', title: errorBody(status, text).error, status, detail: text.split('\n')[0] })
      : variants.has('errors-plain-text')
        ? reply
            .code(status)
            .type('text/plain; charset=utf-8')
            .send(`${status} ${text.split('\n')[0]}\n`)
        : reply.code(status).send(errorBody(status, text));

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
    // Metric ids are `<name>::<type>` with names up to 200 characters (spec 4.6); the default
    // limit of 100 would turn a long-named metric's update into an error.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    // Errors the router raises before any route or hook runs (a URL that does not decode, an id
    // over the limit): in the one error shape too, not Fastify's own.
    frameworkErrors: (err, _req, reply) => {
      const status: 400 | 414 = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      sendError(reply as FastifyReply, status, status === 414 ? `a path parameter is longer than ${MAX_PARAM_LENGTH} characters` : 'the URL does not decode');
    },
  });
  app.decorate('db', db);
  app.addHook('onClose', async () => db.close());
  // First of the onRequest hooks, so the time it counts includes the key check.
  installTiming(app, {
    latency: opts.latency,
    slow: slowFaults(opts.faults ?? []),
    operationOf: (req) => OPERATION_BY_ROUTE.get(`${req.method} ${req.routeOptions.url}`),
    random: opts.random,
    wait: opts.wait,
  });

  // Contract schemas, with the schema-level faults applied when the self-test asks for them.
  app.setValidatorCompiler(({ schema, httpPart }) => compileFor(httpPart, schema as { $id?: string }) as any);
  app.addHook('onRoute', (route) => {
    const id = OPERATION_BY_ROUTE.get(`${route.method} ${route.url}`);
    if (!id || !route.schema || faults.size === 0) return;
    const s = route.schema as Record<string, any>;
    for (const part of ['body', 'querystring', 'params'] as const) if (s[part]) s[part] = faultSchema(id, part, s[part], faults);
  });

  // Request bodies are JSON only (spec 4.0), checked and parsed in body.ts.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json'], { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  const expected = digest(opts.apiKey);
  // Faults that forget the key check on one operation only (a route without the hook, in a real server).
  const OPEN_WITHOUT_KEY: [FaultName, string][] = [
    ['auth-skip-no-key', 'PUT /console/v1/release_pipeline_triggers/:id/skip'],
    ['auth-unpause-no-key', 'PUT /console/v1/release_pipeline_triggers/:id/unpause'],
    ['auth-update-metric-no-key', 'POST /console/v1/metrics/:id'],
  ];
  // A callback hook, not an async one: it runs on every request, and a promise per request is a
  // measurable share of a fast list call (npm run bench:server).
  app.addHook('onRequest', (req, _reply, done) => {
    if (faults.has('auth-missing-key-ok')) return done();
    let key = req.headers['service-api-key'];
    if (key === undefined && OPEN_WITHOUT_KEY.some(([fault, route]) => faults.has(fault) && route === `${req.method} ${req.routeOptions.url}`)) return done();
    if (faults.has('auth-query-key-ok') && key === undefined) key = (req.query as Record<string, string>)['SERVICE-API-KEY'];
    if (faults.has('auth-query-api-key-ok') && key === undefined)
      key = (req.query as Record<string, string>).api_key ?? (req.query as Record<string, string>).key;
    // The body is not parsed yet: a request without a key is let through to preValidation, which looks there.
    if (faults.has('auth-body-key-ok') && key === undefined) return done();
    // Constant-time: compare fixed-length digests, so neither content nor length leaks through timing.
    const ok = typeof key === 'string' && timingSafeEqual(digest(key), expected);
    if (!ok && !faults.has('auth-any-key')) {
      return done(
        new HttpError(variants.has('unauthorized-403') ? 403 : 401, key === undefined ? 'SERVICE-API-KEY header is required' : 'SERVICE-API-KEY is not valid'),
      );
    }
    done();
  });

  if (faults.has('auth-body-key-ok')) {
    app.addHook('preValidation', (req, _reply, done) => {
      if (req.headers['service-api-key'] !== undefined) return done();
      const b = req.body as Record<string, unknown> | undefined;
      if (b && typeof b === 'object' && typeof b.apiKey === 'string' && timingSafeEqual(digest(b.apiKey), expected)) {
        delete b.apiKey;
        return done();
      }
      done(new HttpError(variants.has('unauthorized-403') ? 403 : 401, 'SERVICE-API-KEY header is required'));
    });
  }

  if (variants.has('extra-response-fields')) {
    app.addHook('preSerialization', async (_req, _reply, payload: any) =>
      payload && typeof payload === 'object' && 'message' in payload ? { ...payload, requestId: randomBytes(6).toString('hex') } : payload,
    );
  }

  // Vendor-shaped variants (reference/shapes.ts): success bodies reshaped as real servers send them.
  if (SHAPE_VARIANTS.some((v) => variants.has(v))) {
    app.addHook('preSerialization', async (req, reply, payload: unknown) => {
      const id = OPERATION_BY_ROUTE.get(`${req.method} ${req.routeOptions.url}`);
      return id && reply.statusCode < 300 ? shapeResponse(id, payload, req.body, (n) => variants.has(n)) : payload;
    });
  }

  // A path of the contract with a method it does not declare is 405 with Allow (RFC 9110, 15.5.6),
  // answered here, after the key and before any body handling (a method such as QUERY without a
  // content type would otherwise be a 400); any other path is 404. Fastify answers HEAD for GET routes.
  app.addHook('onRequest', (req, reply, done) => {
    const allow = req.is404 ? allowedMethods(req.url) : undefined;
    if (!allow) return done();
    sendError(reply.header('allow', allow), 405, `${req.method} is not allowed on ${req.url.split('?')[0]}; allowed: ${allow}`);
  });
  app.setNotFoundHandler((req, reply) => {
    sendError(reply, 404, `no operation ${req.method} ${req.url.split('?')[0]}`);
  });

  app.setErrorHandler((err: any, req, reply) => {
    let status: number = err instanceof HttpError ? err.status : typeof err.statusCode === 'number' ? err.statusCode : 500;
    let message: string = err.message ?? 'error';
    if (err.validation) {
      status = 400;
      message = `invalid ${err.validationContext ?? 'request'}: ${err.validation.map((v: any) => `${v.instancePath || '/'} ${v.message}`).join('; ')}`;
      if (faults.has('validation-500')) status = 500;
    }
    if (status < 400 || status > 599) status = 500;
    if (status >= 500) req.log.error({ err }, 'unexpected error');
    if (variants.has('errors-422-other-shape') && status === 400) {
      return reply.code(422).send({ errors: [{ path: err.validation?.[0]?.instancePath ?? '', detail: message }] });
    }
    sendError(reply, status, status >= 500 && !faults.has('validation-500') ? 'internal error' : message);
  });

  gateRoutes(app, ctx);
  experimentRoutes(app, ctx);
  overrideRoutes(app, ctx);
  pipelineRoutes(app, ctx);
  triggerRoutes(app, ctx);
  metricRoutes(app, ctx);
  return app;
}
