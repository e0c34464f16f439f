// npm run bench:server -- [--scale N] [--requests N]
// Figures for issue 3, measured side by side in one run: requests per second of list-experiments
// page 1 at scale 100k against a bare node:http server answering the same bytes, and the latency of a
// deep page (page 1000, limit 100) against page 1. Loopback only; bounded request counts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { build } from '../app.ts';

const { values } = parseArgs({ options: { scale: { type: 'string' }, requests: { type: 'string' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log('usage: npm run bench:server -- [--scale 100000] [--requests 4000]');
  process.exit(0);
}
const scale = Number(values.scale ?? 100_000);
const total = Number(values.requests ?? 4000);
const KEY = 'bench-key-0123456789';
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http.get({ host: '127.0.0.1', port, path, agent, headers: { 'SERVICE-API-KEY': KEY } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`HTTP ${res.statusCode}`))));
    }).on('error', reject);
  });
}

/** Requests per second over `n` requests, 16 in flight. */
async function rps(port: number, path: string, n: number): Promise<number> {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: 16 }, async () => { while (next++ < n) await get(port, path); }));
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function median(port: number, path: string, n: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await get(port, path));
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

const t0 = Date.now();
const app = build({ apiKey: KEY, scale });
await app.ready();
console.log(`seeded ${scale} experiments in ${((Date.now() - t0) / 1000).toFixed(2)} s`);
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as AddressInfo).port;
const page1 = '/console/v1/experiments?limit=20&page=1';
const deep = '/console/v1/experiments?limit=100&page=1000';
const bytes = (await app.inject({ method: 'GET', url: page1, headers: { 'SERVICE-API-KEY': KEY } })).rawPayload;
const bare = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length }).end(bytes));
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const barePort = (bare.address() as AddressInfo).port;

await rps(port, page1, 300); // warm-up of both
await rps(barePort, page1, 300);
const ref = await rps(port, page1, total);
const raw = await rps(barePort, page1, total);
const p1 = await median(port, page1.replace('limit=20', 'limit=100'), 200);
const pDeep = await median(port, deep, 200);
console.log(`list experiments page 1 (limit 20, ${bytes.length} bytes): reference ${ref.toFixed(0)} req/s, bare node:http ${raw.toFixed(0)} req/s, ratio ${(ref / raw).toFixed(2)} (aim >= 0.5)`);
console.log(`latency median, limit 100: page 1 ${p1.toFixed(2)} ms, page 1000 ${pDeep.toFixed(2)} ms, ratio ${(pDeep / p1).toFixed(2)} (aim <= 3)`);
agent.destroy();
bare.close();
await app.close();
