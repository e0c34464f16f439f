// A run cut as CI cancels a job leaves the owners' state as it found it: `npm run verify -- --skip-load`
// against a reference server on a database file, owners' state set beforehand (a gate switched from its
// seed, overrides on an experiment of theirs), cut at a few moments across the run (its snapshot, the
// suite's writes, its restore) with SIGINT, SIGTERM and a second signal during the restore, a CPU-bound
// process beside it; and a SIGKILL, after which the next run (verify, and target:check) finishes the
// restore first and says so.
// The owners' state is read from the database file. The wide sweep (many moments, each signal, the
// candidate's two sides, the load) is `npm run reliability:cuts`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { changed, cpuHog, startCutReference, MOMENTS, readOwners, runCut, type CutPlan, type Moment } from './cuts-lib.ts';

const VERIFY = ['scripts/verify.ts', '--skip-load'];

const CUTS: { name: string; when: Moment; afterMs: number; plan: CutPlan }[] = [
  { name: 'SIGINT as CI sends it, during the snapshot', when: MOMENTS.ledgerStarted, afterMs: 0, plan: 'ci-sigint' },
  { name: 'SIGTERM alone, among the suite writes', when: MOMENTS.owed, afterMs: 1500, plan: 'ci-sigterm' },
  { name: 'SIGINT, a second SIGINT and SIGTERM while the restore runs', when: MOMENTS.owed, afterMs: 3000, plan: 'second-signal' },
  { name: 'SIGINT as CI sends it, as the suite ends and its restore begins', when: MOMENTS.suiteEnded, afterMs: 0, plan: 'ci-sigint' },
];

test('cut at any of these moments, the owners keep their gates and overrides; after a SIGKILL the next run gives them back first', {
  timeout: 400_000,
}, async (t) => {
  const target = await startCutReference();
  // At the lowest priority: it takes a core only when nothing else in npm test wants it.
  const hog = cpuHog(400_000, 19);
  t.after(async () => {
    hog.stop();
    await target.close();
  });
  let n = 0;
  for (const c of CUTS) {
    const reportsDir = join(target.dir, `reports-${++n}`);
    const r = await runCut({ target, args: VERIFY, cutWhen: c.when, cutAtMs: c.afterMs, plan: c.plan, reportsDir });
    const left = changed(target.before, readOwners(target.db, target.gates));
    const tail = r.stderr.trim().split('\n').at(-1) ?? '';
    t.diagnostic(`${c.name}: exit ${r.code ?? r.signal}, ${r.sent.join(' ')}, gone after ${r.goneAfterMs} ms: ${tail}`);
    assert.deepEqual(left, [], `${c.name}: ${r.stderr.slice(-1500)}`);
    // The cut may come after the run ended by itself (the last moment): then it passed, nothing to say. A
    // machine too busy to end the run before CI's SIGKILL leaves no exit to judge (the owners' state above is).
    if (r.code !== 0 && !r.sent.includes('SIGKILL')) {
      assert.equal(r.code, 3, `${c.name}: exit ${r.code}/${r.signal}`);
      assert.match(
        tail,
        /^verify: stopped by SIG(INT|TERM): (gave back (gate_\w+ isEnabled (true|false)(, )?)+|nothing to give back); nothing left owed$/,
        c.name,
      );
    }
  }
  // SIGKILL, which no process survives, among the suite's writes: the next run finds what is owed and gives it back first.
  const reportsDir = join(target.dir, `reports-${++n}`);
  const killed = await runCut({ target, args: VERIFY, cutWhen: MOMENTS.owed, cutAtMs: 2000, plan: 'sigkill', reportsDir });
  assert.equal(killed.signal, 'SIGKILL');
  const next = await runCut({ target, args: VERIFY, reportsDir });
  t.diagnostic(`SIGKILL at ${killed.goneAfterMs} ms; the next run: exit ${next.code}: ${/an earlier run.*$/m.exec(next.stderr)?.[0]}`);
  assert.deepEqual(changed(target.before, readOwners(target.db, target.gates)), [], next.stderr.slice(-1500));
  assert.match(next.stderr, /conformance: an earlier run \(conformance, [^)]+\) was cut before its restore: finished first, gave back gate_\w+ isEnabled/);
  assert.equal(next.code, 0, next.stdout.slice(-1500));
  // target:check, run after a SIGKILL, gives back what is owed too: its one write.
  const again = join(target.dir, `reports-${++n}`);
  await runCut({ target, args: VERIFY, cutWhen: MOMENTS.owed, cutAtMs: 1000, plan: 'sigkill', reportsDir: again });
  const check = await runCut({ target, args: ['manifest-check/cli.ts'], reportsDir: again });
  t.diagnostic(`target:check after a SIGKILL: exit ${check.code}: ${/an earlier run.*$/m.exec(check.stderr)?.[0]}`);
  assert.deepEqual(changed(target.before, readOwners(target.db, target.gates)), [], check.stderr.slice(-1500));
  assert.match(check.stderr, /(manifest|target):check: an earlier run \(conformance, [^)]+\) was cut before its restore: finished first/);
  assert.equal(check.code, 0, check.stdout.slice(-1500) + check.stderr.slice(-1500));
});
