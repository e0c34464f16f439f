// The transport rules through the real commands, a misbehaving proxy and a real reference server
// (the full table is npm run bench:transport): a network that fails after the preflight is exit 3
// with one line, a partial report and no trace of the key; a violation proven before it is still exit 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runScenario } from './run-scenario.ts';

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
// The tests of the suite's first two files (14), which run first in the whole suite too: the network
// fails within them, and the tests after it would only be marked not run, each still a cost to Playwright.
const FIRST_TESTS = ['--grep', '(auth|envelope): '];

test('connections reset after the preflight: exit 3, one line, partial reports with the failed exchange, no stacks, no key', async () => {
  const o = await runScenario({ name: 'reset', scenario: 'reset', after: 10, command: 'conformance', deadline: 120, args: FIRST_TESTS }, true);
  try {
    assert.equal(o.exitCode, 3, o.output.slice(-2000));
    assert.match(o.lastLine, /^conformance: stopped: 5 consecutive transport failures \(ECONNRESET\) after \d+ of \d+ tests$/);
    const report = JSON.parse(read(o.reports, 'conformance.json'));
    assert.equal(report.summary.partial, true);
    assert.equal(report.summary.verdict, 'inconclusive');
    assert.equal(report.summary.stop.cause, 'transport');
    assert.equal(report.summary.tests.failedCounting, 0);
    assert.ok(report.summary.tests.inconclusive >= 5);
    // The evidence is the exchange that failed: no answer at all.
    const first = report.inconclusive[0];
    assert.equal(first.reason, 'inconclusive: transport: no response: ECONNRESET');
    assert.equal(first.exchange.status, 0);
    assert.equal(first.exchange.responseBody, 'no response: ECONNRESET');
    assert.ok(!report.failures.some((f: { counts: boolean }) => f.counts), 'nothing counts against the target');
    assert.match(read(o.reports, 'junit.xml'), /<skipped message="inconclusive: transport: no response: ECONNRESET"\/>/);
    assert.doesNotMatch(o.output, /^\s+at .+:\d+:\d+\)?$/m, 'no stack trace');
    assert.deepEqual(o.keyIn, []);
  } finally {
    rmSync(dirname(o.reports), { recursive: true, force: true });
  }
});

test('a target that stops answering after the preflight: exit 3; the snapshot and the suite each give up after one request without an answer', async () => {
  const o = await runScenario({ name: 'hang', scenario: 'hang', after: 1, command: 'conformance', deadline: 300, requestTimeout: 3, args: FIRST_TESTS }, true);
  try {
    assert.equal(o.exitCode, 3, o.output.slice(-2000));
    assert.match(
      o.lastLine,
      /^conformance: stopped: a request got no answer \(ETIMEDOUT \(none within 3 s\)\): the target stopped answering after \d+ of \d+ tests$/,
    );
    // The snapshot waited for its first gate only, and says what it could not do for the others.
    assert.match(o.output, /gate gate_cc_alpha: its enabled state could not be read \(no answer in time\)/);
    assert.match(o.output, /gate gate_cc_delta: its enabled state could not be read \(not sent: an earlier request of this phase got no answer within 3 s\)/);
    const report = JSON.parse(read(o.reports, 'conformance.json'));
    assert.equal(report.summary.partial, true);
    assert.equal(report.summary.stop.cause, 'transport');
    // At most one request in flight per worker (2) waited its timeout; every other test was not run.
    assert.ok(report.summary.tests.inconclusive <= 2, JSON.stringify(report.summary.tests));
    assert.ok(report.summary.tests.notRun >= report.summary.tests.total - 3, JSON.stringify(report.summary.tests));
    assert.equal(report.summary.tests.failedCounting, 0);
    assert.deepEqual(o.keyIn, []);
  } finally {
    rmSync(dirname(o.reports), { recursive: true, force: true });
  }
});

test('a target that dies under verify: exit 3, index.html and verify.json written, the page says partial', async () => {
  const o = await runScenario({ name: 'down-verify', scenario: 'down', after: 10, command: 'verify', deadline: 120, args: FIRST_TESTS }, true);
  try {
    assert.equal(o.exitCode, 3, o.output.slice(-2000));
    assert.equal(JSON.parse(read(o.reports, 'verify.json')).exitCode, 3);
    assert.equal(JSON.parse(read(o.reports, 'conformance.json')).summary.partial, true);
    assert.match(read(o.reports, 'index.html'), /partial run: stopped: 5 consecutive transport failures \(ECONNREFUSED\)/);
    assert.deepEqual(o.keyIn, []);
    assert.equal(o.keyElsewhere, 0);
  } finally {
    rmSync(dirname(o.reports), { recursive: true, force: true });
  }
});

test('a stated violation found before the target dies is still exit 1, in a report marked partial', async () => {
  // One worker, the metrics file in order: the preflight and the snapshot of the manifest's 4 gates and
  // 3 experiments are answered (9 requests), then the first test (one create, answered with the wrong
  // message) and a little of the next run before the proxy goes down.
  const o = await runScenario(
    {
      name: 'violation-then-down',
      scenario: 'down',
      after: 11,
      command: 'conformance',
      deadline: 120,
      faults: ['wrong-message-metric-created'],
      args: ['contracts/conformance/metrics.spec.ts', '--workers', '1'],
    },
    true,
  );
  try {
    assert.equal(o.exitCode, 1, o.output.slice(-2000));
    const report = JSON.parse(read(o.reports, 'conformance.json'));
    assert.equal(report.summary.verdict, 'fail');
    assert.equal(report.summary.partial, true);
    assert.equal(report.clauses.find((c: { id: string }) => c.id === 'metrics.create.message').status, 'fail');
  } finally {
    rmSync(dirname(o.reports), { recursive: true, force: true });
  }
});

test('load through a redirect: exit 3 with the count of answers that were the network, and the key never sent to where it points', async () => {
  const o = await runScenario({ name: 'load-redirect', scenario: 'redirect', after: 20, command: 'load:paging', deadline: 90, requestTimeout: 5 }, true);
  try {
    assert.equal(o.exitCode, 3, o.output.slice(-2000));
    assert.equal(o.loadVerdict?.code, 3);
    assert.match(o.lastLine, /^load: paging: \d+ of \d+ answers were the network's, not the target's \(redirect \d+\) \(exit 3\)$/);
    assert.equal(o.keyElsewhere, 0, 'k6 follows no redirect: the key header would go along');
    assert.deepEqual(o.keyIn, []);
  } finally {
    rmSync(dirname(o.reports), { recursive: true, force: true });
  }
});

test('load of writes through a network that cuts every third exchange: exit 3, not a contract failure', async () => {
  const o = await runScenario({ name: 'load-flaky', scenario: 'flaky-reset', after: 20, command: 'load:mutation', deadline: 90, requestTimeout: 5 }, true);
  try {
    assert.equal(o.exitCode, 3, o.output.slice(-2000));
    assert.match(o.loadVerdict?.note ?? '', /answers were the network's, not the target's \(no-response \d+\)$/);
    assert.doesNotMatch(o.output, /stated checks? failed/);
    assert.deepEqual(o.keyIn, []);
  } finally {
    rmSync(dirname(o.reports), { recursive: true, force: true });
  }
});
