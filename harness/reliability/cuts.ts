// npm run reliability:cuts: the wide sweep of cut runs (npm test runs a few of them: cuts.test.ts).
// Each command (verify, the candidate's two sides, the load's mutation profile) runs against reference
// servers on database files with owners' state set beforehand; one plain run measures how long the
// command takes, then it is cut at moments spread over that time with each way of cutting (SIGINT as
// CI sends it, SIGTERM, a second signal during the restore, SIGKILL followed by the next run), with
// CPU-bound processes beside it if asked. Prints, per command and way, the cuts tried and the owners'
// states left changed (which must be 0), the exit codes, and how long the process group took to go.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { owedRestores } from '../../core/ledger.ts';
import { fail, integerOption, parseCommand } from '../../core/command.ts';
import { median } from '../../core/quantile.ts';
import { changed, cpuHog, startCutReference, readOwners, runCut, type CutPlan, type CutResult, type CutReference } from './cuts-lib.ts';

const NAME = 'reliability:cuts';
const HELP = `usage: npm run reliability:cuts -- [--moments N] [--hogs N] [--commands verify,candidate,load] [--plans ci-sigint,ci-sigterm,second-signal,sigkill]

Cuts runs of the suite's commands against reference servers on database files (owners' state set
beforehand: a gate switched from its seed, overrides on an experiment the manifest does not give the
suite), at N moments spread over a plain run's time, with each way of cutting; after each cut reads the
owners' state from the database files. A SIGKILL is followed by a plain run, which must give back first
what the killed one owed. Prints the cuts tried and the states left changed.

  --moments N   moments per command and way (default 8)
  --hogs N      CPU-bound processes beside the runs (default 0)
  --commands    which commands (default verify,candidate,load)
  --plans       which ways of cutting (default all four)

Starts its own servers on free loopback ports; every process it starts is bounded. Environment: none read.
Exit 0 when no cut left a state changed, 1 when one did, 3 bad arguments.`;

const PLANS: CutPlan[] = ['ci-sigint', 'ci-sigterm', 'second-signal', 'sigkill'];
const COMMANDS = ['verify', 'candidate', 'load'] as const;
type Command = (typeof COMMANDS)[number];

const { values } = parseCommand({
  name: NAME,
  help: HELP,
  options: { moments: { type: 'string' }, hogs: { type: 'string' }, commands: { type: 'string' }, plans: { type: 'string' } },
});
const moments = integerOption(NAME, '--moments', values.moments, { min: 1, max: 100, fallback: 8 });
const hogs = integerOption(NAME, '--hogs', values.hogs, { min: 0, max: 8, fallback: 0 });
const commands = (values.commands?.split(',') ?? [...COMMANDS]) as Command[];
const plans = (values.plans?.split(',') ?? PLANS) as CutPlan[];
for (const c of commands) if (!COMMANDS.includes(c)) fail(NAME, `--commands: one of ${COMMANDS.join(', ')}, got ${JSON.stringify(c)}`);
for (const p of plans) if (!PLANS.includes(p)) fail(NAME, `--plans: one of ${PLANS.join(', ')}, got ${JSON.stringify(p)}`);

/** The targets a command writes to, and how to run it against them in a reports folder. */
interface Subject {
  targets: CutReference[];
  run(reportsDir: string, cut?: { atMs: number; plan: CutPlan }): Promise<CutResult>;
}

async function subject(command: Command): Promise<Subject> {
  if (command === 'candidate') {
    const [current, candidate] = [await startCutReference('cc-cuts-current-'), await startCutReference('cc-cuts-candidate-')];
    const args = [
      'candidate/command.ts',
      '--current',
      current.server.baseUrl,
      '--candidate',
      candidate.server.baseUrl,
      '--current-manifest',
      current.manifestPath,
      '--candidate-manifest',
      candidate.manifestPath,
      '--writes',
      '--reads',
      '1',
    ];
    const env = { CONSOLE_CURRENT_API_KEY: current.server.apiKey, CONSOLE_CANDIDATE_API_KEY: candidate.server.apiKey };
    return {
      targets: [current, candidate],
      run: (reportsDir, cut) => runCut({ target: current, args, env, reportsDir, cutAtMs: cut?.atMs, plan: cut?.plan }),
    };
  }
  const target = await startCutReference();
  const args = command === 'verify' ? ['scripts/verify.ts', '--skip-load'] : ['load/command/load.ts', 'mutation'];
  return { targets: [target], run: (reportsDir, cut) => runCut({ target, args, reportsDir, cutAtMs: cut?.atMs, plan: cut?.plan }) };
}

const left = (s: Subject) => s.targets.flatMap((t) => changed(t.before, readOwners(t.db, t.gates)).map((x) => `${t.server.baseUrl}: ${x}`));

interface Row {
  command: Command;
  plan: CutPlan;
  cuts: number;
  changed: number;
  exits: Record<string, number>;
  /** From the first signal to the whole group gone, ms. */
  gone: number[];
  /** Cuts where CI's SIGKILL found the group still there. */
  killed: number;
  /** After a SIGKILL: the next run gave back what was owed, and said so. */
  finished?: number;
}

/** Whether a ledger in `dir` or below (the candidate's per-side folders) still owes a restore. */
function owedUnder(dir: string): boolean {
  if (!existsSync(dir)) return false;
  if (owedRestores(dir).length) return true;
  return readdirSync(dir, { withFileTypes: true }).some((e) => e.isDirectory() && owedUnder(join(dir, e.name)));
}

async function sweep(command: Command): Promise<Row[]> {
  const s = await subject(command);
  const rows: Row[] = [];
  try {
    let n = 0;
    const plain = await s.run(join(s.targets[0].dir, `reports-${n++}`));
    const spanMs = plain.goneAfterMs;
    console.log(`${NAME}: ${command}: a plain run took ${(spanMs / 1000).toFixed(1)} s (exit ${plain.code}); ${left(s).join('; ') || 'owners unchanged'}`);
    for (const plan of plans) {
      const row: Row = { command, plan, cuts: 0, changed: 0, exits: {}, gone: [], killed: 0, ...(plan === 'sigkill' ? { finished: 0 } : {}) };
      for (let i = 0; i < moments; i++) {
        // Spread from the first second to just past the plain run's end (a cut may find the run gone).
        const atMs = Math.round(300 + ((spanMs + 500 - 300) * i) / Math.max(1, moments - 1));
        const reportsDir = join(s.targets[0].dir, `reports-${n++}`);
        const r = await s.run(reportsDir, { atMs, plan });
        row.cuts++;
        const exit = String(r.code ?? r.signal);
        row.exits[exit] = (row.exits[exit] ?? 0) + 1;
        row.gone.push(Math.max(0, r.goneAfterMs - atMs));
        if (plan !== 'sigkill' && r.sent.includes('SIGKILL')) row.killed++;
        let state = left(s);
        let note = '';
        const owed = owedUnder(reportsDir);
        if (plan === 'sigkill') {
          // The next run in the same reports folder gives back first what the killed one owed.
          const next = await s.run(reportsDir);
          // Killed before its snapshot, a run owes nothing: nothing for the next one to finish.
          if (/was cut before its restore: finished first/.test(next.stderr) || !owed) row.finished!++;
          note = ` -> next run exit ${next.code}${/finished first/.test(next.stderr) ? ', finished the restore first' : ''}`;
          state = left(s);
        }
        if (state.length) row.changed++;
        const tail = r.stderr.trim().split('\n').at(-1) ?? '';
        console.log(
          `${NAME}: ${command} ${plan} at ${(atMs / 1000).toFixed(2)} s: exit ${exit}, gone ${r.goneAfterMs - atMs} ms after${note}: ${state.length ? `CHANGED ${state.join('; ')}` : 'owners unchanged'}${/stopped by/.test(tail) ? ` | ${tail}` : ''}`,
        );
      }
      rows.push(row);
    }
  } finally {
    for (const t of s.targets) await t.close();
  }
  return rows;
}

const load = Array.from({ length: hogs }, () => cpuHog(3 * 3600_000));
let rows: Row[] = [];
try {
  for (const c of commands) rows = rows.concat(await sweep(c));
} finally {
  for (const h of load) h.stop();
}
console.log(`\n${NAME}: ${moments} moments per command and way, ${hogs} CPU-bound process${hogs === 1 ? '' : 'es'} beside`);
console.log('command    way             cuts  changed  exits                 gone after the cut (median / max ms)  SIGKILL needed  next run finished');
for (const r of rows)
  console.log(
    `${r.command.padEnd(10)} ${r.plan.padEnd(15)} ${String(r.cuts).padStart(4)}  ${String(r.changed).padStart(7)}  ${Object.entries(r.exits)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ')
      .padEnd(
        20,
      )}  ${`${r.gone.length ? Math.round(median(r.gone)) : 0} / ${Math.max(0, ...r.gone)}`.padEnd(37)}  ${String(r.killed).padStart(14)}  ${r.finished === undefined ? '' : `${r.finished}/${r.cuts}`}`,
  );
const total = rows.reduce((a, r) => a + r.changed, 0);
console.log(`total: ${rows.reduce((a, r) => a + r.cuts, 0)} cuts, ${total} left an owner's state changed`);
process.exit(total ? 1 : 0);
