// The report page's building blocks: everything from the target is escaped, the matrix carries what
// the filter needs, load rows show the calibrated baseline, load samples fold into buckets.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderPage } from './html.ts';
import { readInputs } from './inputs.ts';
import { splitCsvLine } from '../core/csv.ts';
import { bucketize } from './timeseries.ts';

const HOSTILE = '<script>alert(1)</script>"\'&';

/** A reports folder holding `files`, removed when test `t` ends. */
function reportsWith(t: TestContext, files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-report-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, v] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(v));
  return dir;
}

const conformance = {
  summary: {
    verdict: 'fail',
    strict: false,
    target: 'http://127.0.0.1:1',
    manifest: 'fixtures/targets/reference.json',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1000,
    tests: { total: 2, passed: 1, failed: 1, failedCounting: 1 },
    clauses: { total: 2, pass: 1, fail: 1, warn: 0, observed: 0, uncovered: 0 },
    byLevel: {
      stated: { pass: 1, fail: 1, warn: 0, observed: 0, uncovered: 0 },
      inferred: { pass: 0, fail: 0, warn: 0, observed: 0, uncovered: 0 },
      open: { pass: 0, fail: 0, warn: 0, observed: 0, uncovered: 0 },
    },
    drift: 1,
  },
  clauses: [
    {
      id: 'metrics.create.message',
      section: '4.6',
      level: 'stated',
      status: 'fail',
      text: `message ${HOSTILE}`,
      tests: ['t1'],
      evidence: [],
      observations: [],
    },
    { id: 'envelope.data', section: '2.1', level: 'stated', status: 'pass', text: 'data', tests: ['t2'], evidence: [], observations: [] },
  ],
  failures: [
    {
      test: 't1',
      file: 'contracts/conformance/metrics.spec.ts',
      level: 'stated',
      clauses: ['metrics.create.message'],
      counts: true,
      error: `\u001b[31mexpected\u001b[39m ${HOSTILE}`,
      exchanges: [
        {
          method: 'POST',
          path: '/console/v1/metrics',
          requestHeaders: { 'SERVICE-API-KEY': '<redacted>' },
          requestBody: { name: HOSTILE },
          status: 201,
          responseBody: { message: HOSTILE },
          curl: `curl -sS -X POST 'http://127.0.0.1:1/console/v1/metrics' -H "SERVICE-API-KEY: $CONSOLE_API_KEY"`,
        },
      ],
    },
  ],
  drift: [{ clause: 'errors.shape', aspect: 'unknown gate', before: { status: 404 }, now: { status: HOSTILE } }],
};

test('report: text from the target and the spec is escaped everywhere', (t) => {
  const page = renderPage(readInputs(reportsWith(t, { 'conformance.json': conformance })));
  assert.ok(!page.includes('<script>alert(1)'), 'no raw markup from the run');
  assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.equal((page.match(/<script>/g) ?? []).length, 1, "the page's own script only");
  assert.ok(!page.includes('\u001b'), 'terminal colours are stripped');
  assert.match(page, /<pre class="error">expected &lt;script&gt;/);
});

/** The inputs of a reports folder, without the committed proof map (a test sees only what it wrote). */
const withoutCommittedProof = (dir: string) => readInputs(dir, join(dir, 'history.sqlite'), join(dir, 'no-committed-proof.json'));

test('report: the matrix rows carry status, level and section; the failure links to its evidence', (t) => {
  const page = renderPage(withoutCommittedProof(reportsWith(t, { 'conformance.json': conformance })));
  assert.match(page, /<tr class="clause s-fail" data-status="fail" data-level="stated" data-section="4\.6">/);
  assert.match(page, /href="#failure-1" class="evidence-link"/);
  assert.match(page, /<details class="failure k-FAIL" id="failure-1"/);
  assert.match(page, /4\.6 Create metric/);
  assert.match(page, /id="drift"/);
  assert.match(page, /Content-Security-Policy" content="default-src 'none'/);
  assert.match(page, /Load<\/h2><p class="muted">No load run/);
});

test('report: a failure shows the clauses it failed, and apart those its test did not reach, which the matrix links to it', (t) => {
  const unreached = { ...conformance.clauses[1], id: 'metric.id.shape', section: '2.8', status: 'unreached', uncovered: ['not reached: "t1" stopped'] };
  const failure = {
    ...conformance.failures[0],
    clauses: ['metrics.create.message', 'metric.id.shape'],
    blamed: ['metrics.create.message'],
    unreached: ['metric.id.shape'],
  };
  const page = renderPage(
    readInputs(reportsWith(t, { 'conformance.json': { ...conformance, clauses: [...conformance.clauses, unreached], failures: [failure] } })),
  );
  assert.match(
    page,
    /data-clauses="metrics\.create\.message"><summary>.*<span class="blamed">metrics\.create\.message<\/span> <span class="muted">\(1 not reached\)<\/span>/,
  );
  assert.match(
    page,
    /<div class="label">not reached<\/div><p class="unreached small">The test stopped at this failure before it checked this clause: neither passed nor failed in this run\. <code>metric\.id\.shape<\/code>/,
  );
  assert.match(
    page,
    /<tr class="clause s-unreached" data-status="unreached"[^>]*><td><code>metric\.id\.shape<\/code>(?: <span class="(?:proved|unproved)"[^>]*>[^<]*<\/span>)?<\/td><td>stated<\/td><td class="status">unreached <a href="#failure-1" class="stopped-link">stopped at failure 1<\/a>/,
  );
  assert.match(page, /<button type="button" class="filter s-unreached" data-status="unreached"/);
});

test('report: with a proof map, a stated or inferred clause no fault fails is marked unproved, with why; the filter counts them', (t) => {
  const proof = {
    format: 'console-conformance.clause-proof/1',
    madeAt: '2026-11-25T10:00:00.000Z',
    commit: 'abc123def456',
    dirty: false,
    rule: 'r',
    partial: false,
    summary: { stated: { total: 1, proved: 0, unproved: 1 }, inferred: { total: 0, proved: 0, unproved: 0 } },
    clauses: [
      // envelope.data proved; metrics.create.message unproved, with a reason from the target's side.
      { id: 'envelope.data', level: 'stated', section: '2.1', provedBy: ['gen:presence:envelope.data:data'], targetedBy: [] },
      { id: 'metrics.create.message', level: 'stated', section: '4.6', provedBy: [], targetedBy: [], why: `no fault targets it ${HOSTILE}` },
    ],
    faults: [],
  };
  const open = { id: 'pagination.fields', section: '2.1', level: 'open', status: 'observed', text: 'open', tests: ['t2'], evidence: [], observations: [] };
  const added = { id: 'gate.field.id', section: '2.2', level: 'stated', status: 'pass', text: 'id', tests: ['t2'], evidence: [], observations: [] };
  const report = { ...conformance, clauses: [...conformance.clauses, open, added] };
  const page = renderPage(withoutCommittedProof(reportsWith(t, { 'conformance.json': report, 'clause-proof.json': proof })));
  assert.match(
    page,
    /<tr class="clause s-fail" data-status="fail" data-level="stated" data-section="4\.6" data-proof="unproved"><td><code>metrics\.create\.message<\/code> <span class="unproved" title="no fault targets it &lt;script&gt;/,
  );
  assert.match(
    page,
    /data-proof="proved"><td><code>envelope\.data<\/code> <span class="proved" title="failed by 1 fault: gen:presence:envelope\.data:data">proved<\/span>/,
  );
  // A clause the map does not hold (added after it was made) is unproved too; an open clause is never marked.
  assert.match(page, /<code>gate\.field\.id<\/code> <span class="unproved" title="not in the proof map \(made 2026-11-25, before the clause was added\)">/);
  assert.match(page, /data-section="2\.1"><td><code>pagination\.fields<\/code><\/td>/);
  assert.match(page, /data-status="unproved" aria-pressed="false"[^>]*>unproved <b>2<\/b>/);
  assert.match(
    page,
    /Proof map <code>clause-proof\.json<\/code> \(made 2026-11-25 at abc123def456; <code>npm run clauses:proof<\/code>\): a fault injected into the reference fails <b>0 of 1<\/b> stated/,
  );
  // No map anywhere: no marks, no filter, no line.
  const bare = renderPage(withoutCommittedProof(reportsWith(t, { 'conformance.json': report })));
  assert.ok(!/<span class="unproved"|data-proof=|data-status="unproved"|Proof map/.test(bare), 'nothing of a proof map without one');
});

test('report: a load row shows the baseline scaled by the calibration, and a regression in red', (t) => {
  const dir = reportsWith(t, { 'conformance.json': conformance });
  const compare = {
    verdict: 'regression',
    tolerance: { p50: 2, p95: 2.5, p99: 3, minDeltaMs: 5, rps: 0.8 },
    profiles: {
      paging: {
        script: 'paging',
        profile: 'smoke',
        baselineFile: '/x/load/baselines/paging.json',
        baselineProfile: 'smoke',
        verdict: 'regression',
        reason: '',
        calibration: { p50: 2, p95: 4, p99: 5, rps: 5, errorRate: 0, scale: 2 },
        endpoints: [
          {
            endpoint: 'listExperiments.deep',
            p50: 10,
            p95: 40,
            p99: 50,
            rps: 5,
            errorRate: 0,
            count: 21,
            baseline: { p50: 2, p95: 4, p99: 5, rps: 5, errorRate: 0, count: 20 },
            ratio: { p50: 2.5, p95: 5, p99: 5, rps: 1 },
            regression: true,
            reason: 'p95 40 ms is 5x',
          },
        ],
      },
    },
  };
  const summary = {
    script: 'paging',
    profile: 'smoke',
    durationMs: 4000,
    thresholdsOk: true,
    checks: { passes: 10, fails: 0 },
    endpoints: { 'listExperiments.deep': { p50: 10, p95: 40, p99: 50, count: 21, rps: 5, errorRate: 0 } },
    thresholds: [],
  };
  mkdirSync(join(dir, 'load/paging'), { recursive: true });
  writeFileSync(join(dir, 'load/compare.json'), JSON.stringify(compare));
  writeFileSync(join(dir, 'load/paging/summary.json'), JSON.stringify(summary));
  const page = renderPage(readInputs(dir));
  assert.match(page, /<tr class="regressed" data-endpoint="listExperiments\.deep">/);
  // baseline p95 4 ms x scale 2 = 8 ms expected; the ratio 5x as compare computed it.
  assert.match(page, /40\.0<div class="muted small">8\.00 · 5\.00×/);
  assert.match(page, /regression<\/b>: p95 40 ms is 5x/);
});

test('report: a row judged by the statistical rule shows its effect, interval and p under the verdict', (t) => {
  const dir = reportsWith(t, { 'conformance.json': conformance });
  const statistical = { effect: 1.52, lower: 1.31, upper: 1.74, p: 3.2e-9, alpha: 0.005, n: { run: 600, base: 600 }, regression: true, reason: 'slower: ...' };
  const compare = {
    verdict: 'regression',
    tolerance: { p50: 2, p95: 2.5, p99: 3, minDeltaMs: 5, rps: 0.8, minEffect: 0.1, alpha: 0.01 },
    profiles: {
      paging: {
        script: 'paging',
        profile: 'baseline',
        baselineFile: '/x/load/baselines/paging.json',
        baselineProfile: 'baseline',
        verdict: 'regression',
        reason: '',
        latencyRule: 'statistical (...)',
        calibration: { p50: 2, p95: 4, p99: 5, rps: 5, errorRate: 0, scale: 1 },
        endpoints: [
          {
            endpoint: 'listExperiments.deep',
            p50: 60,
            p95: 100,
            p99: 120,
            rps: 10,
            errorRate: 0,
            count: 600,
            baseline: { p50: 40, p95: 70, p99: 80, rps: 10, errorRate: 0, count: 600 },
            ratio: { p50: 1.5, p95: 1.43, p99: 1.5, rps: 1 },
            regression: true,
            reason: 'latency slower: ...',
            rule: 'statistical',
            statistical,
          },
        ],
      },
    },
  };
  const summary = {
    script: 'paging',
    profile: 'baseline',
    durationMs: 60000,
    thresholdsOk: true,
    checks: { passes: 10, fails: 0 },
    endpoints: { 'listExperiments.deep': { p50: 60, p95: 100, p99: 120, count: 600, rps: 10, errorRate: 0 } },
    thresholds: [],
  };
  mkdirSync(join(dir, 'load/paging'), { recursive: true });
  writeFileSync(join(dir, 'load/compare.json'), JSON.stringify(compare));
  writeFileSync(join(dir, 'load/paging/summary.json'), JSON.stringify(summary));
  const page = renderPage(readInputs(dir));
  assert.match(page, /<div class="muted small">median 1\.52× \(95% CI 1\.31–1\.74×\), p 3\.2e-9, n 600\/600<\/div>/);
  assert.match(
    page,
    /a one-sided Mann-Whitney test shows it slower \(alpha 0\.01 over the endpoints\) and the 95% interval of its calibrated median ratio lies above 1\.1×/,
  );
});

test('report: a run cut short by the network says partial up front and lists its inconclusive tests apart, with the failed exchange', (t) => {
  const exchange = {
    method: 'GET',
    path: '/console/v1/experiments',
    requestHeaders: { 'SERVICE-API-KEY': '<redacted>' },
    status: 0,
    responseBody: 'no response: ECONNREFUSED',
    curl: `curl -sS -X GET 'http://127.0.0.1:1/console/v1/experiments' -H "SERVICE-API-KEY: $CONSOLE_API_KEY"`,
  };
  const partial = {
    ...conformance,
    summary: {
      ...conformance.summary,
      verdict: 'inconclusive',
      tests: { total: 6, passed: 1, failed: 0, failedCounting: 0, inconclusive: 5, notRun: 58 },
      partial: true,
      stop: { cause: 'transport', reason: '5 consecutive transport failures (ECONNREFUSED)', afterTests: 6, ofTests: 64 },
    },
    failures: [],
    inconclusive: [
      {
        test: 'experiments: list',
        file: 'contracts/conformance/experiments.spec.ts',
        clauses: ['experiments.list.message'],
        reason: 'inconclusive: transport: no response: ECONNREFUSED',
        exchange,
      },
    ],
  };
  const page = renderPage(readInputs(reportsWith(t, { 'conformance.json': partial })));
  assert.match(page, /class="verdict v-NOT-RUN"/);
  assert.match(page, /5 inconclusive \(transport\) · partial run: stopped: 5 consecutive transport failures \(ECONNREFUSED\) after 6 of 64 tests, 58 not run/);
  assert.match(page, /<details class="failure k-INCONCLUSIVE" id="inconclusive-1">/);
  assert.match(page, /no response: ECONNREFUSED/);
});

test('timeseries: samples fold into buckets per endpoint, with a p95 per bucket', () => {
  const s = bucketize('paging', [
    { time: 1000, endpoint: 'a', duration: 1 },
    { time: 1100, endpoint: 'a', duration: 3 },
    { time: 1200, endpoint: 'b', duration: 2 },
    { time: 2600, endpoint: 'a', duration: 9 },
  ]);
  assert.equal(s.bucketMs, 250);
  assert.equal(s.buckets.length, 7);
  assert.deepEqual(s.buckets[0].requests, { a: 2, b: 1 });
  // Type 7 over 1, 2, 3 (core/quantile.ts): 2 + 0.9 x (3 - 2), as summary.json's p95 reads it.
  assert.equal(s.buckets[0].p95, 2.9);
  assert.deepEqual(s.buckets[6].requests, { a: 1 });
  assert.deepEqual(s.endpoints, ['a', 'b']);
  assert.deepEqual(splitCsvLine('http_req_duration,1,"a,""b""",x'), ['http_req_duration', '1', 'a,"b"', 'x']);
});

test('report: an INCOMPLETE run says so first, never PASS, with what went unchecked; the ledger says what the run wrote', (t) => {
  const summary = {
    ...conformance.summary,
    verdict: 'incomplete',
    coverage: { total: 305, checked: 280, uncovered: 25, unverifiable: 0, waived: 0, excluded: 0 },
    incomplete: [{ reason: 'no manifest trigger had a phase left to skip: add triggers with phases to the manifest', clauses: ['triggers.skip.status200'] }],
  };
  const ledger = {
    format: 'console-conformance.ledger/1',
    target: 'http://127.0.0.1:1',
    manifest: 'm.json',
    readOnly: false,
    parts: [],
    totals: {
      writes: 12,
      rulesAdded: { gate_cc_alpha: 7 },
      metricsCreated: 5,
      metricsUpdated: 3,
      phasesSkipped: {},
      unpaused: 0,
      gateToggles: 2,
      overridePatches: 2,
      notRestored: 0,
    },
    state: { gates: {}, triggers: {} },
  };
  const page = renderPage(readInputs(reportsWith(t, { 'conformance.json': { ...conformance, summary }, 'ledger.json': ledger })));
  assert.match(page, /<span id="verdict" class="verdict v-INCOMPLETE">INCOMPLETE<\/span>/);
  assert.match(page, /id="headline"[^>]*>280 of 305 stated clauses checked · INCOMPLETE: 1 unchecked: no manifest trigger had a phase left to skip/);
  assert.match(
    page,
    /<th>wrote to the target<\/th><td>12 writes; 5 metrics created; rules added: gate_cc_alpha 7; 0 trigger phases skipped; gates’? ?.*given back/,
  );
});

test('report: a run that fell short says so, and each endpoint has its p50/p95/p99 over time, a gap where it had no request', (t) => {
  const dir = reportsWith(t, { 'conformance.json': conformance });
  const summary = {
    script: 'paging',
    profile: 'smoke',
    durationMs: 30000,
    thresholdsOk: true,
    checks: { passes: 10, fails: 0 },
    endpoints: { 'listExperiments.deep': { p50: 10, p95: 40, p99: 50, count: 21, rps: 5, errorRate: 0 } },
    thresholds: [],
    delivery: { asked: 300, started: 150, dropped: 150, shortfall: 0.5, ok: false, note: 'the load fell short: 150 of 300 arrivals started', generators: [] },
    periods: [
      { at: '2026-11-28T10:00:00.000Z', offsetSeconds: 0, seconds: 10, endpoints: { 'listExperiments.deep': { count: 10, p50: 2, p95: 4, p99: 5 } } },
      { at: '2026-11-28T10:00:10.000Z', offsetSeconds: 10, seconds: 10, endpoints: {} },
      { at: '2026-11-28T10:00:20.000Z', offsetSeconds: 20, seconds: 10, endpoints: { 'listExperiments.deep': { count: 11, p50: 3, p95: 40, p99: 50 } } },
    ],
  };
  mkdirSync(join(dir, 'load/paging'), { recursive: true });
  writeFileSync(join(dir, 'load/paging/summary.json'), JSON.stringify(summary));
  const page = renderPage(readInputs(dir));
  assert.match(page, /<span class="bad">not carried out: the load fell short: 150 of 300 arrivals started<\/span>/);
  assert.match(page, /latency over time: p50, p95 and p99 of each endpoint per 10 s period \(3 periods, 30 s\)/);
  const chart = /<svg class="chart latency-time"[^>]*data-endpoint="listExperiments\.deep">[\s\S]*?<\/svg>/.exec(page)?.[0] ?? '';
  assert.ok(chart, 'a chart for the endpoint');
  assert.equal((chart.match(/<polyline/g) ?? []).length, 6, 'each percentile in two runs of periods: the empty one breaks the line');
  assert.match(chart, /<title>p95 40\.0 ms at \+20 s \(11 requests\)<\/title>/);
});
