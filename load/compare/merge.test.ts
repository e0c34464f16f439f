// The merge of several runners' summaries: exact where the runners keep their duration histograms
// (checked on known distributions against the pooled durations), thresholds judged again on the
// merged figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Figures, RunSummary } from '../../core/formats.ts';
import { compareSummary } from './baseline.ts';
import { holds, mergedExit, mergeSummaries, type RunnerSummary } from './merge.ts';
import { histogramOf, type RunSamples } from './samples.ts';
import { quantile, seededRandom } from './stats.ts';
import { emptyWrites } from '../lib/writes.ts';

/** What a run reports of one endpoint, computed exactly from its durations. */
function figures(durations: number[], seconds: number, errorRate = 0): Figures {
  const sum = durations.reduce((a, b) => a + b, 0);
  return {
    p50: quantile(durations, 0.5),
    p95: quantile(durations, 0.95),
    p99: quantile(durations, 0.99),
    avg: sum / durations.length,
    max: Math.max(...durations),
    count: durations.length,
    rps: durations.length / seconds,
    errorRate,
  };
}

/** A runner's summary of endpoints with known durations, its histograms kept as load:* keeps them. */
function runner(durations: Record<string, number[]>, extra: Partial<RunnerSummary> = {}, seconds = 60): RunnerSummary {
  const samples: RunSamples = {
    format: 'console-conformance.duration-histograms/1',
    endpoints: Object.fromEntries(Object.entries(durations).map(([k, v]) => [k, histogramOf(v)])),
  };
  return {
    format: 'console-conformance.load-summary/1',
    script: 'paging',
    profile: 'baseline',
    durationMs: seconds * 1000,
    endpoints: Object.fromEntries(Object.entries(durations).map(([k, v]) => [k, figures(v, seconds)])),
    samples,
    ...extra,
  };
}

const uniform = (n: number, lo: number, hi: number, seed: number) => {
  const r = seededRandom(seed);
  return Array.from({ length: n }, () => lo + (hi - lo) * r());
};

test('runners that see different latencies merge to the percentiles of all their requests, not to the mean of theirs', () => {
  // A runner on a quiet node (1-100 ms) and one on a busy node (100-200 ms), 1000 requests each.
  const fast = uniform(1000, 1, 100, 1);
  const slow = uniform(1000, 100, 200, 2);
  const a = runner({ e: fast });
  const b = runner({ e: slow });
  const m = mergeSummaries([a, b]);
  const pooled = [...fast, ...slow];
  for (const [k, q] of [
    ['p50', 0.5],
    ['p95', 0.95],
    ['p99', 0.99],
  ] as const) {
    const exact = quantile(pooled, q);
    assert.ok(Math.abs(m.endpoints.e[k] / exact - 1) <= 0.0101, `${k}: merged ${m.endpoints.e[k]} vs pooled ${exact}`);
  }
  // The count-weighted mean of the runners' p95 (the merge before) is 145 ms; the whole run's p95 is about 190 ms.
  const meanOfP95 = (a.endpoints.e.p95 + b.endpoints.e.p95) / 2;
  assert.ok(quantile(pooled, 0.95) / meanOfP95 > 1.25, `${quantile(pooled, 0.95)} vs ${meanOfP95}`);
  assert.equal(m.endpoints.e.count, 2000);
  assert.ok(Math.abs(m.endpoints.e.avg! - pooled.reduce((x, y) => x + y, 0) / 2000) < 1e-9);
  assert.equal(m.endpoints.e.max, Math.max(...pooled));
  assert.ok(Math.abs(m.endpoints.e.rps - 2000 / 60) < 1e-9);
  assert.equal(m.runners, 2);
  assert.equal((m.merge as { percentiles: string }).percentiles, 'exact');
  // The histograms merge too (counts add), so the compare and the history read the merged run like one.
  assert.equal(
    (m.samples as RunSamples).endpoints.e.counts.reduce((x, y) => x + y, 0),
    2000,
  );
});

test('error rates weight by count; checks, transport failures and counters add; a failed check keeps its name and level', () => {
  const a = runner(
    { e: uniform(100, 1, 2, 3) },
    {
      checks: {
        passes: 99,
        fails: 1,
        stated: { passes: 99, fails: 1 },
        inferred: { passes: 0, fails: 0 },
        failed: [{ name: 'e: status', level: 'stated', passes: 99, fails: 1 }],
      },
      transport: { answers: 100, failures: 2, kinds: { 'no-response': 2 } },
      counters: { paging_pages_walked: 5 },
    },
  );
  a.endpoints.e.errorRate = 0.1;
  const b = runner(
    { e: uniform(300, 1, 2, 4) },
    {
      checks: {
        passes: 300,
        fails: 2,
        stated: { passes: 290, fails: 0 },
        inferred: { passes: 10, fails: 2 },
        failed: [{ name: 'e: page [inferred]', level: 'inferred', passes: 10, fails: 2 }],
      },
      transport: { answers: 300, failures: 1, kinds: { 'no-response': 1, redirect: 0 } },
      counters: { paging_pages_walked: 7, paging_other: 1 },
    },
  );
  const m = mergeSummaries([a, b]) as RunnerSummary;
  assert.ok(Math.abs(m.endpoints.e.errorRate - (0.1 * 100) / 400) < 1e-12);
  assert.deepEqual(m.checks, {
    passes: 399,
    fails: 3,
    stated: { passes: 389, fails: 1 },
    inferred: { passes: 10, fails: 2 },
    failed: [
      { name: 'e: status', level: 'stated', passes: 99, fails: 1 },
      { name: 'e: page [inferred]', level: 'inferred', passes: 10, fails: 2 },
    ],
  });
  assert.deepEqual(m.transport, { answers: 400, failures: 3, kinds: { 'no-response': 3, redirect: 0 } });
  assert.deepEqual(m.counters, { paging_pages_walked: 12, paging_other: 1 });
});

/** The raw metrics a runner's summary keeps for its thresholds. */
const trend = (d: number[]) => ({
  type: 'trend' as const,
  values: { count: d.length, avg: d.reduce((a, b) => a + b, 0) / d.length, min: Math.min(...d), max: Math.max(...d) },
});
const rate = (passes: number, fails: number) => ({ type: 'rate' as const, values: { passes, fails, rate: passes / (passes + fails) } });

test('thresholds are judged again on the merged figures: a runner over a limit the whole run meets passes, and the reverse', () => {
  const fast = uniform(1000, 1, 100, 5);
  const slow = uniform(1000, 100, 200, 6);
  const th = (d: number[], p95: string, ok: boolean) => ({
    thresholds: [
      { metric: 'http_req_duration{endpoint:e}', threshold: p95, ok },
      { metric: 'checks{level:stated}', threshold: 'rate==1', ok: true },
    ],
    metrics: { 'http_req_duration{endpoint:e}': trend(d), 'checks{level:stated}': rate(10, 0) },
  });
  // p(95)<150: the fast runner holds it (95 ms), the slow one does not (195 ms), the whole run does not (~190 ms).
  const m1 = mergeSummaries([runner({ e: fast }, th(fast, 'p(95)<150', true)), runner({ e: slow }, th(slow, 'p(95)<150', false))]) as RunnerSummary;
  assert.deepEqual(
    m1.thresholds!.find((t) => t.metric.startsWith('http_req_duration')),
    { metric: 'http_req_duration{endpoint:e}', threshold: 'p(95)<150', ok: false, judged: 'merged figures' },
  );
  assert.equal(m1.thresholdsOk, false);
  assert.equal(mergedExit(m1), 1);
  // p(50)<101: the slow runner crosses it (150 ms), the whole run's median (~100 ms) is under it.
  const m2 = mergeSummaries([runner({ e: fast }, th(fast, 'p(50)<101', true)), runner({ e: slow }, th(slow, 'p(50)<101', false))]) as RunnerSummary;
  assert.equal(m2.thresholdsOk, true, JSON.stringify(m2.thresholds));
  assert.equal(mergedExit(m2), 0);
  // Summaries written before the engine was Artillery kept their raw metrics under `k6.metrics`: still judged on the merged figures.
  const old = (d: number[], p95: string, ok: boolean) => {
    const { metrics, ...rest } = th(d, p95, ok);
    return { ...rest, k6: { metrics } };
  };
  const m0 = mergeSummaries([runner({ e: fast }, old(fast, 'p(95)<150', true)), runner({ e: slow }, old(slow, 'p(95)<150', false))]) as RunnerSummary;
  assert.deepEqual(m0.thresholds, m1.thresholds);
  // A rate: one failed stated check in one runner fails rate==1 for the whole run.
  const failing = { ...th(fast, 'p(95)<500', true) };
  failing.metrics['checks{level:stated}'] = rate(10, 1);
  failing.thresholds[1].ok = false;
  const m3 = mergeSummaries([runner({ e: fast }, failing), runner({ e: slow }, th(slow, 'p(95)<500', true))]) as RunnerSummary;
  assert.deepEqual(
    m3.thresholds!.find((t) => t.metric === 'checks{level:stated}'),
    { metric: 'checks{level:stated}', threshold: 'rate==1', ok: false, judged: 'merged figures' },
  );
});

test('holds: threshold expressions against merged values', () => {
  const v = (stat: string) => (stat.startsWith('p') ? Number(stat.slice(1)) : stat === 'rate' ? 0.9995 : undefined);
  assert.equal(holds('p(95)<300', v), true);
  assert.equal(holds('p(99.9) > 100', v), false);
  assert.equal(holds('rate>0.999', v), true);
  assert.equal(holds('rate==1', v), false);
  assert.equal(holds('rate<=0.001', v), false);
  assert.equal(holds('count>10', v), undefined);
  assert.equal(holds('p(95)<300 && p(99)<1', v), undefined);
  assert.equal(holds({ stat: 'p99.9', op: '>', value: 100 }, v), false);
  assert.equal(holds({ stat: 'rate', op: '>', value: 0.999 }, v), true);
});

test('runners without histograms still merge, by the count-weighted mean of their percentiles, and say so', () => {
  const strip = (r: RunSummary): RunSummary => {
    const { samples: _none, ...rest } = r;
    return rest;
  };
  const m = mergeSummaries([strip(runner({ e: uniform(100, 1, 100, 7) })), runner({ e: uniform(100, 100, 200, 8) })]);
  assert.deepEqual(m.merge, {
    percentiles: 'approximate',
    note: "count-weighted mean of the runners' percentiles for e: a runner kept no request-duration histograms",
  });
  assert.equal(m.samples, undefined);
});

test('a merged run is compared by the statistical rule, like a single run that kept its samples', () => {
  const base = runner({ calibration: uniform(300, 1.8, 2.2, 9), e: uniform(600, 35, 45, 10) });
  // Two runners, each half the requests, the endpoint 30% slower on both: the merged run is flagged by the statistical rule.
  const halves = [11, 12].map((seed) => runner({ calibration: uniform(150, 1.8, 2.2, seed), e: uniform(300, 35 * 1.3, 45 * 1.3, seed + 10) }, {}, 60));
  const merged = mergeSummaries(halves);
  // A baseline of two runners too: one of another runner count is not compared (below).
  const r = compareSummary(merged, { ...base, runners: 2 }, 'baseline.json');
  assert.match(r.latencyRule ?? '', /^statistical/);
  const e = r.endpoints.find((x) => x.endpoint === 'e')!;
  assert.equal(e.rule, 'statistical');
  assert.equal(e.regression, true, e.reason);
  assert.deepEqual(e.flaggedBy, ['statistical']);
  assert.equal(e.count, 600);
  // The same merge of unchanged runners passes.
  const same = [13, 14].map((seed) => runner({ calibration: uniform(150, 1.8, 2.2, seed), e: uniform(300, 35, 45, seed + 10) }));
  assert.equal(compareSummary(mergeSummaries(same), { ...base, runners: 2 }, 'baseline.json').verdict, 'pass');
});

test('a merged run is not compared with a baseline of another runner count, and is with one of its own', () => {
  const one = runner({ calibration: uniform(300, 1.8, 2.2, 21), e: uniform(600, 35, 45, 22) });
  const merged = mergeSummaries([21, 22].map((seed) => runner({ calibration: uniform(150, 1.8, 2.2, seed), e: uniform(300, 35, 45, seed + 10) })));
  const r = compareSummary(merged, one, 'baseline.json');
  assert.equal(r.verdict, 'no-baseline');
  assert.equal(r.reason, 'the baseline was recorded with 1 runner, this run with 2 runners: record a baseline with the same --runners');
  assert.equal(compareSummary(merged, merged, 'baseline.json').verdict, 'pass');
});

test("the runners' writes merge: counts add, the rules a gate held are the largest, a summary's old ledger figures read too", () => {
  const m = mergeSummaries([
    runner({ e: [1] }, { ledger: { 'ledger_rule_writes{gate:g}': 2, 'ledger_gate_rules{gate:g}': 9 } }),
    runner({ e: [2] }, { writes: { ...emptyWrites(), ruleWrites: { g: 1, h: 1 }, gateRules: { g: 4 }, metricsCreated: 2 } }),
  ]);
  assert.deepEqual(m.writes?.ruleWrites, { g: 3, h: 1 });
  assert.deepEqual(m.writes?.gateRules, { g: 9 });
  assert.equal(m.writes?.metricsCreated, 2);
  assert.equal(mergeSummaries([runner({ e: [1] }), runner({ e: [2] })]).writes, undefined);
});
