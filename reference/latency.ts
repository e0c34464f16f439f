// Network-like latency (--latency) and the slow: fault, for measuring the load compare. On loopback the
// reference answers in about a millisecond, so a change of a few tenths of a millisecond is lost in
// scheduling noise and a real network's spread is absent: with --latency every response waits a
// log-normal time around a median, as a remote server's would, and `slow:<operationId>:<percent>`
// makes one operation's total time (that wait plus the handler's own time) larger by a known fraction.
// Both act in hooks registered only when one of them is on, so the plain server is unchanged.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SlowFault } from './faults.ts';

export interface Latency {
  /** The median of the added wait, ms. */
  medianMs: number;
  /** The standard deviation of the wait's logarithm (0.25: about half of the waits within 0.85x-1.18x of the median). */
  spread: number;
}

export const DEFAULT_SPREAD = 0.25;

/** `<median-ms>[:<spread>]` as a Latency, or the one-line reason it is not one. */
export function parseLatency(text: string): Latency | string {
  const m = /^([^:]+)(?::([^:]+))?$/.exec(text.trim());
  const medianMs = Number(m?.[1]);
  const spread = m?.[2] === undefined ? DEFAULT_SPREAD : Number(m[2]);
  if (!m || !Number.isFinite(medianMs) || medianMs < 0 || medianMs > 60_000)
    return `--latency must be <median-ms>[:<spread>] with a median from 0 to 60000, got ${JSON.stringify(text)}`;
  if (!Number.isFinite(spread) || spread < 0 || spread > 3) return `--latency spread must be a number from 0 to 3, got ${JSON.stringify(m[2])}`;
  return { medianMs, spread };
}

/** A standard normal draw from uniform draws (Box-Muller; 1 - u keeps the logarithm away from 0). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Draws waits in ms: median * exp(spread * Z), Z standard normal, so the median of the draws is the median asked for. */
export function latencyDraw(l: Latency, random: () => number = Math.random): () => number {
  return () => l.medianMs * Math.exp(l.spread * normal(random));
}

/**
 * The wait before a response goes out. `handlerMs` is the time from the request's arrival to its
 * response being ready; `factor` is 1, or 1 + percent/100 for a slowed operation: the whole time
 * (injected wait plus handler time) is scaled, so the slowdown is of the time a client sees.
 */
export function delayFor(injectedMs: number, handlerMs: number, factor: number): number {
  return Math.max(0, (injectedMs + handlerMs) * factor - handlerMs);
}

export interface TimingOptions {
  latency?: Latency;
  slow: SlowFault[];
  /** The operationId a request was routed to (undefined: no operation of the contract). */
  operationOf(req: FastifyRequest): string | undefined;
  random?: () => number;
  /** Waits `ms` then calls `done` (default setTimeout); tests record the waits instead. */
  wait?(ms: number, done: () => void): void;
}

/**
 * Registers the hooks; call it before any other onRequest hook, so that the time counted includes
 * the key check and a refused request waits too (a remote server's 401 crosses the same network).
 * The slowdown applies only to requests that reached their operation's handler: a slower handler
 * does not make the key check slower, and the load profiles' calibration request is a refused one.
 */
export function installTiming(app: FastifyInstance, o: TimingOptions): void {
  if (!o.latency && o.slow.length === 0) return;
  const draw = o.latency ? latencyDraw(o.latency, o.random) : () => 0;
  const factors = new Map(o.slow.map((s) => [s.operationId, 1 + s.percent / 100]));
  const wait = o.wait ?? ((ms: number, done: () => void) => setTimeout(done, ms));
  const started = new WeakMap<FastifyRequest, number>();
  const handled = new WeakSet<FastifyRequest>();
  app.addHook('onRequest', (req, _reply, done) => {
    started.set(req, performance.now());
    done();
  });
  if (factors.size > 0) {
    app.addHook('preHandler', (req, _reply, done) => {
      handled.add(req);
      done();
    });
  }
  app.addHook('onSend', (req, _reply, payload, done) => {
    const t0 = started.get(req);
    const handlerMs = t0 === undefined ? 0 : performance.now() - t0;
    const id = handled.has(req) ? o.operationOf(req) : undefined;
    const ms = delayFor(draw(), handlerMs, (id && factors.get(id)) || 1);
    if (ms <= 0) return done(null, payload);
    wait(ms, () => done(null, payload));
  });
}
