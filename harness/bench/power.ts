// npm run bench:power -- [--runs N] [--profile smoke|baseline] [--latency MS[:S]] [--seconds S]
//                        [--operation ID] [--changes 10,25,50] [--max-minutes M]
// How often the load compare finds a regression of known size, and how often it flags an unchanged
// server. The reference server answers behind network-like latency (--latency: loopback's ~1 ms
// hides everything); one paging run records the baseline, then runs of the paging profile, unchanged
// and with one operation slowed by each --changes percent (the slow: fault), take turns, so a drift
// of the machine during the benchmark reaches every condition alike. Each run is judged against that
// baseline by the compare as it is and by the ratio tolerances alone (the rule before the statistical
// one), and the table of flagged runs is printed. Figures, not a test: nothing here passes or fails.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail, parseCommand, runCommand } from '../../core/command.ts';
import { ConfigError, targetSetInEnv } from '../../core/config.ts';
import type { RunSummary } from '../../core/formats.ts';
import { runLoad } from '../../scripts/lib/load-run.ts';
import { judge, type Judgement, table, tally } from './power-judge.ts';

const HELP = `usage: npm run bench:power -- [options]

Runs the paging load profile many times against reference servers with network-like latency, one
operation unchanged or slowed by a known percent, and prints how many runs the compare flags: by
the statistical rule (load/compare/detect.ts, the compare as it is) and by the ratio tolerances alone.

  --runs N          runs per condition (default 10); the unchanged condition gets 2N (false alarms)
  --profile NAME    smoke or baseline (default baseline: about a minute a run)
  --seconds S       length of the profile's arrival-rate scenarios (default: the profile's own)
  --latency MS[:S]  the reference server's added latency, median ms and log spread (default 40)
  --operation ID    the operation slowed (default listExperiments: four of paging's endpoints)
  --changes LIST    slowdowns in percent, comma-separated (default 10,25,50)
  --max-minutes M   stop starting runs after M minutes and print what was measured (default 120)

The full measurement (about 53 minutes on 2 cores): npm run bench:power -- --runs 10
Needs k6 (npm run k6:install). Writes only to a temporary folder.
Environment: CONSOLE_BASE_URL must be unset (the benchmark starts its own reference servers).
Exit 0 figures printed, 3 the benchmark could not be carried out.`;

interface PowerArgs {
  runs: number;
  profile: 'smoke' | 'baseline';
  seconds: number | undefined;
  latency: string;
  operation: string;
  changes: number[];
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
      'max-minutes': { type: 'string' },
    },
  });
  const int = (v: string | undefined, name: string, min: number, max: number, fallback: number) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) fail('bench:power', `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return n;
  };
  const profile = values.profile ?? 'baseline';
  if (profile !== 'smoke' && profile !== 'baseline') fail('bench:power', `--profile must be smoke or baseline, got ${JSON.stringify(profile)}`);
  const changes = (values.changes ?? '10,25,50').split(',').map((x) => Number(x.trim()));
  if (changes.some((c) => !Number.isFinite(c) || c <= 0 || c > 1000))
    fail('bench:power', `--changes must be percents above 0, got ${JSON.stringify(values.changes)}`);
  return {
    runs: int(values.runs, '--runs', 1, 100, 10),
    profile,
    seconds: values.seconds === undefined ? undefined : int(values.seconds, '--seconds', 2, 600, 0),
    latency: values.latency ?? '40',
    operation: values.operation ?? 'listExperiments',
    changes,
    maxMinutes: int(values['max-minutes'], '--max-minutes', 1, 24 * 60, 120),
  };
}

const minutes = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

async function bench(a: PowerArgs): Promise<number> {
  if (targetSetInEnv()) throw new ConfigError('CONSOLE_BASE_URL is set: the benchmark starts its own reference servers; unset it');
  const reports = mkdtempSync(join(tmpdir(), 'bench-power-'));
  // runLoad reads its configuration from the environment: the reports go to the temporary folder, and
  // the length of the scenarios reaches k6 through it (load/lib/profiles.ts, LOAD_SECONDS).
  process.env.CONSOLE_REPORTS_DIR = reports;
  if (a.seconds !== undefined) process.env.LOAD_SECONDS = String(a.seconds);
  // Each runLoad registers its SIGINT/SIGTERM handlers once; many runs would warn of a leak.
  process.setMaxListeners(0);
  const summaryFile = join(reports, 'load', 'paging', 'summary.json');
  const started = Date.now();
  const once = async (change: number): Promise<RunSummary> => {
    const faults = change > 0 ? [`slow:${a.operation}:${change}`] : [];
    const code = await runLoad({
      scripts: ['paging'],
      profile: a.profile,
      compare: false,
      seed: 1,
      scale: undefined,
      reference: { latency: a.latency, faults },
    });
    // 1 (a threshold crossed) still measured something; 3 did not run.
    if (code === 3) throw new ConfigError('a load run could not be carried out (see above)');
    return JSON.parse(readFileSync(summaryFile, 'utf8')) as RunSummary;
  };
  try {
    console.log(`bench:power: recording the baseline (paging, ${a.profile}${a.seconds ? `, ${a.seconds} s` : ''}, latency ${a.latency})`);
    const baseline = await once(0);
    if (!baseline.samples) throw new ConfigError('the baseline run kept no request samples: the statistical rule cannot judge');
    const conditions = [0, ...a.changes];
    // The unchanged condition runs twice as often: the false-alarm rate is the rarer event to see.
    const plan: number[] = [];
    for (let r = 0; r < a.runs; r++) for (const c of conditions) plan.push(...(c === 0 ? [0, 0] : [c]));
    const judgements: Judgement[] = [];
    let cut = false;
    for (const [i, change] of plan.entries()) {
      const elapsed = Date.now() - started;
      const perRun = elapsed / (i + 1);
      if (elapsed + perRun > a.maxMinutes * 60_000) {
        console.log(`bench:power: --max-minutes ${a.maxMinutes} reached after ${i} of ${plan.length} runs; the table holds those`);
        cut = true;
        break;
      }
      const run = await once(change);
      const j = judge(change, run, baseline);
      judgements.push(j);
      const left = minutes(perRun * (plan.length - i - 1));
      console.log(
        `bench:power: [${i + 1}/${plan.length}] ${change ? `+${change}%` : 'unchanged'}: new rule ${j.flaggedNew ? `FLAGGED ${j.newEndpoints.join(', ')}` : 'pass'}` +
          `, old rule ${j.flaggedOld ? `FLAGGED ${j.oldEndpoints.join(', ')}` : 'pass'}; largest effect ${j.largestEffect?.toFixed(2) ?? '-'}x` +
          ` (${j.statistical} endpoints judged statistically; ${minutes(Date.now() - started)} so far, about ${left} left)`,
      );
    }
    console.log(
      `\nbench:power: paging ${a.profile}${a.seconds ? ` (${a.seconds} s scenarios)` : ''}, reference --latency ${a.latency}, ` +
        `slow:${a.operation}:<change>, ${judgements.length} runs against one baseline, ${minutes(Date.now() - started)}${cut ? ' (cut short by --max-minutes)' : ''}\n`,
    );
    console.log(table(tally(judgements, conditions), a.operation));
    return 0;
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

runCommand('bench:power', () => bench(options()));
