// The side-by-side latency of `npm run candidate -- --latency` (the load runner, load/command/run-plan.ts) on real parts:
// two reference servers, the paging profile on Artillery, every request sent to both. A candidate
// whose list of experiments is twice as slow is found on that operation; the same build on both sides
// is not flagged. Outcomes only: the benchmark (npm run bench:candidate) measures how often.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { startReference, type ReferenceServer } from '../core/reference.ts';
import { pairedPlan } from '../load/command/plan.ts';
import { runPlan } from '../load/command/run-plan.ts';
import { latencyLines } from './report.ts';

/** The paired paging run's side-by-side verdict, as the load runner gives it. */
const latencyOf = async (o: Parameters<typeof pairedPlan>[0]) => (await runPlan(pairedPlan(o))).latency!;

/** Every file under `dir`, read as text. */
function allText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const f = join(dir, name);
    out += statSync(f).isDirectory() ? allText(f) : readFileSync(f, 'latin1');
  }
  return out;
}

async function paired(candidateFaults: string[]) {
  const servers: ReferenceServer[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'candidate-latency-'));
  try {
    // Network-like latency on both sides: loopback's fraction of a millisecond would be all HTTP stack.
    servers.push(await startReference({ latency: '10', stderr: 'ignore' }));
    servers.push(await startReference({ latency: '10', faults: candidateFaults, stderr: 'ignore' }));
    const [current, candidate] = servers;
    const latency = await latencyOf({
      current: { baseUrl: current.baseUrl, apiKey: current.apiKey },
      candidate: { baseUrl: candidate.baseUrl, apiKey: candidate.apiKey },
      profile: 'smoke',
      seconds: 6,
      minEffect: 0.1,
      reportDir: join(dir, 'candidate', 'latency'),
      reportsRoot: dir,
      manifestPath: join(ROOT, 'fixtures/targets/reference.json'),
      requestTimeoutMs: 15_000,
    });
    const written = allText(dir);
    for (const s of servers) assert.ok(!written.includes(s.apiKey), 'a key is in what the run wrote');
    return latency;
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a candidate twice as slow on listExperiments is found there, and only there', { timeout: 90_000 }, async () => {
  const l = await paired(['slow:listExperiments:100']);
  assert.equal(l.verdict, 'regression', latencyLines(l).join('\n'));
  assert.ok(l.requests.paired > 0 && l.requests.candidateFirst > 0 && l.requests.candidateFirst < l.requests.paired, 'both orders drawn');
  const slower = l.endpoints.filter((e) => e.regression).map((e) => e.endpoint);
  assert.deepEqual(slower, ['listExperiments']);
  assert.ok(l.calibration !== null);
  assert.match(latencyLines(l).join('\n'), /SLOWER +listExperiments: candidate median .* pairs\)/);
});

test('the same build on both sides: no latency regression', { timeout: 90_000 }, async () => {
  const l = await paired([]);
  assert.equal(l.verdict, 'pass', latencyLines(l).join('\n'));
  assert.deepEqual(
    l.endpoints.map((e) => e.endpoint),
    ['listExperiments', 'listReleasePipelines'],
  );
  assert.ok(
    l.endpoints.every((e) => e.decidable && e.n.current > 0),
    latencyLines(l).join('\n'),
  );
});
