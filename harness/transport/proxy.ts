// A misbehaving proxy for the transport benchmark and its tests: an HTTP server on 127.0.0.1 in front
// of a real target (the reference server), that answers the preflight and the first `after` requests
// faithfully and then misbehaves the way real networks and front ends do. Loopback only; stop() ends
// every connection it holds (a hanging one included).
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const SCENARIOS = ['down', 'hang', 'reset', 'flaky-reset', 'html-502', 'truncated', 'rate-limit', 'redirect', 'login-page', 'huge-body'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface ProxyOptions {
  upstream: string;
  scenario: Scenario;
  /** Requests answered faithfully first (the preflight is the first of them). */
  after: number;
}

export interface Proxy {
  baseUrl: string;
  /** Requests seen, and how many of them reached the other origin a redirect points to with the key on them. */
  stats: { requests: number; misbehaved: number; keyElsewhere: number; elsewhere: number };
  stop(): Promise<void>;
}

const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';
const LOGIN =
  '<!doctype html><html><head><title>Sign in</title></head><body><form method="post" action="/login"><input name="user"><input name="password" type="password"><button>Sign in</button></form></body></html>';
const HUGE_BYTES = 50 * 1024 * 1024;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** Forwards one request upstream; `onAnswer` gets the upstream status, headers and whole body. */
function forward(
  upstream: string,
  req: IncomingMessage,
  body: Buffer,
  onAnswer: (status: number, headers: Record<string, string | string[] | undefined>, bytes: Buffer) => void,
  onError: () => void,
): void {
  const up = httpRequest(upstream + req.url, { method: req.method, headers: { ...req.headers, host: new URL(upstream).host } }, (res) => {
    const chunks: Buffer[] = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => onAnswer(res.statusCode ?? 502, res.headers, Buffer.concat(chunks)));
    res.on('error', onError);
  });
  up.on('error', onError);
  up.end(body);
}

export async function startProxy(opts: ProxyOptions): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const stats = { requests: 0, misbehaved: 0, keyElsewhere: 0, elsewhere: 0 };
  // The other origin a redirect points to: it records whether the key came along.
  const elsewhere = createServer((req, res) => {
    stats.elsewhere++;
    if (req.headers['service-api-key'] !== undefined) stats.keyElsewhere++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  const elsewhereUrl = await listen(elsewhere);

  const faithful = (req: IncomingMessage, res: ServerResponse, body: Buffer) =>
    forward(
      opts.upstream,
      req,
      body,
      (status, headers, bytes) => res.writeHead(status, headers).end(bytes),
      () => res.socket?.destroy(),
    );

  const misbehave = (req: IncomingMessage, res: ServerResponse, body: Buffer, n: number): void => {
    switch (opts.scenario) {
      case 'down':
        // Nothing listens any more: this request's connection is cut and new ones are refused.
        server.close();
        for (const s of sockets) s.destroy();
        return;
      case 'hang':
        return; // never answered; stop() ends the connection
      case 'reset':
        res.socket?.destroy();
        return;
      case 'flaky-reset':
        // Every third request is cut: reads recover by retrying, a write that loses its answer is inconclusive.
        if (n % 3 === 0) res.socket?.destroy();
        else faithful(req, res, body);
        return;
      case 'html-502':
        res.writeHead(502, { 'content-type': 'text/html', server: 'nginx/1.25.3' }).end(NGINX_502);
        return;
      case 'truncated':
        forward(
          opts.upstream,
          req,
          body,
          (status, headers, bytes) => {
            // Announces the whole body, sends half of it, and hangs up.
            const whole: Record<string, string | string[] | undefined> = { ...headers, 'content-length': String(bytes.length) };
            delete whole['transfer-encoding'];
            res.writeHead(status, whole);
            res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
            setTimeout(() => res.socket?.destroy(), 10);
          },
          () => res.socket?.destroy(),
        );
        return;
      case 'rate-limit':
        // A burst of six 429s with Retry-After: 1, then faithful again: the suite waits them out.
        if (n <= 6) res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"message":"Too Many Requests"}');
        else faithful(req, res, body);
        return;
      case 'redirect':
        res.writeHead(301, { location: `${elsewhereUrl}${req.url}`, 'content-type': 'text/html' }).end('<html>Moved Permanently</html>');
        return;
      case 'login-page':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(LOGIN);
        return;
      case 'huge-body': {
        // 50 MB of well-formed JSON: only its size says it is not a page of the Console API.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE_BYTES) });
        const filler = Buffer.alloc(1024 * 1024, 0x20);
        res.write('{"data":[],"pad":"');
        for (let i = 0; i < 49; i++) res.write(filler);
        const rest = HUGE_BYTES - 18 - 49 * filler.length - 2;
        res.end(Buffer.concat([Buffer.alloc(rest, 0x20), Buffer.from('"}')]));
        return;
      }
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const n = ++stats.requests;
      const body = Buffer.concat(chunks);
      if (n <= opts.after) return faithful(req, res, body);
      stats.misbehaved++;
      misbehave(req, res, body, n - opts.after);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const baseUrl = await listen(server);
  return {
    baseUrl,
    stats,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([server, elsewhere].map((x) => new Promise<void>((done) => (x.listening ? x.close(() => done()) : done()))));
      elsewhere.closeAllConnections();
    },
  };
}
