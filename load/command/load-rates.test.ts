// Real load runs at rates past smoke size against a reference server run apart (as a staging is: the
// manifest's budget bounds the writes, so past it concurrent arrivals update the same metrics): the
// mutation profile's checks hold whatever concurrent arrivals do, so a correct server is never exit 1;
// and Artillery's own limit of failed virtual users (ensure.maxErrorRate) breaks when answers do.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReference } from '../../core/reference.ts';
import type { RunSummary } from '../../core/formats.ts';
import { spawnLoad } from './spawn-load.ts';

const work = mkdtempSync(join(tmpdir(), 'cc-load-rates-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** `npm run load:<args>` against `server`, as against any target. */
function loadAgainst(server: ReferenceServer, args: string[], reports: string) {
  return spawnLoad(args, reports, { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey });
}

let server: ReferenceServer;
before(async () => {
  server = await startReference({ stderr: 'ignore' });
});
after(() => server.stop());

test('mutation at 150 arrivals a second against a correct server run apart: no check fails, whatever concurrent arrivals do (never exit 1)', {
  timeout: 120_000,
}, async () => {
  const reports = join(work, 'mutation');
  // Past the budget's 4 metrics every metrics arrival updates one of them, many at once.
  const shape = { config: { phases: [{ duration: 4, arrivalRate: 150, maxVusers: 2000 }] } };
  const r = await loadAgainst(server, ['mutation', '--overrides', JSON.stringify(shape)], reports);
  const summary = JSON.parse(readFileSync(join(reports, 'load/mutation/summary.json'), 'utf8')) as RunSummary;
  assert.deepEqual(summary.checks?.failed, [], r.out.slice(-3000));
  assert.ok((summary.endpoints['updateMetric.readBack']?.count ?? 0) > 20, `read-backs: ${summary.endpoints['updateMetric.readBack']?.count}`);
  // Delivered, it passes; a machine too busy to deliver 150/s says so (exit 3), never exit 1.
  assert.ok(r.code === 0 || (r.code === 3 && summary.delivery?.ok === false), r.out.slice(-2000));
});
