import http from 'node:http';
import inspector from 'node:inspector/promises';
import fs from 'node:fs';
import { build } from '../app.ts';
const app = build({ apiKey: 'k', scale: 100000 });
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as any).port;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const get = () => new Promise<void>((r, j) => http.get({ host: '127.0.0.1', port, path: '/console/v1/experiments?limit=20&page=1', agent, headers: { 'SERVICE-API-KEY': 'k' } }, (res) => { res.resume(); res.on('end', () => r()); }).on('error', j));
async function run(n: number) { let i = 0; await Promise.all(Array.from({ length: 16 }, async () => { while (i++ < n) await get(); })); }
await run(3000);
const s = new inspector.Session(); s.connect();
await s.post('Profiler.enable'); await s.post('Profiler.start');
const t = Date.now(); await run(20000); console.log('rps', 20000 / ((Date.now() - t) / 1000));
const { profile } = await s.post('Profiler.stop');
fs.writeFileSync('/tmp/prof/req.cpuprofile', JSON.stringify(profile));
agent.destroy(); await app.close();
