// npm run baseline:update | baseline:compare -- [options]
// Parses its options and runs load/compare/baseline.ts: `update` records the last run as the
// baseline, `compare` sets the last run (or merged runners) against it and exits 2 on a regression.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail, parseCommand, runCommand } from '../core/command.ts';
import { compareRun, DEFAULT_TOLERANCE, printCompare, updateBaseline } from '../load/compare/baseline.ts';

const HELP = `usage: npm run baseline:update -- [--script paging|mutation] [--no-samples] [--baselines DIR]
       npm run baseline:compare -- [--script paging|mutation] [--merge A.json B.json ...] [--out FILE]
                                   [--min-effect PCT] [--tolerance-p50|-p95|-p99 X] [--min-delta-ms N]
                                   [--baselines DIR]

update   records reports/load/<script>/summary.json (the last run) as the baseline of its script and
         profile: load/baselines/<script>.json for the smoke profile, load/baselines/<script>.<profile>.json
         for baseline and stress. Both scripts unless --script is given. --no-samples leaves out
         the request-duration histograms, so the compare judges latency by the ratio tolerances
         alone: for a baseline that other machines compare with (the committed smoke baselines),
         where the statistical rule would read one machine's make-up as a regression.
compare  compares reports/load/<script>/summary.json (or, with --merge, the summaries of several
         runners merged per script) with the baseline of the same script and profile (a
         <script>.json of that profile is used when no <script>.<profile>.json exists), per endpoint:
         p50, p95, p99, throughput and error rate, latencies normalised by the run's calibration
         request. Writes reports/load/compare.json (or --out). Tolerances: --tolerance-p50/-p95/-p99 X
         (factor, default ${DEFAULT_TOLERANCE.p50}/${DEFAULT_TOLERANCE.p95}/${DEFAULT_TOLERANCE.p99}), --min-delta-ms N (default ${DEFAULT_TOLERANCE.minDeltaMs}).
         When the run and the baseline both keep their request durations (runs of npm run load:*
         do, in summary.json), latency is judged statistically: a regression when a one-sided
         Mann-Whitney test says the calibrated durations are slower (alpha ${DEFAULT_TOLERANCE.alpha} over the endpoints)
         and the 95% interval of the median ratio lies above 1 + --min-effect PCT (default ${(DEFAULT_TOLERANCE.minEffect ?? 0) * 100}).
         Endpoints with too few requests for the test, and runs without samples, keep the tolerances.

reports/ is CONSOLE_REPORTS_DIR when it is set, as for npm run load:* (the run read is the one they wrote).
--baselines DIR  the baselines folder to write (update) or compare with (compare) instead of load/baselines/

Exit codes: 0 pass or no baseline; 2 regression; 3 cannot be done (no run, unreadable file, bad option).`;

const NAME = 'baseline';

function positive(v: string | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0) fail(NAME, `${name} must be a positive number, got ${JSON.stringify(v)}`);
  return n;
}

/** A percentage ("10" or "10%"); 0 judges by the test and the interval's lower bound above 1 alone. */
function percent(v: string | undefined): number | undefined {
  if (v === undefined) return DEFAULT_TOLERANCE.minEffect;
  const n = Number(v.trim().replace(/%$/, ''));
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1000) fail(NAME, `--min-effect must be a percentage from 0 to 1000, got ${JSON.stringify(v)}`);
  return n / 100;
}

function main(): number {
  const { values, positionals } = parseCommand({
    name: NAME,
    help: HELP,
    positionals: true,
    options: {
      script: { type: 'string' },
      merge: { type: 'boolean' },
      'no-samples': { type: 'boolean' },
      out: { type: 'string' },
      'tolerance-p50': { type: 'string' },
      'tolerance-p95': { type: 'string' },
      'tolerance-p99': { type: 'string' },
      'min-delta-ms': { type: 'string' },
      'min-effect': { type: 'string' },
      baselines: { type: 'string' },
    },
  });
  const [command, ...files] = positionals;
  if (values.script !== undefined && !['paging', 'mutation'].includes(values.script))
    fail(NAME, `--script must be paging or mutation, got ${JSON.stringify(values.script)}`);
  const scripts = values.script ? [values.script] : ['paging', 'mutation'];
  const baselinesDir = values.baselines === undefined ? undefined : resolve(values.baselines);
  if (baselinesDir !== undefined && !(existsSync(baselinesDir) && statSync(baselinesDir).isDirectory()))
    fail(NAME, `--baselines: no folder ${values.baselines}`);
  if (command === 'update') {
    if (files.length) fail(NAME, `unexpected ${files[0]}: update takes no files`);
    for (const s of scripts) console.log(`baseline: wrote ${updateBaseline(s, undefined, baselinesDir, !values['no-samples'])}`);
    return 0;
  }
  if (values['no-samples']) fail(NAME, '--no-samples is an option of update');
  if (command !== 'compare') fail(NAME, `first argument must be update or compare, got ${JSON.stringify(command)} (see --help)`);
  if (files.length && !values.merge) fail(NAME, `unexpected ${files[0]}: files are given with --merge`);
  if (values.merge && files.length === 0) fail(NAME, '--merge needs one or more summary files');
  const tolerance = {
    ...DEFAULT_TOLERANCE,
    p50: positive(values['tolerance-p50'], '--tolerance-p50', DEFAULT_TOLERANCE.p50),
    p95: positive(values['tolerance-p95'], '--tolerance-p95', DEFAULT_TOLERANCE.p95),
    p99: positive(values['tolerance-p99'], '--tolerance-p99', DEFAULT_TOLERANCE.p99),
    minDeltaMs: positive(values['min-delta-ms'], '--min-delta-ms', DEFAULT_TOLERANCE.minDeltaMs),
    minEffect: percent(values['min-effect']),
  };
  const result = compareRun({
    scripts: values.script ? [values.script] : undefined,
    merge: values.merge ? files : undefined,
    baselinesDir,
    tolerance,
    out: values.out ? resolve(values.out) : undefined,
  });
  printCompare(result);
  return result.verdict === 'regression' ? 2 : 0;
}

runCommand(NAME, main);
