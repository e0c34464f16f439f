// The benchmark's route slowdown: every request on the route is held back by the share of the
// upstream's own time, the key or not; other paths are not.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { onRoute, startSlowRoute } from './slow-route.ts';

test('onRoute: the path and what is under it, whatever the query', () => {
  assert.equal(onRoute('/console/v1/release_pipelines?limit=1', '/console/v1/release_pipelines'), true);
  assert.equal(onRoute('/console/v1/release_pipelines/p1', '/console/v1/release_pipelines'), true);
  assert.equal(onRoute('/console/v1/release_pipelinesx', '/console/v1/release_pipelines'), false);
  assert.equal(onRoute('/console/v1/console-conformance/calibration', '/console/v1/release_pipelines'), false);
});

test('requests on the route are answered 50% later than the upstream answered, with or without the key; others are not held', async () => {
  // The upstream takes 40 ms for every request and says whether it saw a key.
  const upstream = createServer((req, res) => setTimeout(() => res.writeHead(req.headers['service-api-key'] ? 200 : 401).end('{}'), 40));
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const proxy = await startSlowRoute({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    route: '/console/v1/release_pipelines',
    percent: 50,
  });
  try {
    const timed = async (path: string, key?: string) => {
      const t0 = performance.now();
      const res = await fetch(proxy.baseUrl + path, { headers: key ? { 'SERVICE-API-KEY': key } : {} });
      await res.text();
      return { status: res.status, ms: performance.now() - t0 };
    };
    const keyed = await timed('/console/v1/release_pipelines?limit=1', 'k');
    const refused = await timed('/console/v1/release_pipelines?limit=1');
    assert.equal(keyed.status, 200);
    assert.equal(refused.status, 401);
    // 40 ms upstream, then 20 ms held: a lower bound, whatever else the machine is doing.
    for (const r of [keyed, refused]) assert.ok(r.ms >= 59, `${r.ms} ms`);
    const other = await timed('/console/v1/console-conformance/calibration');
    assert.equal(other.status, 401);
    assert.deepEqual(proxy.stats, { requests: 3, slowed: 2 });
  } finally {
    await proxy.stop();
    upstream.close();
  }
});
