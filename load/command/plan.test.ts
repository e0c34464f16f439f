// A load plan read from a file (load/command/load.ts --plan FILE, as verify hands its load stage over):
// what the runner is given is checked before anything runs, and a plan never carries a pair's keys.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../core/config.ts';
import { readPlanFile } from './plan.ts';

function planFile(t: { after: (fn: () => void) => void }, plan: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-plan-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'plan.json');
  writeFileSync(file, typeof plan === 'string' ? plan : JSON.stringify(plan));
  return file;
}

const VERIFY_PLAN = { scripts: ['paging', 'mutation'], profile: 'smoke', seed: 1, target: { kind: 'configured' }, compare: { baselinesDir: '/tmp/b' } };

test('plan: the plan verify writes is read as it was written', (t) => {
  assert.deepEqual(readPlanFile(planFile(t, VERIFY_PLAN)), VERIFY_PLAN);
});

test('plan: a plan file that is not one is a ConfigError naming what is wrong', (t) => {
  const refused = (plan: unknown, why: RegExp) =>
    assert.throws(
      () => readPlanFile(planFile(t, plan)),
      (e: Error) => e instanceof ConfigError && why.test(e.message),
    );
  refused('{not json', /--plan .*plan\.json/);
  refused({ ...VERIFY_PLAN, scripts: ['paging', 'soak'] }, /"scripts" must list paging and\/or mutation/);
  refused({ ...VERIFY_PLAN, scripts: [] }, /"scripts"/);
  refused({ ...VERIFY_PLAN, profile: 'soak' }, /"profile" must be one of smoke, baseline, stress/);
  refused({ ...VERIFY_PLAN, seed: -1 }, /"seed"/);
  refused({ ...VERIFY_PLAN, runners: 17 }, /"runners" must be 1 to 16/);
  // A pair's sides hold their keys: such a plan is built in memory by candidate, never read from a file.
  refused({ ...VERIFY_PLAN, target: { kind: 'pair', current: { apiKey: 'k' } } }, /"target" must be \{"kind": "configured"\}/);
});
