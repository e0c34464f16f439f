// Real load runs at rates past smoke size against a reference server run apart (as a staging is: the
// manifest's budget bounds the writes, so past it concurrent arrivals update the same metrics): the
// mutation profile's checks hold whatever concurrent arrivals do, so a correct server is never exit 1;
// Artillery's own limit of failed virtual users (ensure.maxErrorRate) breaks when answers do; and a
// profile exported as a plain Artillery script runs on `artillery run` with the key from the environment.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ReferenceServer, startReference } from '../../core/reference.ts';
import type { RunSummary } from '../../core/formats.ts';
import { ARTILLERY_BIN } from '../artillery/run.ts';
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
  // Seconds on a quiet machine; a machine other work crushes (load average 30 on 2 cores) fires these arrivals slowly, and says so (exit 3).
  timeout: 240_000,
}, async () => {
  const reports = join(work, 'mutation');
  // Past the budget's 4 metrics every metrics arrival updates one of them, many at once.
  const shape = { config: { phases: [{ duration: 3, arrivalRate: 150, maxVusers: 2000 }] } };
  const r = await loadAgainst(server, ['mutation', '--overrides', JSON.stringify(shape)], reports);
  const summary = JSON.parse(readFileSync(join(reports, 'load/mutation/summary.json'), 'utf8')) as RunSummary;
  assert.deepEqual(summary.checks?.failed, [], r.out.slice(-3000));
  assert.ok((summary.endpoints['updateMetric.readBack']?.count ?? 0) > 20, `read-backs: ${summary.endpoints['updateMetric.readBack']?.count}`);
  // Delivered, it passes; a machine too busy to deliver 150/s says so (exit 3), never exit 1.
  assert.ok(r.code === 0 || (r.code === 3 && summary.delivery?.ok === false), r.out.slice(-2000));
});

interface ArtilleryJson {
  aggregate: { counters: Record<string, number>; summaries: Record<string, { count: number }> };
}

test("a request that failed fails its virtual user as Artillery's HTTP engine would: http.* and errors.* carry it, and ensure.maxErrorRate breaks (exit 2 naming it)", {
  timeout: 120_000,
}, async () => {
  const reports = join(work, 'errors');
  // One request in 150 answered 429 (a rate limiter): the network's, within the stress profile's budget of 1%, so no
  // check fails and the run is carried out; but each is a failed virtual user, and the limit allows none.
  const shape = {
    config: {
      phases: [{ duration: 5, arrivalRate: 40 }],
      ensure: { maxErrorRate: 0 },
      plugins: { 'metrics-by-endpoint': {} },
    },
  };
  const r = await spawnLoad(['paging', '--profile', 'stress', '--variant', 'steady-429:150:1', '--overrides', JSON.stringify(shape)], reports);
  const summary = JSON.parse(readFileSync(join(reports, 'load/paging/summary.json'), 'utf8')) as RunSummary;
  const a = JSON.parse(readFileSync(join(reports, 'load/paging/artillery.json'), 'utf8')) as ArtilleryJson;
  const c = a.aggregate.counters;
  const requests = Object.entries(summary.endpoints).reduce((n, [, e]) => n + e.count, 0);
  assert.equal(c['http.requests'], requests, "every request of the profile is one of Artillery's http.requests");
  assert.equal(c['http.responses'], requests, 'each answered');
  assert.ok((c['http.codes.200'] ?? 0) > 0 && (c['http.codes.429'] ?? 0) > 0, JSON.stringify(c));
  assert.equal(a.aggregate.summaries['http.response_time']?.count, requests);
  assert.equal(c['errors.console.rate-limited'], c['http.codes.429'], 'each 429 an error of its kind');
  assert.ok((c['vusers.failed'] ?? 0) >= 1 && c['vusers.failed'] <= c['http.codes.429'], `vusers.failed ${c['vusers.failed']}`);
  assert.equal(a.aggregate.summaries['plugins.metrics-by-endpoint.response_time.listExperiments.deep']?.count, summary.endpoints['listExperiments.deep'].count);
  assert.ok(
    Object.keys(c).some((k) => /^plugins\.metrics-by-endpoint\.[\w.]+\.codes\.429$/.test(k)),
    'the 429s by endpoint',
  );
  assert.equal(r.code, 2, r.out.slice(-3000));
  assert.match(r.out, /load: paging: limit broken: maxErrorRate < 0 \(exit 2\)/);
});

test('a fault that makes every 1000-override patch unexpected breaks ensure.maxErrorRate beside the failed check (exit 1: the contract first)', {
  timeout: 120_000,
}, async () => {
  const reports = join(work, 'fault');
  // Before, Artillery saw no failed virtual user here and printed "limit held: maxErrorRate < 0".
  const shape = { config: { phases: [{ duration: 4, arrivalRate: 10 }], ensure: { maxErrorRate: 0 } } };
  const r = await spawnLoad(['mutation', '--fault', 'overrides-1000-rejected', '--overrides', JSON.stringify(shape)], reports);
  assert.equal(r.code, 1, r.out.slice(-3000));
  assert.match(r.out, /LIMIT BROKEN: maxErrorRate < 0/);
  const c = (JSON.parse(readFileSync(join(reports, 'load/mutation/artillery.json'), 'utf8')) as ArtilleryJson).aggregate.counters;
  assert.ok((c['vusers.failed'] ?? 0) > 0, JSON.stringify(c));
});

test('--export writes a profile as a plain Artillery script that `artillery run` runs with the key from the environment, no key in its files', {
  timeout: 120_000,
}, async () => {
  const dir = join(work, 'export');
  const shape = { config: { phases: [{ duration: 2, arrivalRate: 5 }], ensure: { maxErrorRate: 0 } } };
  const ex = await loadAgainst(server, ['paging', '--export', dir, '--overrides', JSON.stringify(shape)], join(work, 'export-reports'));
  assert.equal(ex.code, 0, ex.out);
  assert.deepEqual(readdirSync(dir).sort(), ['paging.processor.mjs', 'paging.yml', 'setup-paging.json', 'shape-paging.json']);
  for (const f of readdirSync(dir)) assert.ok(!readFileSync(join(dir, f), 'latin1').includes(server.apiKey), `${f} holds no key`);
  // From another folder, as a team's own pipeline would run it.
  const run = spawnSync(process.execPath, [ARTILLERY_BIN, 'run', '--quiet', '--output', join(work, 'exported.json'), join(dir, 'paging.yml')], {
    cwd: work,
    env: { ...process.env, CONSOLE_API_KEY: server.apiKey, ARTILLERY_DISABLE_TELEMETRY: 'true' },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stdout.slice(-2000) + run.stderr.slice(-2000));
  const c = (JSON.parse(readFileSync(join(work, 'exported.json'), 'utf8')) as ArtilleryJson).aggregate.counters;
  assert.equal(c['vusers.created'], 10);
  assert.equal(c['vusers.failed'], 0);
  assert.ok((c['http.codes.200'] ?? 0) > 0 && c['http.requests'] === c['http.responses'], JSON.stringify(c));
});
