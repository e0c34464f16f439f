// Servers started in a warm host process are as fresh as servers started each in a process of their
// own: a new store each time (a copy of the seeded data), the switches of each start alone, and a start
// that fails leaves the host usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHosted, stopHosts } from './reference-host.ts';

const createMetric = (baseUrl: string, apiKey: string) =>
  fetch(`${baseUrl}/console/v1/metrics`, {
    method: 'POST',
    headers: { 'SERVICE-API-KEY': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'host_fresh_store', type: 'sum' }),
  });

const firstPage = async (baseUrl: string, apiKey: string) =>
  (await (await fetch(`${baseUrl}/console/v1/experiments?limit=100`, { headers: { 'SERVICE-API-KEY': apiKey } })).json()) as { data: unknown[] };

test('a host builds each server anew: a fresh store, its own key and switches, and a failed start leaves it usable', async () => {
  const first = await startHosted();
  const seeded = await firstPage(first.baseUrl, first.apiKey);
  assert.equal((await createMetric(first.baseUrl, first.apiKey)).status, 200);
  assert.equal((await createMetric(first.baseUrl, first.apiKey)).status, 409, 'the same store within one server');
  await first.stop();

  await assert.rejects(startHosted({ faults: ['no-such-fault'] }), /reference server did not start/);

  const second = await startHosted({ faults: ['auth-any-key'] });
  assert.notEqual(second.apiKey, first.apiKey);
  assert.equal((await createMetric(second.baseUrl, second.apiKey)).status, 200, 'the second server has a store of its own');
  assert.equal((await createMetric(second.baseUrl, 'wrong')).status, 409, 'the fault of this start (any key accepted) is on');
  await second.stop();

  const third = await startHosted();
  assert.equal((await createMetric(third.baseUrl, 'wrong')).status, 401, 'the fault of the previous start is gone');
  // Each store is a copy of the seeded data (seeded once per size in the host): the same seeded list as
  // the first server's; what the first wrote is not in it (the second's create above answered 200).
  assert.equal(seeded.data.length, 100);
  assert.deepEqual(await firstPage(third.baseUrl, third.apiKey), seeded);
  await third.stop();
  await stopHosts();
});
