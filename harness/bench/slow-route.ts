// A loopback proxy that makes one route slower, for the power benchmark (power.ts): every request
// whose path is the route's (or under it), with or without the key, answered `percent` slower than
// the upstream answered it: the time the upstream took, times percent/100, is waited before the
// answer goes back. That is what a gateway rule, a WAF or a route middleware in front of a handler
// does, and unlike the reference's slow: fault (which only requests reaching the handler feel) it
// slows a refusal on that route too. Other paths pass through as they are. Loopback only.
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SlowRouteOptions {
  upstream: string;
  /** The route's path, e.g. /console/v1/release_pipelines; its query and sub-paths are slowed too. */
  route: string;
  /** 0 forwards everything unchanged (the benchmark's unchanged runs go through the same hop). */
  percent: number;
}

export interface SlowRoute {
  baseUrl: string;
  stats: { requests: number; slowed: number };
  stop(): Promise<void>;
}

/** Whether `url` (path and query) is on the route. */
export function onRoute(url: string, route: string): boolean {
  const path = url.split('?')[0];
  return path === route || path.startsWith(route.endsWith('/') ? route : `${route}/`);
}

export async function startSlowRoute(o: SlowRouteOptions): Promise<SlowRoute> {
  const stats = { requests: 0, slowed: 0 };
  const sockets = new Set<Socket>();
  // Kept-alive connections upstream, as a gateway keeps them: the hop costs every request alike.
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const upstream = new URL(o.upstream);
  const timers = new Set<NodeJS.Timeout>();

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const slow = o.percent > 0 && onRoute(req.url ?? '/', o.route);
    const started = process.hrtime.bigint();
    const up = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host }, agent },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c) => chunks.push(c));
        answer.on('end', () => {
          const send = () => res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
          if (!slow) return send();
          stats.slowed++;
          const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
          const t = setTimeout(
            () => {
              timers.delete(t);
              send();
            },
            (tookMs * o.percent) / 100,
          );
          timers.add(t);
        });
        answer.on('error', () => res.socket?.destroy());
      },
    );
    up.on('error', () => res.socket?.destroy());
    up.end(body);
  };

  const server = createServer((req, res) => {
    stats.requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    stop: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
