// npm run clauses:proof: the proof map. Runs the suite (strict) against the reference started with
// each fault, hand-written and generated from the contract (`serve --list-faults --generated`), and
// writes which clauses each run failed, by clause: reports/clause-proof.json (core/formats.ts,
// ClauseProof). `--verify` reruns the faults of a map and checks that every pair it claims still holds.
// Long (about half an hour on 2 cores for 330 faults): its own command, nightly, never in `npm test`.
// The work is in proof-map.ts (what to run, the map, the check) and selftest-runs.ts (one run).
import { readClauseProofFile, writeClauseProofFile } from '../core/formats.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fail, integerOption, parseCommand, runCommand } from '../core/command.ts';
import { ROOT, reportsDirFromEnv } from '../core/config.ts';
import type { ClauseProof, FaultProofRun, ListedSwitch } from '../core/formats.ts';
import { buildMap, failedClauses, nameMatcher, sampleRuns, selectionFor, verifyRun } from './proof-map.ts';
import { listSwitches, pool, runSuite, stopHosts, withServer } from './selftest-runs.ts';
import { CLAUSES } from './support/clauses.ts';

const HELP = `usage: npm run clauses:proof -- [--only NAME[,NAME]] [--hand-only] [--lanes N] [--timeout S] [--out FILE]
       npm run clauses:proof -- --verify [FILE] [--sample N] [--seed N] [--lanes N] [--timeout S]

Runs the conformance suite (strict, one worker) against the reference server started with each fault,
the hand-written ones (the self-test's) and those generated from the contract (gen:...), and writes
the proof map: for every stated and inferred clause, the faults whose run failed it (provedBy), and
for a clause no fault proves, why. A generated fault runs the tests that name its clause; a
hand-written one the suite files the self-test gives it, whole. One line per run as it ends.
  --only NAME,...  only these faults (* matches any text: 'gen:message:*'); their runs replace theirs
                   in the map at --out when it exists, the rest of it is kept
  --hand-only      only the hand-written faults (about 70 runs instead of 330)
  --lanes N        runs at a time (default 2, one per core)
  --timeout S      a run still going after S seconds is stopped and counted a problem (default 300)
  --out FILE       where the map goes (default clause-proof.json in the reports folder)
  --verify [FILE]  check a map instead (default the one at --out): rerun its faults, each with the same
                   selection, and check that every clause it claims for the fault fails again
  --sample N       with --verify: only N of its faults, picked by a seeded shuffle (default: all)
  --seed N         the shuffle's seed (default 20261125)
  --fail-unproved  exit 1 when a stated clause is left unproved (a nightly gate)

Environment: CONSOLE_REPORTS_DIR, the reports folder (default reports/). The runs start their own
reference servers; CONSOLE_BASE_URL and the rest of the target's settings are not read.
Exit 0 map written (or every claimed pair held), 1 with --verify a claimed pair that no longer holds
(with --fail-unproved: a stated clause unproved), 3 bad options, no map to verify, or no run could be
carried out (the reference's list failed, every run stopped without a report).`;

const NAME = 'clauses:proof';

function git(args: string[]): string | null {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** The commit the runs are made at, and whether tracked files differ from it. */
function here(): { commit: string | null; dirty: boolean } {
  return { commit: git(['rev-parse', '--short=12', 'HEAD']), dirty: (git(['status', '--porcelain', '--untracked-files=no']) ?? '') !== '' };
}

/** Writes the map whole, or not at all (a run stopped while writing leaves the previous one). */
const writeMap = (file: string, map: ClauseProof) => writeClauseProofFile(file, map);

function readMap(file: string): ClauseProof {
  if (!existsSync(file)) throw new Error(`no proof map at ${shown(file)} (make one with npm run clauses:proof)`);
  const map = readClauseProofFile(file);
  if (!map) throw new Error(`${file} is not a proof map`);
  return map;
}

/** A path as the user would type it from where they are: relative inside the tree, absolute outside. */
const shown = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
};

const seconds = (since: number) => Math.round((Date.now() - since) / 1000);
const clock = (s: number) => `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;

/** A fault to run, or a legal variant that meets an inferred clause (strict: 'warns'): under --strict it fails that clause. */
type Candidate = ListedSwitch & { variant?: true };

/** One fault's (or warns variant's) run: its server, its selection, the clauses it failed. */
async function runFault(f: Candidate, timeoutMs: number, commit: string | null): Promise<FaultProofRun> {
  const started = Date.now();
  const selection = selectionFor(f, CLAUSES);
  const server = f.variant ? { variants: [f.name] } : { faults: [f.name], variants: f.alongside ?? [], ...(f.scale ? { scale: f.scale } : {}) };
  const outcome = await withServer(server, (s) => runSuite(s, { files: selection.files, grep: selection.grep, options: selection.options, timeoutMs }));
  return {
    name: f.name,
    ...(f.variant ? { variant: true } : {}),
    clause: f.clause,
    level: f.level,
    ...(f.generated ? { generated: f.generated } : {}),
    ...(f.alongside?.length ? { alongside: f.alongside } : {}),
    selection: selection.describe,
    verdict: outcome.verdict,
    tests: outcome.tests,
    fails: failedClauses(outcome),
    seconds: seconds(started),
    commit,
  };
}

/** Runs `faults` in lanes, one progress line each as it ends (n of total, elapsed, an estimate of what is left). */
async function runAll(
  faults: Candidate[],
  lanes: number,
  timeoutMs: number,
  commit: string | null,
  each: (r: FaultProofRun, line: string) => void,
): Promise<FaultProofRun[]> {
  const started = Date.now();
  let done = 0;
  const width = String(faults.length).length;
  return pool(
    faults.map((f) => async () => {
      const r = await runFault(f, timeoutMs, commit);
      done++;
      const elapsed = seconds(started);
      const left = Math.round((elapsed / done) * (faults.length - done));
      const fails = r.fails.includes(r.clause)
        ? `fails ${r.clause}${r.fails.length > 1 ? ` (+${r.fails.length - 1} more)` : ''}`
        : r.fails.length
          ? `fails ${r.fails.length} other clause${r.fails.length === 1 ? '' : 's'}, NOT ${r.clause}`
          : `fails NOTHING (${r.verdict})`;
      each(r, `[${String(done).padStart(width)}/${faults.length}] ${clock(elapsed)} (~${clock(left)} left) ${r.name.padEnd(44)} ${fails} (${r.seconds} s)`);
      return r;
    }),
    lanes,
  );
}

async function makeMap(opts: { only?: string[]; handOnly: boolean; lanes: number; timeoutMs: number; out: string; failUnproved: boolean }): Promise<number> {
  const switches = listSwitches(!opts.handOnly);
  // The legal variants that meet an inferred clause prove it too: a strict run fails them on it.
  const listed: Candidate[] = [...switches.faults, ...switches.variants.filter((v) => v.strict === 'warns').map((v) => ({ ...v, variant: true as const }))];
  const matches = opts.only ? nameMatcher(opts.only) : () => true;
  if (opts.only) for (const p of opts.only) if (!listed.some((f) => nameMatcher([p])(f.name))) throw new Error(`--only: no fault named ${p}`);
  const faults = listed.filter((f) => matches(f.name));
  // An --only run updates the map that is there: the other faults' runs are kept.
  const previous = opts.only && existsSync(opts.out) ? readMap(opts.out).faults.filter((r) => !matches(r.name) && listed.some((f) => f.name === r.name)) : [];
  const { commit, dirty } = here();
  const started = Date.now();
  const madeAt = new Date().toISOString();
  console.log(
    `clauses:proof: ${faults.length} run${faults.length === 1 ? '' : 's'}: ${faults.filter((f) => !f.variant && !f.generated).length} hand-written faults, ${faults.filter((f) => f.generated).length} generated, ${faults.filter((f) => f.variant).length} variants that meet an inferred clause; ${opts.lanes} at a time, strict; map: ${shown(opts.out)}`,
  );
  const finished: FaultProofRun[] = [];
  const mapOf = (runs: FaultProofRun[], partial: boolean) =>
    buildMap(CLAUSES, [...previous, ...runs], { madeAt, commit, dirty, partial, seconds: seconds(started), lanes: opts.lanes });
  const runs = await runAll(faults, opts.lanes, opts.timeoutMs, dirty ? `${commit}+changes` : commit, (r, line) => {
    console.log(line);
    finished.push(r);
    // Written as it goes: a run stopped half-way leaves a map of what was done, marked partial.
    writeMap(opts.out, mapOf(finished, true));
  });
  const all = [...previous, ...runs];
  const map = mapOf(
    runs,
    listed.some((f) => !all.some((r) => r.name === f.name)),
  );
  writeMap(opts.out, map);
  const { stated, inferred, faults: ran } = map.summary;
  const pct = (n: number, of: number) => (of ? `${Math.round((100 * n) / of)}%` : '-');
  console.log(
    `\nclauses:proof: stated ${stated.proved} of ${stated.total} proved (${pct(stated.proved, stated.total)}), inferred ${inferred.proved} of ${inferred.total} (${pct(inferred.proved, inferred.total)}); ${ran.run} faults run, ${ran.failingNothing} failing nothing, ${ran.problems} without a verdict; ${clock(seconds(started))}${map.partial ? ' (partial: not every fault is in the map)' : ''}`,
  );
  // A partial map leaves most clauses unproved: name only those a fault of this run aims at.
  const unproved = map.clauses.filter((x) => x.provedBy.length === 0);
  const named = map.partial ? unproved.filter((c) => faults.some((f) => f.clause === c.id)) : unproved;
  for (const c of named.slice(0, 40)) console.log(`  unproved [${c.level}] ${c.id}: ${c.why}`);
  if (named.length > 40) console.log(`  ... and ${named.length - 40} more (the map has each with why)`);
  if (named.length < unproved.length)
    console.log(`  (${unproved.length - named.length} more clauses unproved in this partial map, none aimed at by a fault of this run)`);
  console.log(`map written: ${shown(opts.out)}`);
  if (runs.length > 0 && runs.every((r) => !['pass', 'fail'].includes(r.verdict)))
    throw new Error(`no run could be carried out (first: ${runs[0].name}: ${runs[0].verdict})`);
  return opts.failUnproved && stated.unproved > 0 ? 1 : 0;
}

async function verify(opts: { file: string; sample?: number; seed: number; lanes: number; timeoutMs: number }): Promise<number> {
  const map = readMap(opts.file);
  const switches = listSwitches(true);
  const listed: Candidate[] = [...switches.faults, ...switches.variants.map((v) => ({ ...v, variant: true as const }))];
  const gone = map.faults.filter((r) => !listed.some((f) => f.name === r.name)).map((r) => r.name);
  if (gone.length)
    throw new Error(
      `the map names fault${gone.length > 1 ? 's' : ''} the reference no longer has: ${gone.slice(0, 3).join(', ')}${gone.length > 3 ? ', ...' : ''} (make the map again)`,
    );
  const chosen = opts.sample === undefined ? map.faults.filter((r) => r.fails.length > 0) : sampleRuns(map.faults, opts.sample, opts.seed);
  const pairs = chosen.reduce((n, r) => n + r.fails.length, 0);
  console.log(
    `clauses:proof --verify: ${chosen.length} fault${chosen.length === 1 ? '' : 's'} of the map made ${map.madeAt} (commit ${map.commit ?? 'unknown'}), ${pairs} claimed pairs${opts.sample !== undefined ? ` (sample, seed ${opts.seed})` : ''}`,
  );
  const again = chosen.map((r) => listed.find((f) => f.name === r.name)!);
  const broken: string[] = [];
  let held = 0;
  const { commit, dirty } = here();
  await runAll(again, opts.lanes, opts.timeoutMs, dirty ? `${commit}+changes` : commit, (rerun) => {
    const v = verifyRun(map.faults.find((r) => r.name === rerun.name)!, rerun.fails);
    held += v.claimed.length - v.missing.length;
    const extra = v.extra.length
      ? `; also fails ${v.extra.length} it does not claim (${v.extra.slice(0, 3).join(', ')}${v.extra.length > 3 ? ', ...' : ''})`
      : '';
    if (v.missing.length) broken.push(...v.missing.map((c) => `${v.name} -> ${c}`));
    console.log(
      `${v.missing.length ? 'BAD ' : 'ok  '} ${v.name.padEnd(44)} ${v.missing.length ? `${v.missing.length} of ${v.claimed.length} claimed NOT failed again (${v.missing.slice(0, 3).join(', ')}${v.missing.length > 3 ? ', ...' : ''}; ${rerun.verdict})` : `all ${v.claimed.length} claimed failed again`}${extra}`,
    );
  });
  console.log(`\nclauses:proof --verify: ${held} of ${pairs} claimed pairs held${broken.length ? `; ${broken.length} did not` : ''}`);
  return broken.length ? 1 : 0;
}

async function main(): Promise<number> {
  const { values, positionals } = parseCommand({
    name: NAME,
    help: HELP,
    options: {
      only: { type: 'string' },
      'hand-only': { type: 'boolean' },
      lanes: { type: 'string' },
      timeout: { type: 'string' },
      out: { type: 'string' },
      verify: { type: 'boolean' },
      sample: { type: 'string' },
      seed: { type: 'string' },
      'fail-unproved': { type: 'boolean' },
    },
    positionals: true,
  });
  const lanes = integerOption(NAME, '--lanes', values.lanes, { min: 1, fallback: 2 });
  const timeoutMs = integerOption(NAME, '--timeout', values.timeout, { min: 1, fallback: 300 }) * 1000;
  const out = resolve(values.out ?? join(reportsDirFromEnv(), 'clause-proof.json'));
  if (!values.verify) {
    if (positionals.length) fail(NAME, `unexpected argument ${JSON.stringify(positionals[0])} (a map file goes with --verify)`);
    if (values.sample !== undefined || values.seed !== undefined) fail(NAME, '--sample and --seed go with --verify');
    const only = values.only?.split(',').filter(Boolean);
    if (values.only !== undefined && !only?.length) fail(NAME, '--only needs at least one fault name');
    return makeMap({ only, handOnly: values['hand-only'] ?? false, lanes, timeoutMs, out, failUnproved: values['fail-unproved'] ?? false });
  }
  if (values.only !== undefined || values['hand-only'] || values['fail-unproved'])
    fail(NAME, '--only, --hand-only and --fail-unproved make a map; --verify checks one');
  if (positionals.length > 1) fail(NAME, '--verify takes one map file');
  return verify({
    file: positionals[0] ? resolve(positionals[0]) : out,
    sample: values.sample === undefined ? undefined : integerOption(NAME, '--sample', values.sample, { min: 1, fallback: 1 }),
    seed: integerOption(NAME, '--seed', values.seed, { min: 0, fallback: 20261125 }),
    lanes,
    timeoutMs,
  });
}

// The warm server processes end with the command, waited for (so that its CPU time counts theirs).
runCommand(NAME, () => main().finally(stopHosts));
