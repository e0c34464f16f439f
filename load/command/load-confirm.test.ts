// The load runner confirms a regression the ratio tolerances found by running the profile again, for
// `load:* --compare` as for verify (load/command/run-plan.ts): the second run's figures stand, the first
// compare is kept apart. On a real load run (Artillery) against a reference server it starts.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../../core/config.ts';
import { spawnLoad } from './spawn-load.ts';

test('load --compare runs a regression the tolerances found again, and exits 2 when the second run confirms it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-load-confirm-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The committed smoke baseline of paging with ten times its throughput: no run can keep up, so both runs regress.
  const baselines = join(dir, 'baselines');
  const reports = join(dir, 'reports');
  const paging = JSON.parse(readFileSync(join(ROOT, 'load/baselines/paging.json'), 'utf8'));
  for (const [name, e] of Object.entries<{ rps: number }>(paging.endpoints)) if (name !== 'calibration') e.rps *= 10;
  mkdirSync(baselines);
  writeFileSync(join(baselines, 'paging.json'), JSON.stringify(paging));
  const plan = join(dir, 'plan.json');
  writeFileSync(plan, JSON.stringify({ scripts: ['paging'], profile: 'smoke', seed: 1, target: { kind: 'configured' }, compare: { baselinesDir: baselines } }));
  const r = await spawnLoad(['--plan', plan], reports);
  assert.equal(r.code, 2, r.out.slice(-3000));
  assert.match(r.out, /load: paging regressed: running it again to confirm/);
  assert.equal(r.out.match(/load: paging \(smoke\) started/g)?.length, 2, 'the profile ran twice');
  assert.match(r.out, /load: paging regression confirmed by a second run/);
  const compare = JSON.parse(readFileSync(join(reports, 'load/compare.json'), 'utf8'));
  assert.equal(compare.verdict, 'regression');
  assert.deepEqual(
    compare.confirmation.map((c: { script: string; rerun: boolean; confirmed: boolean }) => [c.script, c.rerun, c.confirmed]),
    [['paging', true, true]],
  );
  assert.ok(existsSync(join(reports, 'load/compare.first-run.json')), 'the first compare is kept apart');
});
