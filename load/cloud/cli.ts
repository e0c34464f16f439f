// npm run load:cloud -- paging|mutation --platform fargate [options]    (prepare a distributed run)
// npm run load:cloud -- --report DIR/artillery.json                      (after it: our summary)
// (npm run load:testrun, the k6-operator TestRun, is load/cloud/testrun.ts: a one-line exit 3 pointing here.)
// Artillery's own distributed runs (its `run-fargate`: N containers, each running the whole script,
// metrics merged by Artillery) replace the k6-operator TestRun this suite used to write. This command
// hands the load runner (load/command/run-plan.ts) a plan that prepares instead of running: the test
// folder (Artillery script, processor bundle, request bodies, the setup's answer) scanned for the key;
// it prints the command to run; the workers read the key from the platform's secret store only. The
// workers' records travel as Artillery counters, which its merge adds exactly, and `--report` turns the
// merged report back into summary.json, judged on the runner's one verdict path.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fail, integerOption, parseCommand, runCommand } from '../../core/command.ts';
import { ConfigError, loadConfig, reportsDirFromEnv } from '../../core/config.ts';
import { LOAD_PROFILES, type LoadScript } from '../../core/formats.ts';
import { fromCounters } from '../artillery/counters.ts';
import { type ArtilleryReport, judgeDelivery } from '../artillery/delivery.ts';
import { judgeReport as judgeLimits } from '../artillery/ensure.ts';
import { type PeriodStats, progressLine } from '../artillery/progress.ts';
import { histogramsOf, loadRequests, type Plan } from '../artillery/run.ts';
import type { FolderOptions } from '../artillery/folder.ts';
import type { ArtilleryScript } from '../artillery/script.ts';
import { readShape, shippedShapeFile } from '../artillery/shape.ts';
import { measuredAgainst } from '../compare/measured-against.ts';
import { summaryData } from '../lib/summary-data.ts';
import { summaryFiles } from '../lib/summary.ts';
import { type Limit, readThresholds } from '../lib/thresholds.ts';
import { judgeSummary } from '../command/outcome.ts';
import { LOAD_PLAN_OPTIONS } from '../command/plan.ts';
import { runPlan } from '../command/run-plan.ts';

const HELP = `usage: npm run load:cloud -- paging|mutation --platform fargate [--profile NAME] [--count N] [--region R] [--out DIR] [--seed N] [--strict]
       npm run load:cloud -- --report DIR/artillery.json

Prepares a run of a load profile on Artillery's own distributed platform, against CONSOLE_BASE_URL
(a target the platform can reach; not loopback, so CONSOLE_ALLOW_REMOTE_LOAD=1 is needed too).
The profile's setup runs here, once, with CONSOLE_API_KEY from this environment; then DIR (default
reports/load-cloud/<script>/) holds script.json (Artillery's script: phases sharing the profile's rates
among the --count containers, default 1), processor.mjs (the profile bundled with this run's settings,
never the key), the request bodies and the setup's answer. DIR is scanned for the key; found, it is
removed and the command exits 3. Then it prints the command to run:

  fargate  npx artillery run-fargate --secret CONSOLE_API_KEY: the containers read the key from AWS SSM
           Parameter Store (/artilleryio/CONSOLE_API_KEY in --region), put there once by you.
  lambda, aci  refused (exit 3): Artillery passes environment to Lambda and ACI workers only through a
           --dotenv file uploaded with the test bundle, so the key would travel in the bundle.

--report FILE  after the run: Artillery's JSON report (--output) of a prepared run, its counters
               (each request's duration as a 2% histogram bucket, checks, counts: added exactly by
               Artillery across containers) turned into reports/load/<script>/summary.json and
               junit.xml, judged as npm run load:* judges a run (thresholds of DIR/plan.json), with
               the progress line of each of Artillery's 10 s periods a local run prints. Then
               npm run baseline:compare and npm run report read it like a local run's.
--profile NAME  smoke, baseline or stress (default baseline)
--count N       containers (1 to 100, default 1); each runs a 1/N integer share of every rate
--region R      AWS region of the run and of the secret (default us-east-1)
--seed N        seed of the request bodies (default 1)
--strict        an inferred check that fails fails the run (as CONSOLE_STRICT=1)
--config FILE|NAME, --overrides JSON, -e NAME  the run's shape and limits in Artillery's config format, as
                npm run load:* takes them, shipped shapes by name too (phases shared among the --count
                containers, config.ensure judged by Artillery's ensure plugin in the run and again by
                --report, config.plugins)

A sequence scenario (the export walk, the trigger walk) runs once per container: locks are per disk.
Environment: CONSOLE_BASE_URL, CONSOLE_API_KEY (here only, for the setup; the containers read it from
AWS SSM), CONSOLE_ALLOW_REMOTE_LOAD=1, CONSOLE_TARGET_MANIFEST, CONSOLE_STRICT, CONSOLE_REQUEST_TIMEOUT,
CONSOLE_REPORTS_DIR (where the prepared folder and the judged summary go, default reports/).
Exit 0 prepared (or the report judged as passing); 1 a check failed; 2 latency thresholds crossed;
3 could not be prepared or judged (no target, loopback target, key found, bad option).`;

const PLATFORMS = ['fargate', 'lambda', 'aci'] as const;

const { values, positionals } = parseCommand({
  name: 'load:cloud',
  help: HELP,
  positionals: true,
  options: {
    ...LOAD_PLAN_OPTIONS,
    platform: { type: 'string' },
    count: { type: 'string' },
    region: { type: 'string' },
    out: { type: 'string' },
    report: { type: 'string' },
  },
});

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
/** The plan.json of a prepared folder (load/artillery/folder.ts). */
type CloudPlan = Plan & Pick<FolderOptions, 'script' | 'profile'> & { target: string; count: number; ensure?: Record<string, unknown> };

/** Artillery's report of a prepared run, back into our summary.json; resolves to the exit code. */
async function judgeReport(file: string): Promise<number> {
  const dir = dirname(resolve(file));
  if (!existsSync(file)) throw new ConfigError(`${file}: no such file`);
  if (!existsSync(join(dir, 'plan.json'))) throw new ConfigError(`${dir}: no plan.json: --report reads the report of a run prepared by npm run load:cloud`);
  const plan = readJson<CloudPlan>(join(dir, 'plan.json'));
  const report = readJson<ArtilleryReport & { aggregate?: PeriodStats & { rates?: Record<string, unknown> }; intermediate?: PeriodStats[] }>(file);
  const counters = report.aggregate?.counters;
  if (!counters) throw new ConfigError(`${file} is not an Artillery JSON report (no aggregate.counters)`);
  const records = fromCounters(counters);
  const requests = loadRequests(records);
  if (requests === 0) throw new ConfigError(`${file} holds no request counted by this suite's processor: was the run prepared by npm run load:cloud?`);
  // The lines a local run prints while it runs, one per period of the containers' merged report.
  for (const period of report.intermediate ?? []) console.log(progressLine(`load:cloud: ${plan.script}`, period));
  const agg = report.aggregate ?? {};
  const durationMs = agg.firstMetricAt && agg.lastMetricAt ? agg.lastMetricAt - agg.firstMetricAt : 0;
  // The limits of the prepared shape, judged as a local run judges them: by Artillery's ensure plugin, on the report its platform merged.
  const limits = plan.ensure ? await judgeLimits({ ...plan.ensure }, { counters, histograms: {}, summaries: agg.summaries, rates: agg.rates }) : undefined;
  // Whether the run delivered what it asked: every container ran the prepared script.json's phases side by side (the
  // schedule judged is theirs added), and Artillery's report adds their arrivals; not judged without the script beside the report.
  const scriptFile = join(dir, 'script.json');
  const phases = existsSync(scriptFile) ? readJson<ArtilleryScript>(scriptFile).config.phases : undefined;
  const all = phases?.map((p) => ({ ...p, arrivalRate: p.arrivalRate * plan.count, ...(p.rampTo === undefined ? {} : { rampTo: p.rampTo * plan.count }) }));
  const config = loadConfig();
  const reportDir = join(config.reportsDir, 'load', plan.script);
  mkdirSync(reportDir, { recursive: true });
  const out = summaryFiles({
    writes: records.writes?.current,
    script: plan.script,
    profile: plan.profile,
    baseUrl: plan.target,
    apiKey: config.apiKey ?? '',
    // A plan prepared before the thresholds were data holds them as text: still read.
    data: summaryData(records, readThresholds(plan.thresholds as Record<string, (Limit | string)[]>), durationMs, plan.endpoints),
    samples: histogramsOf(records),
    runners: plan.count,
    engine: { name: 'artillery', version: 'cloud' },
    delivery: all && judgeDelivery([{ runner: 1, report, phases: all }], requests),
    ...(limits ? { shape: { source: 'load:cloud', phases: [], limits } } : {}),
  });
  const summaryFile = join(reportDir, 'summary.json');
  writeFileSync(summaryFile, out.summaryJson);
  writeFileSync(join(reportDir, 'junit.xml'), out.junit);
  process.stdout.write(out.console);
  const crossed = (JSON.parse(out.summaryJson) as { thresholds?: { ok: boolean }[] }).thresholds?.some((t) => !t.ok) ?? false;
  const code = judgeSummary(summaryFile, crossed ? 1 : 0, { label: 'load:cloud', script: plan.script, against: measuredAgainst(plan.target) });
  console.log(`load:cloud: ${plan.script} (${plan.profile}) -> ${relative(process.cwd(), reportDir)}`);
  return code;
}

/** The run prepared by the load runner, as a local run's plan but for where it runs: the containers (each a 1/N share of every rate). */
async function prepare(script: LoadScript): Promise<number> {
  const platform = values.platform ?? '';
  if (!(PLATFORMS as readonly string[]).includes(platform))
    fail('load:cloud', `--platform must be one of ${PLATFORMS.join(', ')}, got ${JSON.stringify(platform)}`);
  if (platform !== 'fargate')
    throw new ConfigError(
      `--platform ${platform}: Artillery gives ${platform === 'lambda' ? 'Lambda' : 'ACI'} workers environment only through a --dotenv file uploaded with the test bundle, so the key would travel in it; use --platform fargate (the key from AWS SSM)`,
    );
  const profile = values.profile ?? 'baseline';
  if (!(LOAD_PROFILES as readonly string[]).includes(profile))
    fail('load:cloud', `--profile must be smoke, baseline or stress, got ${JSON.stringify(profile)}`);
  const region = values.region ?? 'us-east-1';
  if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) fail('load:cloud', `--region must be an AWS region such as us-east-1, got ${JSON.stringify(region)}`);
  const count = integerOption('load:cloud', '--count', values.count, { min: 1, max: 100, fallback: 1 });
  const dir = resolve(values.out ?? join(reportsDirFromEnv(), 'load-cloud', script));
  const { prepared } = await runPlan({
    scripts: [script],
    profile,
    seed: integerOption('load:cloud', '--seed', values.seed, { min: 0, fallback: 1 }),
    strict: values.strict,
    runners: count,
    // A shape as a local run takes it, checked before anything runs: its phases shared among the containers,
    // its limits (judged in the run, and again by --report on the merged report) and plugins.
    shape: readShape({ configFile: shippedShapeFile(values.config, [script]), overrides: values.overrides, environment: values.environment }),
    target: { kind: 'configured' },
    prepare: { dir, for: 'cloud' },
  });
  const rel = relative(process.cwd(), dir);
  const files = (prepared ?? []).flatMap((p) => p.files).map((f) => relative(dir, f));
  console.log(`load:cloud: ${script} (${profile}) prepared in ${rel}: ${files.join(', ')}; scanned, no key in it`);
  console.log('load:cloud: once, put the key into the secret store the containers read (AWS SSM Parameter Store):');
  console.log(`  aws ssm put-parameter --region ${region} --name /artilleryio/CONSOLE_API_KEY --type SecureString --overwrite --value "$CONSOLE_API_KEY"`);
  console.log('load:cloud: then run, and judge its report:');
  console.log(
    `  ARTILLERY_DISABLE_TELEMETRY=true npx artillery run-fargate --region ${region} --count ${count} --secret CONSOLE_API_KEY --output ${rel}/artillery.json ${rel}/script.json`,
  );
  console.log(`  npm run load:cloud -- --report ${rel}/artillery.json`);
  return 0;
}

runCommand('load:cloud', async () => {
  if (values.report !== undefined) {
    if (positionals.length > 0) fail('load:cloud', '--report takes no profile name');
    return judgeReport(values.report);
  }
  const [script, ...extra] = positionals;
  if ((script !== 'paging' && script !== 'mutation') || extra.length > 0)
    fail('load:cloud', `first argument must be paging or mutation, got ${JSON.stringify(positionals.join(' '))} (see --help)`);
  return prepare(script);
});
