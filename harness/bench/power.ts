// npm run bench:power -- [--runs N] [--profile smoke|baseline] [--latency MS[:S]] [--seconds S]
//                        [--operation ID] [--changes 10,25,50] [--route-changes 25] [--calibration unknown-path|pipelines] [--max-minutes M]
// How often the load compare finds a regression of known size, and how often it flags an unchanged
// server. The reference server answers behind network-like latency (--latency: loopback's ~1 ms
// hides everything); one paging run records the baseline, then runs of the paging profile, unchanged
// and with one operation slowed by each --changes percent (the slow: fault), take turns, so a drift
// of the machine during the benchmark reaches every condition alike. Each run is judged against that
// baseline by the compare as it is and by the ratio tolerances alone (the rule before the statistical
// one), and the table of flagged runs is printed. With --route-changes, the operation is also slowed
// in front of its route (slow-route.ts: a proxy slowing every request on its path, refusals of
// requests without the key too, as a gateway rule would), and every run goes through that proxy.
// Figures, not a test: nothing here passes or fails.
import { readRunSummary } from '../../core/formats.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail, parseCommand, runCommand, integerOption } from '../../core/command.ts';
import { ConfigError, setEnv, targetSetInEnv } from '../../core/config.ts';
import type { RunSummary } from '../../core/formats.ts';
import { startReference } from '../../core/reference.ts';
import { OPERATIONS, type OperationId } from '../../contracts/index.ts';
import { runPlan } from '../../load/command/run-plan.ts';
import { type Condition, judgeRun, type Judgement, table, tallyJudgements } from './power-judge.ts';
import { startSlowRoute } from './slow-route.ts';

/** The calibration request before the ruler was moved off the measured routes (load/lib/calibration.ts), for comparison. */
const PIPELINES_RULER = '/console/v1/release_pipelines?limit=1';

const HELP = `usage: npm run bench:power -- [options]

Runs the paging load profile many times against reference servers with network-like latency, one
operation unchanged or slowed by a known percent, and prints how many runs the compare flags: by
the statistical rule (load/compare/detect.ts, the compare as it is) and by the ratio tolerances alone.

  --runs N          runs per condition (default 10); the unchanged condition gets 2N (false alarms)
  --profile NAME    smoke or baseline (default baseline: about a minute a run)
  --seconds S       length of the profile's arrival-rate scenarios (default: the profile's own)
  --latency MS[:S]  the reference server's added latency, median ms and log spread (default 40)
  --operation ID    the operation slowed (default listExperiments: four of paging's endpoints)
  --changes LIST    slowdowns in percent of the operation's handler (reference --fault slow:), comma-separated
                    (default 10,25,50)
  --route-changes LIST
                    slowdowns in percent in front of the operation's route, comma-separated (default none):
                    a loopback proxy holds back every request on its path, with or without the key, by that
                    share of the time the server took, as a gateway rule would; all runs then go through it
  --calibration RULER  unknown-path (default: the suite's ruler, a path no operation has) or pipelines
                    (the ruler before: GET ${PIPELINES_RULER} without the key, on a measured route)
  --max-minutes M   stop starting runs after M minutes and print what was measured (default 120)

The full measurement (about 53 minutes on 2 cores): npm run bench:power -- --runs 10
A route slowdown against a handler slowdown of one operation (docs/load.md, "Power of the compare"):
  npm run bench:power -- --operation listReleasePipelines --changes 25 --route-changes 25 --runs 5 --seconds 30
Runs on Artillery (installed by npm ci). Writes only to a temporary folder.
Environment: CONSOLE_BASE_URL must be unset (the benchmark starts its own reference servers).
Exit 0 figures printed, 3 the benchmark could not be carried out.`;

interface PowerArgs {
  runs: number;
  profile: 'smoke' | 'baseline';
  seconds: number | undefined;
  latency: string;
  operation: OperationId;
  changes: number[];
  routeChanges: number[];
  calibration: 'unknown-path' | 'pipelines';
  maxMinutes: number;
}

function options(): PowerArgs {
  const { values } = parseCommand({
    name: 'bench:power',
    help: HELP,
    options: {
      runs: { type: 'string' },
      profile: { type: 'string' },
      seconds: { type: 'string' },
      latency: { type: 'string' },
      operation: { type: 'string' },
      changes: { type: 'string' },
      'route-changes': { type: 'string' },
      calibration: { type: 'string' },
      'max-minutes': { type: 'string' },
    },
  });
  const profile = values.profile ?? 'baseline';
  if (profile !== 'smoke' && profile !== 'baseline') fail('bench:power', `--profile must be smoke or baseline, got ${JSON.stringify(profile)}`);
  const percents = (v: string | undefined, name: string, fallback: string) => {
    const list = (v ?? fallback)
      .split(',')
      .filter((x) => x.trim() !== '')
      .map((x) => Number(x.trim()));
    if (list.some((c) => !Number.isFinite(c) || c <= 0 || c > 1000)) fail('bench:power', `${name} must be percents above 0, got ${JSON.stringify(v)}`);
    return list;
  };
  const changes = percents(values.changes, '--changes', '10,25,50');
  const routeChanges = percents(values['route-changes'], '--route-changes', '');
  const operation = values.operation ?? 'listExperiments';
  if (!(operation in OPERATIONS)) fail('bench:power', `--operation must be an operationId of the contract, got ${JSON.stringify(operation)}`);
  const calibration = values.calibration ?? 'unknown-path';
  if (calibration !== 'unknown-path' && calibration !== 'pipelines')
    fail('bench:power', `--calibration must be unknown-path or pipelines, got ${JSON.stringify(calibration)}`);
  return {
    runs: integerOption('bench:power', '--runs', values.runs, { min: 1, max: 100, fallback: 10 }),
    profile,
    seconds: values.seconds === undefined ? undefined : integerOption('bench:power', '--seconds', values.seconds, { min: 2, max: 600, fallback: 0 }),
    latency: values.latency ?? '40',
    operation: operation as OperationId,
    changes,
    routeChanges,
    calibration,
    maxMinutes: integerOption('bench:power', '--max-minutes', values['max-minutes'], { min: 1, max: 24 * 60, fallback: 120 }),
  };
}

const minutes = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

async function bench(a: PowerArgs): Promise<number> {
  if (targetSetInEnv()) throw new ConfigError('CONSOLE_BASE_URL is set: the benchmark starts its own reference servers; unset it');
  const reports = mkdtempSync(join(tmpdir(), 'bench-power-'));
  // runPlan reads its configuration from the environment: the reports go to the temporary folder, and
  // the length of the scenarios reaches the profiles through it (load/lib/profiles.ts, LOAD_SECONDS).
  setEnv({ CONSOLE_REPORTS_DIR: reports, ...(a.seconds !== undefined ? { LOAD_SECONDS: String(a.seconds) } : {}) });
  // Each runPlan registers its SIGINT/SIGTERM handlers once; many runs would warn of a leak.
  process.setMaxListeners(0);
  const summaryFile = join(reports, 'load', 'paging', 'summary.json');
  const started = Date.now();
  if (a.calibration === 'pipelines') setEnv({ LOAD_CALIBRATION_PATH: PIPELINES_RULER });
  // The operation's route as a gateway would match it: its path up to the first path parameter.
  const route = OPERATIONS[a.operation].path.split('{')[0].replace(/\/$/, '');
  const viaProxy = a.routeChanges.length > 0;
  const once = async ({ change, where }: Condition): Promise<RunSummary> => {
    const faults = change > 0 && where === 'handler' ? [`slow:${a.operation}:${change}`] : [];
    let code: number;
    if (!viaProxy) {
      code = (await runPlan({ scripts: ['paging'], profile: a.profile, seed: 1, target: { kind: 'configured', reference: { latency: a.latency, faults } } }))
        .code;
    } else {
      // The reference behind the route proxy, for every condition alike: the hop costs each run the same.
      const server = await startReference({ latency: a.latency, faults, stderr: 'pipe' });
      const proxy = await startSlowRoute({ upstream: server.baseUrl, route, percent: where === 'route' ? change : 0 });
      setEnv({ CONSOLE_BASE_URL: proxy.baseUrl, CONSOLE_API_KEY: server.apiKey });
      try {
        code = (await runPlan({ scripts: ['paging'], profile: a.profile, seed: 1, target: { kind: 'configured' } })).code;
      } finally {
        setEnv({ CONSOLE_BASE_URL: undefined, CONSOLE_API_KEY: undefined });
        await proxy.stop();
        await server.stop();
      }
    }
    // 1 (a threshold crossed) still measured something; 3 did not run.
    if (code === 3) throw new ConfigError('a load run could not be carried out (see above)');
    const summary = readRunSummary(summaryFile);
    if (!summary) throw new ConfigError(`the load run wrote no ${summaryFile}`);
    return summary;
  };
  try {
    console.log(`bench:power: recording the baseline (paging, ${a.profile}${a.seconds ? `, ${a.seconds} s` : ''}, latency ${a.latency})`);
    const baseline = await once({ change: 0, where: 'handler' });
    if (!baseline.samples) throw new ConfigError('the baseline run kept no request samples: the statistical rule cannot judge');
    const conditions: Condition[] = [
      { change: 0, where: 'handler' },
      ...a.changes.map((change) => ({ change, where: 'handler' as const })),
      ...a.routeChanges.map((change) => ({ change, where: 'route' as const })),
    ];
    // The unchanged condition runs twice as often: the false-alarm rate is the rarer event to see.
    const plan: Condition[] = [];
    for (let r = 0; r < a.runs; r++) for (const c of conditions) plan.push(...(c.change === 0 ? [c, c] : [c]));
    const judgements: Judgement[] = [];
    let cut = false;
    for (const [i, condition] of plan.entries()) {
      const elapsed = Date.now() - started;
      const perRun = elapsed / (i + 1);
      if (elapsed + perRun > a.maxMinutes * 60_000) {
        console.log(`bench:power: --max-minutes ${a.maxMinutes} reached after ${i} of ${plan.length} runs; the table holds those`);
        cut = true;
        break;
      }
      const run = await once(condition);
      const { change, where } = condition;
      const j = judgeRun(change, run, baseline, undefined, where);
      judgements.push(j);
      const left = minutes(perRun * (plan.length - i - 1));
      console.log(
        `bench:power: [${i + 1}/${plan.length}] ${change ? `+${change}% ${where === 'route' ? 'in front of the route' : 'in the handler'}` : 'unchanged'}: new rule ${j.flaggedNew ? `FLAGGED ${j.newEndpoints.join(', ')}` : 'pass'}` +
          `, old rule ${j.flaggedOld ? `FLAGGED ${j.oldEndpoints.join(', ')}` : 'pass'}; largest effect ${j.largestEffect?.toFixed(2) ?? '-'}x` +
          ` (${j.statistical} endpoints judged statistically; ${minutes(Date.now() - started)} so far, about ${left} left)`,
      );
    }
    console.log(
      `\nbench:power: paging ${a.profile}${a.seconds ? ` (${a.seconds} s scenarios)` : ''}, reference --latency ${a.latency}, ` +
        `slow:${a.operation}:<change>${viaProxy ? ` and ${route} slowed in front by a proxy` : ''}, calibration ${a.calibration === 'pipelines' ? PIPELINES_RULER : 'on a path no operation has'}, ` +
        `${judgements.length} runs against one baseline, ${minutes(Date.now() - started)}${cut ? ' (cut short by --max-minutes)' : ''}\n`,
    );
    console.log(table(tallyJudgements(judgements, conditions), a.operation));
    return 0;
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

runCommand('bench:power', () => bench(options()));
