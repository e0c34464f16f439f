// npm run bench:candidate -- [--runs N] [--same-runs M] [--profile smoke|baseline] [--seconds S]
//                            [--latency MS[:S]] [--operation ID] [--change PCT] [--min-effect LIST] [--writes] [--no-busy] [--max-minutes M]
// The power of the side-by-side latency of `npm run candidate -- --latency` against today's baseline
// compare, measured on the same runs with the machine half busy. Three reference servers with network-
// like latency: the current, the same build, and the candidate with one operation slower by --change
// percent (the slow: fault). For every run of a condition (slowed: N runs, same build: M runs), both
// ways of judging it:
//  - side by side: one paired paging run, every request sent to the current and to the candidate in
//    random order (load/command/run-plan.ts, given a pair);
//  - baseline compare: a separate paging run of the current recorded as the baseline, then a separate
//    run of the candidate compared with it (load/compare/baseline.ts compareSummary), as a nightly job
//    compares with a baseline recorded before.
// With --writes, the mutation profile too, after the paging one, in both (candidate --latency --writes).
// A child process spins one core for the whole benchmark (half of this 2-core machine). Figures, not
// a test: nothing here passes or fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { OPERATIONS, type OperationId } from '../../contracts/index.ts';
import { fail, integerOption, parseCommand, runCommand } from '../../core/command.ts';
import { ConfigError, loadManifest, ROOT, setEnv, targetSetInEnv } from '../../core/config.ts';
import { type LoadScript, readRunSummary, type RunSummary } from '../../core/formats.ts';
import { startReference, type ReferenceServer } from '../../core/reference.ts';
import { compareSummary, DEFAULT_TOLERANCE } from '../../load/compare/baseline.ts';
import { pairedPlan } from '../../load/command/plan.ts';
import { runPlan } from '../../load/command/run-plan.ts';

const HELP = `usage: npm run bench:candidate -- [options]

How often the side-by-side latency of npm run candidate -- --latency finds a candidate slower on one
operation, and how often it flags the same build, against today's baseline compare (a baseline run of
the current, then a separate run of the candidate compared with it) on the same runs, with one core
kept busy by a spinning child process.

  --runs N          runs of the slowed candidate (default 10)
  --same-runs M     runs of the same build on both sides (default 2N: false alarms are the rarer event)
  --profile NAME    smoke or baseline (default smoke)
  --seconds S       length of the profile's arrival-rate scenarios (default 20)
  --latency MS[:S]  the reference servers' added latency, median ms and log spread (default 40)
  --operation ID    the operation slowed (default listExperiments: four of paging's endpoints; with
                    --writes one of the mutation profile's, e.g. updateMetric)
  --writes          the mutation profile too, after the paging one, in every run of both rules (as
                    candidate --latency --writes); each reference given to the runs as a URL target, so
                    the reference manifest's budget bounds the writes of each run
  --change PCT      its slowdown in percent (default 10; reference --fault slow:)
  --min-effect LIST the smallest slowdowns either rule counts, in percent, comma-separated: a table for
                    each, from the same runs (default 0,5; at 10, a +10% change is by design flagged
                    by neither)
  --no-busy         without the spinning child
  --max-minutes M   stop starting runs after M minutes and print what was measured (default 120)

Each run of each condition costs one paired run and two separate runs (about 3 x (S + 8) seconds).
Writes only to a temporary folder. CONSOLE_BASE_URL must be unset (it starts its own reference servers).
Exit 0 figures printed, 3 the benchmark could not be carried out.`;

interface Args {
  runs: number;
  sameRuns: number;
  profile: 'smoke' | 'baseline';
  seconds: number;
  latency: string;
  operation: OperationId;
  change: number;
  minEffects: number[];
  busy: boolean;
  maxMinutes: number;
  scripts: LoadScript[];
}

function options(): Args {
  const { values } = parseCommand({
    name: 'bench:candidate',
    help: HELP,
    options: {
      runs: { type: 'string' },
      'same-runs': { type: 'string' },
      profile: { type: 'string' },
      seconds: { type: 'string' },
      latency: { type: 'string' },
      operation: { type: 'string' },
      change: { type: 'string' },
      'min-effect': { type: 'string' },
      'no-busy': { type: 'boolean' },
      writes: { type: 'boolean' },
      'max-minutes': { type: 'string' },
    },
  });
  const profile = values.profile ?? 'smoke';
  if (profile !== 'smoke' && profile !== 'baseline') fail('bench:candidate', `--profile must be smoke or baseline, got ${JSON.stringify(profile)}`);
  const operation = values.operation ?? 'listExperiments';
  if (!(operation in OPERATIONS)) fail('bench:candidate', `--operation must be an operationId of the contract, got ${JSON.stringify(operation)}`);
  const runs = integerOption('bench:candidate', '--runs', values.runs, { min: 1, max: 100, fallback: 10 });
  return {
    runs,
    sameRuns: integerOption('bench:candidate', '--same-runs', values['same-runs'], { min: 1, max: 200, fallback: 2 * runs }),
    profile,
    seconds: integerOption('bench:candidate', '--seconds', values.seconds, { min: 2, max: 600, fallback: 20 }),
    latency: values.latency ?? '40',
    operation: operation as OperationId,
    change: integerOption('bench:candidate', '--change', values.change, { min: 1, max: 1000, fallback: 10 }),
    minEffects: minEffectList(values['min-effect']),
    busy: !values['no-busy'],
    scripts: values.writes ? ['paging', 'mutation'] : ['paging'],
    maxMinutes: integerOption('bench:candidate', '--max-minutes', values['max-minutes'], { min: 1, max: 24 * 60, fallback: 120 }),
  };
}

const minutes = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
const fig = (n: number) => Number(n.toPrecision(3)).toString();

/** `--min-effect` as fractions, ascending: "0,5" -> [0, 0.05]. */
function minEffectList(v: string | undefined): number[] {
  const list = (v ?? '0,5').split(',').map((x) => x.trim());
  if (list.some((x) => !/^\d+(\.\d+)?$/.test(x) || Number(x) > 1000))
    fail('bench:candidate', `--min-effect must be percents from 0 to 1000, comma-separated, got ${JSON.stringify(v)}`);
  return [...new Set(list.map((x) => Number(x) / 100))].sort((a, b) => a - b);
}

interface Judged {
  flagged: boolean;
  onOperation: boolean;
  endpoints: string[];
}

interface Outcome {
  condition: 'slowed' | 'same';
  /** Per --min-effect, in the order of Args.minEffects. */
  paired: Judged[];
  baseline: Judged[];
  largest: number;
}

async function bench(a: Args): Promise<number> {
  if (targetSetInEnv()) throw new ConfigError('CONSOLE_BASE_URL is set: the benchmark starts its own reference servers; unset it');
  const reports = mkdtempSync(join(tmpdir(), 'bench-candidate-'));
  process.setMaxListeners(0);
  setEnv({ CONSOLE_REPORTS_DIR: reports, LOAD_SECONDS: String(a.seconds) });
  const ofOperation = (endpoint: string) => endpoint === a.operation || endpoint.startsWith(`${a.operation}.`);
  const servers: ReferenceServer[] = [];
  let spinner: ChildProcess | undefined;
  const started = Date.now();
  try {
    const current = await startReference({ latency: a.latency, stderr: 'ignore' });
    servers.push(current);
    const same = await startReference({ latency: a.latency, stderr: 'ignore' });
    servers.push(same);
    const slowed = await startReference({ latency: a.latency, faults: [`slow:${a.operation}:${a.change}`], stderr: 'ignore' });
    servers.push(slowed);
    // One core spun for the whole benchmark: the machine half busy, both rules under the same load.
    if (a.busy) spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });

    /** Separate runs of the profiles on one server, as load:paging (and load:mutation) run them; their summaries. */
    const separate = async (s: ReferenceServer): Promise<RunSummary[]> => {
      setEnv({ CONSOLE_BASE_URL: s.baseUrl, CONSOLE_API_KEY: s.apiKey });
      try {
        const { code } = await runPlan({ scripts: a.scripts, profile: a.profile, seed: 1, target: { kind: 'configured' } });
        if (code === 3) throw new ConfigError('a separate load run could not be carried out (see above)');
      } finally {
        setEnv({ CONSOLE_BASE_URL: undefined, CONSOLE_API_KEY: undefined });
      }
      return a.scripts.map((script) => {
        const summary = readRunSummary(join(reports, 'load', script, 'summary.json'));
        if (!summary) throw new ConfigError(`a separate ${script} run wrote no summary.json`);
        return summary;
      });
    };
    const manifestPath = join(ROOT, 'fixtures/targets/reference.json');
    const manifest = loadManifest(manifestPath);
    // Given as URL targets (external), as the separate runs are: the manifest's budget bounds both alike.
    const side = (s: ReferenceServer) => ({ baseUrl: s.baseUrl, apiKey: s.apiKey, manifestPath, manifest, external: true });

    const plan: Outcome['condition'][] = [];
    // Interleaved conditions: a drift of the machine during the benchmark reaches both alike.
    for (let i = 0; i < Math.max(a.runs, a.sameRuns); i++) {
      if (i < a.runs) plan.push('slowed');
      if (i < a.sameRuns) plan.push('same');
    }
    const outcomes: Outcome[] = [];
    let cut = false;
    for (const [i, condition] of plan.entries()) {
      const elapsed = Date.now() - started;
      if (i > 0 && elapsed + elapsed / i > a.maxMinutes * 60_000) {
        console.log(`bench:candidate: --max-minutes ${a.maxMinutes} reached after ${i} of ${plan.length} runs; the table holds those`);
        cut = true;
        break;
      }
      const candidate = condition === 'slowed' ? slowed : same;
      const { latency } = await runPlan(
        pairedPlan({
          scripts: a.scripts,
          profile: a.profile,
          seed: 1,
          current: side(current),
          candidate: side(candidate),
          seconds: a.seconds,
          minEffect: a.minEffects[0],
          reportDir: join(reports, 'paired'),
          reportsRoot: reports,
          requestTimeoutMs: 15_000,
        }),
      );
      if (!latency) throw new ConfigError('a paired run gave no side-by-side verdict');
      if (latency.verdict === 'not carried out') throw new ConfigError(`a paired run could not be carried out: ${latency.reason}`);
      const base = await separate(current);
      const run = await separate(candidate);
      const judged = (flagged: string[], regression: boolean): Judged => ({ flagged: regression, onOperation: flagged.some(ofOperation), endpoints: flagged });
      // The paired verdict at a larger minimum follows from the same figures: the test and the interval's lower bound.
      const pairedAt = (m: number) => {
        const f = latency.endpoints.filter((e) => e.p < e.alpha && e.lower > 1 + m).map((e) => e.endpoint);
        return judged(f, f.length > 0);
      };
      // Each profile's run compared with its own baseline, as baseline:compare does per profile.
      const baselineAt = (m: number) => {
        const compared = run.map((r, k) => compareSummary(r, base[k], 'the current run', { ...DEFAULT_TOLERANCE, minEffect: m }));
        return judged(
          compared.flatMap((c) => c.endpoints.filter((e) => e.regression).map((e) => e.endpoint)),
          compared.some((c) => c.verdict === 'regression'),
        );
      };
      const o: Outcome = {
        condition,
        paired: a.minEffects.map(pairedAt),
        baseline: a.minEffects.map(baselineAt),
        largest: Math.max(...latency.endpoints.filter((e) => ofOperation(e.endpoint)).map((e) => e.ratio)),
      };
      outcomes.push(o);
      const left = minutes(((Date.now() - started) / (i + 1)) * (plan.length - i - 1));
      const say = (j: Judged) => (j.flagged ? `FLAGGED ${j.endpoints.join(', ') || 'the run'}` : 'pass');
      console.log(
        `bench:candidate: [${i + 1}/${plan.length}] ${condition === 'slowed' ? `+${a.change}% on ${a.operation}` : 'same build'} (ratio on ${a.operation} ${fig(o.largest)}x): ` +
          a.minEffects.map((m, k) => `min-effect ${fig(m * 100)}%: side by side ${say(o.paired[k])}, baseline compare ${say(o.baseline[k])}`).join('; ') +
          `; about ${left} left`,
      );
    }
    const count = (c: Outcome['condition'], pick: (o: Outcome) => boolean) => {
      const of = outcomes.filter((o) => o.condition === c);
      return `${of.filter(pick).length} of ${of.length}`;
    };
    let commit = 'unknown';
    try {
      commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      // Not a git checkout (the npm package): the figures stand without it.
    }
    console.log(
      `\nbench:candidate: ${a.scripts.join(' and ')} ${a.profile} (${a.seconds} s scenarios), reference --latency ${a.latency}, slow:${a.operation}:${a.change}, ${a.busy ? 'one core spun by a child process' : 'no busy child'}; ${outcomes.length} runs in ${minutes(Date.now() - started)}${cut ? ' (cut short by --max-minutes)' : ''}; ${new Date().toISOString()}, commit ${commit}\n`,
    );
    for (const [k, m] of a.minEffects.entries()) {
      console.log(`\n--min-effect ${fig(m * 100)}%\n`);
      console.log(`| rule | +${a.change}% on ${a.operation} found | same build flagged |`);
      console.log('|---|---|---|');
      console.log(`| side by side (candidate --latency) | ${count('slowed', (o) => o.paired[k].onOperation)} | ${count('same', (o) => o.paired[k].flagged)} |`);
      console.log(
        `| baseline compare (separate runs) | ${count('slowed', (o) => o.baseline[k].onOperation)} | ${count('same', (o) => o.baseline[k].flagged)} |`,
      );
    }
    return 0;
  } finally {
    spinner?.kill();
    for (const s of servers) await s.stop();
    rmSync(reports, { recursive: true, force: true });
  }
}

runCommand('bench:candidate', () => bench(options()));
