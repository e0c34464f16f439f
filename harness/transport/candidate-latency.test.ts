// The side-by-side latency of `npm run candidate -- --latency` with the candidate behind a misbehaving
// network: a candidate whose gateway answers instead of it cannot be timed, so its latency is not
// carried out (exit 3 in the command), never a pass drawn from the few pairs left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../core/config.ts';
import { startReference } from '../../core/reference.ts';
import { pairedPlan } from '../../load/command/plan.ts';
import { runPlan } from '../../load/command/run-plan.ts';
import { startProxy } from './proxy.ts';

/** The paired paging run's side-by-side verdict, as the load runner gives it. */
const latencyOf = async (o: Parameters<typeof pairedPlan>[0]) => (await runPlan(pairedPlan(o))).latency!;

test('a candidate whose gateway answers HTML 502s: its latency not carried out, naming the network', { timeout: 90_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'candidate-latency-network-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const current = await startReference({ latency: '10', stderr: 'ignore' });
  t.after(() => current.stop());
  const candidate = await startReference({ latency: '10', stderr: 'ignore' });
  t.after(() => candidate.stop());
  // Ten faithful answers (the run's first requests), then nginx's HTML 502 page to every request.
  const proxy = await startProxy({ upstream: candidate.baseUrl, scenario: 'html-502', after: 10 });
  t.after(() => proxy.stop());
  const l = await latencyOf({
    current: { baseUrl: current.baseUrl, apiKey: current.apiKey },
    candidate: { baseUrl: proxy.baseUrl, apiKey: candidate.apiKey },
    profile: 'smoke',
    seconds: 6,
    minEffect: 0.1,
    reportDir: join(dir, 'candidate', 'latency'),
    reportsRoot: dir,
    manifestPath: join(ROOT, 'fixtures/targets/reference.json'),
    requestTimeoutMs: 15_000,
  });
  assert.equal(l.verdict, 'not carried out', JSON.stringify(l.endpoints));
  assert.match(
    l.reason ?? '',
    /^paging: the candidate's network answered \d+ of its \d+ requests, not the candidate \(\d+ not-json; .*its latency cannot be measured$/,
  );
});
