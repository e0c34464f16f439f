// npm run load:paging | load:mutation | load:smoke -- [--profile smoke|baseline|stress] [--compare] [--seed N] [--scale N]
//                                                    [--strict] [--latency MS[:S]] [--fault NAME] [--variant NAME] [--runners N]
//                                                    [--config FILE] [--overrides JSON] [--environment NAME]
// Parses its options into a load plan for the runner (load/command/run-plan.ts): a load profile on
// Artillery against the target (or a reference server it starts), writing
// reports/load/<script>/{summary.json,junit.xml,artillery.json}; with --export, the profile prepared as
// a self-contained Artillery script (DIR/<script>.yml, its processor and data) and run by nothing here.
import { relative, resolve } from 'node:path';
import { fail, integerOption, parseCommand, runCommand } from '../../core/command.ts';
import { LOAD_PROFILES, LOAD_SCRIPTS, type LoadScript } from '../../core/formats.ts';
import { readShape, shippedShapeFile } from '../artillery/shape.ts';
import { LOAD_PLAN_OPTIONS, type LoadPlan, readPlanFile } from './plan.ts';
import { runPlan } from './run-plan.ts';

const HELP = `usage: npm run load:paging   -- [options]   (load/paging.ts on Artillery)
       npm run load:mutation -- [options]   (load/mutation.ts on Artillery)
       npm run load:smoke    -- [options]   (both, at smoke size: what npm test runs)

Runs a load profile on Artillery against CONSOLE_BASE_URL, or, when it is unset, against a reference server
started on a free loopback port for each profile's run (and stopped after it), as verify does.

  --profile NAME  smoke (a few seconds), baseline (about a minute, constant arrival rate) or
                  stress (ramping arrival rate); default smoke
  --compare       compare with load/baselines/<script>.json afterwards (reports/load/compare.json); a
                  regression the ratio tolerances found is run again and the second run's figures stand
                  (the first compare kept in compare.first-run.json), as verify does; one the statistical
                  rule alone found stands on one run
  --seed N        seed of the generated request bodies (default 1)
  --strict        an inferred check that fails (a filter, paging) fails the run, as CONSOLE_STRICT=1 does;
                  by default it is a warning
  --scale N       experiments the started reference server seeds (default: its own); ignored with a target
  --latency MS[:S]  the started reference server answers after network-like latency: log-normal, median
                  MS ms, log spread S (npm run serve -- --help); refused with a target
  --fault NAME    a fault of the started reference server, repeatable, e.g. slow:listExperiments:25 (one
                  operation 25% slower: a regression of known size for the compare); refused with a target
  --variant NAME  a legal variant of the started reference server, repeatable (npm run serve -- --list-faults);
                  refused with a target
  --runners N     run the profile as N Artillery processes (1 to 16, default 1), each with an equal integer
                  share of every arrival rate and its own workers; every worker's records (each request's
                  duration in microseconds, checks, counters) merged exactly into summary.json ("runners": N),
                  Artillery's own report of runner i in reports/load/<script>/runners/<i>/artillery.json.
                  On one machine this proves the mechanism, not more capacity; beyond one machine,
                  Artillery's own Fargate runs (load:cloud in a clone of the suite: docs/load.md)
  --config FILE   the run's shape and limits in Artillery's own config format (YAML or JSON, config: at
                  its top): config.phases (arrival rates; the profile's scenarios then give only the mix
                  of jobs), config.ensure (limits on the console.<endpoint> metrics, e.g.
                  thresholds: [{console.listExperiments.deep.p95: 300}]; a broken one is exit 2),
                  config.plugins (Artillery's: publish-metrics, apdex, metrics-by-endpoint) and
                  config.environments. Shipped, by name (--config spike): smoke, baseline, stress,
                  soak (30 min; -e short: 5 min), spike (load/shapes/<script>.<name>.yml)
  --overrides JSON  merged over --config as Artillery's --overrides is (objects merge, lists replace), e.g.
                  '{"config":{"phases":[{"duration":30,"arrivalRate":40}]}}'
  -e, --environment NAME  config.environments.NAME merged into the config, as Artillery's -e
  --export DIR    run nothing: write the profile (its --profile, or --config/--overrides phases and limits) as a
                  self-contained Artillery script for CONSOLE_BASE_URL: DIR/<script>.yml, its processor and data,
                  which \`npx artillery run DIR/<script>.yml\` runs with CONSOLE_API_KEY from the environment
                  (never in the files: scanned); the setup learns the target now
  --plan FILE     the whole run as a load plan in JSON (load/command/plan.ts; a configured target only),
                  as verify hands its load stage over; no other option with it
  --help          this text

Environment: CONSOLE_BASE_URL, CONSOLE_API_KEY, CONSOLE_TARGET_MANIFEST (target manifest; old name CONSOLE_FIXTURES),
CONSOLE_ALLOW_REMOTE_LOAD=1 (needed for a target that is not loopback), CONSOLE_STRICT, CONSOLE_REQUEST_TIMEOUT
(seconds a request may take, default 15). Artillery's telemetry is off (ARTILLERY_DISABLE_TELEMETRY=true).
The key reaches Artillery's workers through their environment only, never its script, arguments or output.

Writes reports/load/<script>/summary.json, junit.xml and artillery.json (Artillery's own report); with
--runners N, the merged summary.json and each runner's artillery.json in runners/<i>/.
Artillery sees every request: each one's duration in ms (microsecond decimals) as the histogram
console.<endpoint>, checks, unexpected and network answers as console.* counters; a line per 10 s
period shows arrivals, each endpoint's rate, p95 and errors while it runs; every request is also one of
Artillery's http.* requests (http.codes.<status>, http.response_time, errors.<code>), and a failed one
fails its virtual user (config.ensure.maxErrorRate). A load that fell short is not judged: a generator
more than 10% behind the phases' schedule (arrivals started by each 10 s of the phases, or a stretched
phase), over 1% of its arrivals dropped at the VU limit, or fewer than 95% started: exit 3 naming the
period, the asked and started rates and the generator's busy share.
Every check has the level of its clause: a stated check that fails is exit 1; an inferred one warns
(exit 1 with --strict); what the spec leaves open is not checked. An answer that is the network's, not
the target's (no answer within the timeout, a redirect, a 429, a 2xx or 5xx that is not JSON) checks
nothing and is counted apart: over the profile's budget it is exit 3, never 1.
Exit codes: 0 pass; 1 a check failed (a contract matter); 2 latency thresholds crossed, a config.ensure
limit broken, or a regression against the baseline (--compare); 3 the run could not be carried out
(target refused, unreachable or answering through a misbehaving network, bad option or shape, or a
load that fell short of what was asked).`;

function options(): LoadPlan {
  const { values, positionals } = parseCommand({
    name: 'load',
    help: HELP,
    target: true,
    positionals: true,
    options: {
      ...LOAD_PLAN_OPTIONS,
      compare: { type: 'boolean' },
      scale: { type: 'string' },
      latency: { type: 'string' },
      fault: { type: 'string', multiple: true },
      variant: { type: 'string', multiple: true },
      runners: { type: 'string' },
      plan: { type: 'string' },
      export: { type: 'string' },
    },
  });
  if (values.plan !== undefined) {
    const others = Object.keys(values).filter((k) => k !== 'plan');
    if (others.length || positionals.length) fail('load', `--plan FILE is the whole run: no ${others.length ? `--${others[0]}` : positionals[0]} with it`);
    // A plan or shape that cannot be read is a ConfigError: runCommand says it in one line (exit 3).
    return readPlanFile(values.plan);
  }
  const [which, ...extra] = positionals;
  const scripts: LoadScript[] = which === 'smoke' ? [...LOAD_SCRIPTS] : LOAD_SCRIPTS.includes(which as LoadScript) ? [which as LoadScript] : [];
  if (scripts.length === 0 || extra.length > 0)
    fail('load', `first argument must be paging, mutation or smoke, got ${JSON.stringify(extra.length ? positionals.join(' ') : which)} (see --help)`);
  const profile = values.profile ?? 'smoke';
  if (!(LOAD_PROFILES as readonly string[]).includes(profile)) fail('load', `--profile must be smoke, baseline or stress, got ${JSON.stringify(profile)}`);
  if (which === 'smoke' && profile !== 'smoke') fail('load', 'load:smoke runs the smoke profile only; use load:paging or load:mutation with --profile');
  const seed = integerOption('load', '--seed', values.seed, { min: 0, fallback: 1 });
  const scale = values.scale === undefined ? undefined : integerOption('load', '--scale', values.scale, { min: 1, max: 1_000_000, fallback: 1 });
  const runners = integerOption('load', '--runners', values.runners, { min: 1, max: 16, fallback: 1 });
  const reference =
    values.latency !== undefined || values.fault?.length || values.variant?.length
      ? { latency: values.latency, faults: values.fault ?? [], variants: values.variant ?? [] }
      : undefined;
  const shape = readShape({ configFile: shippedShapeFile(values.config, scripts), overrides: values.overrides, environment: values.environment });
  if (shape && values.compare) fail('load', '--compare judges the profile’s own shape against its baseline; a run shaped by --config or --overrides has none');
  if (shape && scripts.length > 1 && shape.phases) fail('load', 'phases of --config or --overrides are one profile’s shape: run load:paging or load:mutation');
  const plan = { scripts, profile, seed, strict: values.strict, shape };
  if (values.export !== undefined) {
    if (values.compare || reference || values.runners !== undefined || values.scale !== undefined)
      fail('load', '--export writes the script and runs nothing: no --compare, --runners, --scale, --latency, --fault or --variant with it');
    return { ...plan, target: { kind: 'configured' }, prepare: { dir: resolve(values.export), for: 'export' } };
  }
  return { ...plan, runners, target: { kind: 'configured', scale, reference }, ...(values.compare ? { compare: {} } : {}) };
}

// Every failure before or around the run (bad option, config, reference not starting) is exit 3.
runCommand('load', async () => {
  const result = await runPlan(options());
  for (const { files } of result.prepared ?? []) {
    for (const f of files) console.log(`load: exported ${relative(process.cwd(), f)}`);
    console.log(`load: run it with CONSOLE_API_KEY set: npx artillery run ${relative(process.cwd(), files[0])} (no key is in the files: scanned)`);
  }
  return result.code;
});
