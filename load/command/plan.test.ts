// A load plan read from a file (load/command/load.ts --plan FILE, as verify hands its load stage over):
// what the runner is given is checked before anything runs, and a plan never carries a pair's keys.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../core/config.ts';
import { checkPlan, type LoadPlan, readPlanFile } from './plan.ts';

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

test('plan: a field its path cannot honour is refused with one line, never dropped', () => {
  const side = { baseUrl: 'http://127.0.0.1:1', keyVar: 'K', manifestPath: 'm.json', manifest: {} as never, external: true };
  const pair: LoadPlan = {
    scripts: ['paging'],
    profile: 'smoke',
    target: { kind: 'pair', current: side, candidate: side, minEffect: 0.1, reportDir: '/tmp/r', reportsRoot: '/tmp' },
  };
  const refused = (plan: LoadPlan, why: RegExp) =>
    assert.throws(
      () => checkPlan(plan),
      (e: Error) => e instanceof ConfigError && why.test(e.message),
    );
  checkPlan(pair);
  refused({ ...pair, runners: 2 }, /^--runners: a paired run/);
  refused({ ...pair, compare: {} }, /^--compare: a paired run/);
  refused({ ...pair, shape: { source: 'x', phases: [{ duration: 1, arrivalRate: 1 }] } }, /^--config\/--overrides: a paired run/);
  const prepared: LoadPlan = { scripts: ['paging'], profile: 'smoke', target: { kind: 'configured' }, prepare: { dir: '/tmp/x', for: 'export' } };
  checkPlan(prepared);
  refused({ ...prepared, runners: 2 }, /^--runners: an exported script/);
  refused({ ...prepared, compare: {} }, /^--compare: a prepared run/);
  refused({ ...prepared, target: { kind: 'configured', scale: 10 } }, /^--scale/);
  checkPlan({ ...prepared, runners: 4, prepare: { dir: '/tmp/x', for: 'cloud' } });
});
