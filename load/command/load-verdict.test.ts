// What a load run says about the target, on real load runs (Artillery) against the reference server: a correct server
// that looks unlike the reference (legal variants of what the spec leaves open) passes; a stated
// violation is exit 1; an inferred one warns, and fails under --strict. The network's failures are in
// harness/transport/transport.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { limitText } from '../lib/thresholds.ts';
import { spawnLoad } from './spawn-load.ts';

interface Run {
  status: number | null;
  output: string;
  summary: (script: string) => any;
}

/** `npm run load:<args>` in a clean environment, its reports in a folder of its own (removed after the test). */
async function load(t: { after: (fn: () => void) => void }, args: string[]): Promise<Run> {
  const reports = mkdtempSync(join(tmpdir(), 'cc-load-verdict-'));
  t.after(() => rmSync(reports, { recursive: true, force: true }));
  const { code: status, out: output } = await spawnLoad(args, reports);
  return { status, output, summary: (script) => JSON.parse(readFileSync(join(reports, 'load', script, 'summary.json'), 'utf8')) };
}

/** Legal at once: the variants of "not shown" behaviour a real server is likeliest to show under load. */
const LEGAL = [
  'unauthorized-403',
  'omit-when-empty',
  'overrides-merge',
  'overrides-toplevel-response',
  'default-limit-50',
  'paging-out-of-range-400',
  'errors-problem-json',
  'timestamps-seconds',
  'vendor-extra-fields',
  'enum-values-beyond-seen',
  'create-metric-201',
  'order-by-id',
  'rules-replace',
  'pagination-other-fields',
  'skip-message-other',
];

test('load: a correct server unlike the reference (15 legal variants at once: 403 for no key, fields left out, merge, other pages and errors) passes with no failed check', async (t) => {
  const r = await load(t, ['smoke', ...LEGAL.flatMap((v) => ['--variant', v])]);
  assert.equal(r.status, 0, r.output.slice(-3000));
  for (const script of ['paging', 'mutation']) {
    const s = r.summary(script);
    assert.deepEqual(s.checks.failed, [], script);
    assert.ok(s.checks.stated.passes > 100, `${script}: ${s.checks.stated.passes} stated checks`);
    // A pass; on a busy machine the ruler alone may cross its latency thresholds, which says so and still passes.
    assert.equal(s.verdict.code, 0, JSON.stringify(s.verdict));
    assert.deepEqual(s.verdict.warnings, []);
    assert.match(s.verdict.note, /^(ok|only the calibration request crossed its latency thresholds: the machine was slow)$/);
    assert.equal(s.transport.failures, 0);
    // Each threshold as data and as the text it always showed; no threshold is there only to carry a figure.
    assert.ok(s.thresholds.length > 5, `${script}: ${s.thresholds.length} thresholds`);
    for (const th of s.thresholds) assert.equal(limitText(th.limit), th.threshold, JSON.stringify(th));
    assert.ok(!s.thresholds.some((th: { metric: string }) => /^(ledger_|checks\{level:inferred\}|load_transport_failures\{)/.test(th.metric)), script);
  }
  // What the mutation profile wrote to the target, as typed records: metrics created, rules added per gate.
  const writes = r.summary('mutation').writes;
  assert.ok(writes.metricsCreated > 0, JSON.stringify(writes));
  assert.ok(
    Object.values(writes.ruleWrites as Record<string, number>).some((n) => n > 0),
    JSON.stringify(writes),
  );
  // The calibration request is refused with 403 here, and that is a refusal as good as 401 (spec 5, 7).
  assert.ok(r.summary('paging').endpoints.calibration.count > 10);
});

test('load: a stated violation is exit 1 naming the check, an inferred one is a warning, a refused override patch a note', async (t) => {
  const r = await load(t, ['smoke', '--fault', 'disable-keeps-enabled', '--fault', 'page-overlap', '--variant', 'overrides-known-groups-only']);
  assert.equal(r.status, 1, r.output.slice(-3000));
  const paging = r.summary('paging');
  assert.equal(paging.verdict.code, 0, 'overlapping pages are an inferred defect: a warning');
  assert.ok(
    paging.verdict.warnings.some((w: string) => /shares no item.*\[inferred\]/.test(w)),
    JSON.stringify(paging.verdict),
  );
  const mutation = r.summary('mutation');
  assert.equal(mutation.verdict.code, 1);
  assert.match(mutation.verdict.note, /^\d+ stated checks? failed$/);
  assert.deepEqual(
    mutation.checks.failed.map((c: { name: string; level: string }) => [c.name, c.level]),
    [['disableGate: the gate returned has isEnabled false (spec 4.2)', 'stated']],
  );
  assert.match(r.output, /load: mutation: \d+ stated checks? failed \(exit 1\)/);
  assert.match(r.output, /the target refuses the suite's override patch of \S+ \(HTTP 400\): overrides are not load-tested/);
  assert.equal(mutation.counters.mutation_overrides_not_tested, 1);
  assert.equal(mutation.endpoints.patchExperimentOverrides.count, 0);
});

test('load: under --strict an inferred violation fails the run (exit 1)', async (t) => {
  const r = await load(t, ['paging', '--fault', 'page-overlap', '--strict']);
  assert.equal(r.status, 1, r.output.slice(-3000));
  assert.match(r.summary('paging').verdict.note, /^\d+ inferred checks? failed \(--strict\)$/);
});
