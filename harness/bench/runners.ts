// npm run bench:runners -- [--script paging|mutation] [--profile smoke|baseline] [--seconds S]
//                          [--runners 1,2,4] [--latency MS[:S]] [--rounds R]
// One load profile run by one Artillery process and by 2 and 4 runners (load:* --runners N on this
// machine), each against a fresh reference server, side by side in one
// run, the runner counts taking turns round by round. It prints, per endpoint, the requests and
// the merged p50/p95 of each, and their ratio to the one-runner run: the same test split N ways
// must send the same requests, and on one machine its latencies say what N processes cost the
// machine, not what N machines would give. Figures, not a test: nothing here passes or fails.
import { readRunSummary, RUN_FILES } from '../../core/formats.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail, parseCommand, runCommand, integerOption } from '../../core/command.ts';
import { ConfigError, setEnv, targetSetInEnv } from '../../core/config.ts';
import type { RunSummary } from '../../core/formats.ts';
import { runPlan } from '../../load/command/run-plan.ts';
import type { LoadScript } from '../../core/formats.ts';
import { type RunnersResult, runnersTable } from './runners-table.ts';

const NAME = 'bench:runners';

const HELP = `usage: npm run bench:runners -- [options]

Runs one load profile with 1, 2 and 4 Artillery runners (equal integer shares of every rate,
every worker's records merged exactly: npm run load:paging -- --help, --runners) against fresh reference servers, and prints
per endpoint the requests and merged p50/p95 of each runner count and their ratio to one runner.

  --script NAME     paging or mutation (default paging)
  --profile NAME    smoke or baseline (default baseline)
  --seconds S       length of the profile's arrival-rate scenarios (default: the profile's own)
  --runners LIST    runner counts, comma-separated, the first the reference of the ratios (default 1,2,4)
  --latency MS[:S]  the reference server's added latency (npm run serve -- --help); default none
  --rounds R        rounds of all runner counts, taking turns (default 1); each round's table is printed

On one machine the runners share its cores with each other and with the server: the figures measure
the mechanism (same requests, same checks, one merged summary), not the capacity of N machines.
Runs on Artillery (installed by npm ci). Writes only to a temporary folder.
Environment: CONSOLE_BASE_URL must be unset (the benchmark starts its own reference servers).
Exit 0 figures printed, 3 the benchmark could not be carried out.`;

interface Args {
  script: LoadScript;
  profile: 'smoke' | 'baseline';
  seconds: number | undefined;
  runners: number[];
  latency: string | undefined;
  rounds: number;
}

function options(): Args {
  const { values } = parseCommand({
    name: NAME,
    help: HELP,
    options: {
      script: { type: 'string' },
      profile: { type: 'string' },
      seconds: { type: 'string' },
      runners: { type: 'string' },
      latency: { type: 'string' },
      rounds: { type: 'string' },
    },
  });
  const script = values.script ?? 'paging';
  if (script !== 'paging' && script !== 'mutation') fail(NAME, `--script must be paging or mutation, got ${JSON.stringify(script)}`);
  const profile = values.profile ?? 'baseline';
  if (profile !== 'smoke' && profile !== 'baseline') fail(NAME, `--profile must be smoke or baseline, got ${JSON.stringify(profile)}`);
  const runners = (values.runners ?? '1,2,4').split(',').map((x) => Number(x.trim()));
  if (runners.length < 2 || runners.some((n) => !Number.isInteger(n) || n < 1 || n > 16) || new Set(runners).size !== runners.length)
    fail(NAME, `--runners must be two or more different counts from 1 to 16, got ${JSON.stringify(values.runners)}`);
  return {
    script,
    profile,
    seconds: values.seconds === undefined ? undefined : integerOption(NAME, '--seconds', values.seconds, { min: 2, max: 600, fallback: 0 }),
    runners,
    latency: values.latency,
    rounds: integerOption(NAME, '--rounds', values.rounds, { min: 1, max: 20, fallback: 1 }),
  };
}

async function bench(a: Args): Promise<number> {
  if (targetSetInEnv()) throw new ConfigError('CONSOLE_BASE_URL is set: the benchmark starts its own reference servers; unset it');
  const reports = mkdtempSync(join(tmpdir(), 'bench-runners-'));
  // runPlan reads its configuration from the environment (load/lib/profiles.ts reads LOAD_SECONDS).
  setEnv({ CONSOLE_REPORTS_DIR: reports, ...(a.seconds !== undefined ? { LOAD_SECONDS: String(a.seconds) } : {}) });
  process.setMaxListeners(0);
  const started = Date.now();
  try {
    for (let round = 1; round <= a.rounds; round++) {
      // Taking turns: each round starts with the next runner count, so a drift of the machine reaches them alike.
      const order = a.runners.map((_, i) => a.runners[(i + round - 1) % a.runners.length]);
      const results: RunnersResult[] = [];
      for (const runners of order) {
        console.log(`bench:runners: round ${round}/${a.rounds}: ${a.script} ${a.profile} with ${runners} runner${runners === 1 ? '' : 's'}`);
        const t0 = Date.now();
        const { code } = await runPlan({
          scripts: [a.script],
          profile: a.profile,
          seed: 1,
          runners,
          target: { kind: 'configured', ...(a.latency ? { reference: { latency: a.latency } } : {}) },
        });
        if (code === 3) throw new ConfigError(`the run with ${runners} runners could not be carried out (see above)`);
        const summary = readRunSummary(join(reports, RUN_FILES.summary(a.script)));
        if (!summary) throw new ConfigError(`the run with ${runners} runners wrote no summary.json`);
        results.push({ runners, summary, seconds: (Date.now() - t0) / 1000 });
      }
      results.sort((x, y) => a.runners.indexOf(x.runners) - a.runners.indexOf(y.runners));
      console.log(
        `\nbench:runners: round ${round}: ${a.script} ${a.profile}${a.seconds ? ` (${a.seconds} s scenarios)` : ''}, reference${a.latency ? ` --latency ${a.latency}` : ''}; ` +
          `${results.map((r) => `${r.runners} runner${r.runners === 1 ? '' : 's'} ${r.seconds.toFixed(0)} s`).join(', ')}; ${((Date.now() - started) / 60_000).toFixed(1)} min so far\n`,
      );
      console.log(runnersTable(results));
    }
    return 0;
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

runCommand(NAME, () => bench(options()));
