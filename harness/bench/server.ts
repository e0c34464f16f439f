// npm run bench:server -- [--scale N] [--requests N] [--rounds N]
// Figures measured side by side in one run: requests per second of list-experiments
// page 1 at scale 100k against a bare node:http server answering the same bytes (and, to show the
// framework's own share, a plain Fastify route answering the same bytes), and the latency of a deep
// page (page 1000, limit 100) against page 1. Loopback only; bounded request counts. The servers
// take turns round by round and the median round counts, so a noisy moment hits all of them alike.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { fail, parseCommand, integerOption } from '../../core/command.ts';
import { median } from '../../core/quantile.ts';
import { build } from '../../reference/app.ts';

const HELP = `usage: npm run bench:server -- [--scale 100000] [--requests 2000] [--rounds 5]

  --scale N      experiments to seed (default 100000)
  --requests N   requests per server per round (default 2000), 16 in flight on keep-alive sockets
  --rounds N     rounds; each server's median round is reported (default 5)
  -h, --help     this text

Environment: none read; the reference server is built in this process on a random loopback port.
Exit 0 measured (the figures are printed, not judged), 3 bad arguments.`;

const { values } = parseCommand({
  name: 'bench:server',
  help: HELP,
  options: { scale: { type: 'string' }, requests: { type: 'string' }, rounds: { type: 'string' } },
});
const scale = integerOption('bench:server', '--scale', values.scale, { min: 1, fallback: 100_000 });
const requests = integerOption('bench:server', '--requests', values.requests, { min: 1, fallback: 2000 });
const rounds = integerOption('bench:server', '--rounds', values.rounds, { min: 1, fallback: 5 });
const KEY = 'bench-key-0123456789';
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http
      .get({ host: '127.0.0.1', port, path, agent, headers: { 'SERVICE-API-KEY': KEY } }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`HTTP ${res.statusCode} from ${path}`)),
        );
      })
      .on('error', reject);
  });
}

/** Requests per second over `n` requests, 16 in flight. */
async function rps(port: number, path: string, n: number): Promise<number> {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < n) await get(port, path);
    }),
  );
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const t0 = Date.now();
const app = build({ apiKey: KEY, scale });
await app.ready();
console.log(`seeded ${scale} experiments in ${((Date.now() - t0) / 1000).toFixed(2)} s`);
await app.listen({ port: 0, host: '127.0.0.1' });
const page1 = '/console/v1/experiments?limit=20&page=1';
const bytes = (await app.inject({ method: 'GET', url: page1, headers: { 'SERVICE-API-KEY': KEY } })).rawPayload;
const bare = http.createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length }).end(bytes),
);
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const plain = Fastify();
plain.get('/console/v1/experiments', (_req, reply) => {
  reply.type('application/json; charset=utf-8').send(bytes);
});
await plain.listen({ port: 0, host: '127.0.0.1' });
const port = (s: http.Server) => (s.address() as AddressInfo).port;
const servers = [
  ['reference', port(app.server)],
  ['plain Fastify', port(plain.server)],
  ['bare node:http', port(bare)],
] as const;

const results = new Map<string, number[]>(servers.map(([name]) => [name, []]));
for (const [, p] of servers) await rps(p, page1, 300); // warm-up
for (let round = 0; round < rounds; round++) for (const [name, p] of servers) results.get(name)!.push(await rps(p, page1, requests));
const ref = median(results.get('reference')!);
const fw = median(results.get('plain Fastify')!);
const raw = median(results.get('bare node:http')!);
console.log(`list experiments page 1 (limit 20, ${bytes.length} bytes), median of ${rounds} rounds x ${requests} requests:`);
console.log(`  reference ${ref.toFixed(0)} req/s, plain Fastify same bytes ${fw.toFixed(0)} req/s, bare node:http same bytes ${raw.toFixed(0)} req/s`);
console.log(`  ratio reference / bare node:http ${(ref / raw).toFixed(2)} (aim >= 0.5); plain Fastify / bare ${(fw / raw).toFixed(2)}`);

async function latency(path: string, n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await get(port(app.server), path));
  return median(xs);
}
const p1 = await latency('/console/v1/experiments?limit=100&page=1', 300);
const pDeep = await latency('/console/v1/experiments?limit=100&page=1000', 300);
console.log(
  `latency median of 300 sequential requests, limit 100: page 1 ${p1.toFixed(2)} ms, page 1000 ${pDeep.toFixed(2)} ms, ratio ${(pDeep / p1).toFixed(2)} (aim <= 3)`,
);
agent.destroy();
bare.close();
await plain.close();
await app.close();
