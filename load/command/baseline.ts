// npm run baseline:update | baseline:compare -- [options]
// Parses its options and runs load/compare/baseline.ts: `update` records the last run as the
// baseline, `compare` sets the last run (or merged runners) against it and exits 2 on a regression.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail, parseCommand, runCommand } from '../../core/command.ts';
import { loadConfigOr } from '../../core/config.ts';
import { LOAD_SCRIPTS } from '../../core/formats.ts';
import { compareRun, DEFAULT_TOLERANCE, printCompare, updateBaseline } from '../compare/baseline.ts';
import { mergeRuns } from './merge-runs.ts';

const HELP = `usage: npm run baseline:update -- [--script paging|mutation] [--no-samples]
       npm run baseline:compare -- [--script paging|mutation] [--merge RUNNER ... [--history FILE]] [--out FILE]
                                   [--min-effect PCT] [--tolerance-p50|-p95|-p99 X] [--min-delta-ms N]

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
--merge  RUNNER is a run's summary.json or its folder (a run of npm run load:* on another machine, or
         of load:cloud --report in a clone of the suite), with its request-duration histograms, which make the merge
         exact. The runs are merged per script (counts, rates, checks, transport, percentiles from the
         merged duration histograms; one script and profile), judged
         as a load run is (thresholds again on the merged figures) and written to
         reports/load/<script>/summary.json ("runners": N), which the compare, baseline:update and
         the report then read like a single run's. --history FILE adds the merged run to that run
         history (load figures; no conformance verdict).

--baselines DIR  the baselines folder to write (update) or compare with (compare) instead of load/baselines/

Environment: CONSOLE_REPORTS_DIR (where the last run is read and the merged one written, default reports/);
CONSOLE_TARGET_MANIFEST (the target a merged run is recorded against, with --history); CONSOLE_STRICT.
Exit 0 pass or no baseline; 2 regression; with --merge also 1 (a check of the merged run failed: a
contract matter) and 3 (a runner could not run, or over the transport budget); 3 cannot be done (no
run, unreadable file, runs of different profiles, bad option).`;

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

async function main(): Promise<number> {
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
      history: { type: 'string' },
      baselines: { type: 'string' },
    },
  });
  const [command, ...files] = positionals;
  if (values.script !== undefined && !(LOAD_SCRIPTS as readonly string[]).includes(values.script))
    fail(NAME, `--script must be ${LOAD_SCRIPTS.join(' or ')}, got ${JSON.stringify(values.script)}`);
  const scripts = values.script ? [values.script] : [...LOAD_SCRIPTS];
  const baselinesDir = values.baselines === undefined ? undefined : resolve(values.baselines);
  if (baselinesDir !== undefined && !(existsSync(baselinesDir) && statSync(baselinesDir).isDirectory()))
    fail(NAME, `--baselines: no folder ${values.baselines}`);
  // No target is needed here: the configuration gives the reports folder (where load:* wrote the run) and the manifest.
  const config = loadConfigOr((reason) => fail(NAME, reason), { ...process.env, CONSOLE_BASE_URL: '' });
  if (command === 'update') {
    if (files.length) fail(NAME, `unexpected ${files[0]}: update takes no files`);
    for (const s of scripts) console.log(`baseline: wrote ${updateBaseline(s, config.reportsDir, baselinesDir, !values['no-samples'])}`);
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
  if (values.history !== undefined && !values.merge) fail(NAME, '--history is an option of compare --merge (verify adds its own runs)');
  const out = values.out ? resolve(values.out) : undefined;
  if (values.merge) {
    if (values.script) fail(NAME, '--script and --merge: the merged files say their script');
    return mergeRuns({
      files,
      reportsDir: config.reportsDir,
      baselinesDir,
      tolerance,
      out,
      history: values.history === undefined ? undefined : resolve(values.history),
      manifestPath: config.manifestPath,
      strict: config.strict,
    });
  }
  const result = compareRun({ scripts, reportsDir: config.reportsDir, baselinesDir, tolerance, out });
  printCompare(result);
  return result.verdict === 'regression' ? 2 : 0;
}

runCommand(NAME, main);
