// npm run load:testrun -- --script paging|mutation [--profile NAME] [--parallelism N] [--out DIR] [...]
// Parses its options and runs load/operator/write.ts: the k6 archive and the k6-operator TestRun of a
// load profile, for load beyond one machine (docs/load.md, "Beyond one machine").
import { resolve } from 'node:path';
import { fail, parseCommand, runCommand, integerOption } from '../../core/command.ts';
import { loadConfigOr } from '../../core/config.ts';
import { writeTestRun } from './write.ts';

const NAME = 'load:testrun';

const HELP = `usage: npm run load:testrun -- --script paging|mutation [options]

Writes what a k6-operator TestRun needs to run a load profile with N runners against CONSOLE_BASE_URL
(the operator splits the test into N equal execution segments, one per runner pod, starts them
paused and releases them together):

  <out>/<name>.tar     the k6 archive: the script, its modules, the response validators and the
                       request bodies written for this run, the profile's settings; never the key
  <out>/claim.yaml     a PersistentVolumeClaim for the archive and the runners' reports (a folder per
                       runner pod: summary.json, requests.csv.gz, dashboard.html), and a helper Pod
                       mounting it, to copy the archive in and the reports out
  <out>/testrun.yaml   the TestRun (<name> is console-<script>-<run id>)

and prints the commands from there: the Secret (the key lives only there: the runners read it with
valueFrom secretKeyRef, never from the archive, the YAML or an argument), the claim, the archive
onto it, apply, copy out, then npm run baseline:compare -- --merge (exact merge, compare, history).

  --script NAME       paging or mutation (required)
  --profile NAME      smoke, baseline or stress (default baseline)
  --parallelism N     runner pods, 1 to 1000 (default 2)
  --out DIR           where to write (default <reports>/testrun/console-<script>-<run id>/)
  --secret NAME       the Secret holding the key under CONSOLE_API_KEY (default console-api-key)
  --claim NAME        the PersistentVolumeClaim of the reports (default console-load-reports)
  --image IMAGE       the runner image (default grafana/k6 at the version of the k6 that wrote the archive)
  --seed N            seed of the request bodies (default 1)
  --strict            inferred checks fail the run (as CONSOLE_STRICT=1)
  --help              this text

The YAML is checked against the operator's TestRun fields before it is written
(load/operator/testrun-fields.ts). A mutation archive names the metrics it creates after its run id:
write a new archive for each run.

Environment: CONSOLE_BASE_URL (required: the target the runners load), CONSOLE_ALLOW_REMOTE_LOAD=1 (required
for a target that is not loopback; the runners get it too, and the k6 scripts refuse such a target
without it), CONSOLE_TARGET_MANIFEST (what the mutation profile may touch), CONSOLE_STRICT,
CONSOLE_REQUEST_TIMEOUT, CONSOLE_REPORTS_DIR, K6_BIN. CONSOLE_API_KEY is not needed; when set, the
archive is searched for it.
Exit 0 written; 3 not written (bad option, CONSOLE_BASE_URL unset, a remote target without
CONSOLE_ALLOW_REMOTE_LOAD=1, k6 missing, the key found in the archive).`;

async function main(): Promise<number> {
  const { values } = parseCommand({
    name: NAME,
    help: HELP,
    options: {
      script: { type: 'string' },
      profile: { type: 'string' },
      parallelism: { type: 'string' },
      out: { type: 'string' },
      secret: { type: 'string' },
      claim: { type: 'string' },
      image: { type: 'string' },
      seed: { type: 'string' },
      strict: { type: 'boolean' },
    },
  });
  const script = values.script;
  if (script !== 'paging' && script !== 'mutation') fail(NAME, `--script must be paging or mutation, got ${JSON.stringify(script ?? null)}`);
  const profile = values.profile ?? 'baseline';
  if (!['smoke', 'baseline', 'stress'].includes(profile)) fail(NAME, `--profile must be smoke, baseline or stress, got ${JSON.stringify(profile)}`);
  const parallelism = integerOption(NAME, '--parallelism', values.parallelism, { min: 1, max: 1000, fallback: 2 });
  const seed = integerOption(NAME, '--seed', values.seed, { min: 0, fallback: 1 });
  const dns = (v: string | undefined, option: string, fallback: string) => {
    const name = v ?? fallback;
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name))
      fail(NAME, `${option} must be a Kubernetes name (lower-case letters, digits, -), got ${JSON.stringify(name)}`);
    return name;
  };
  // The key is not needed here (the runners read it from the Secret); loadConfig asks for one beside a
  // target, so a stand-in goes in when none is set, and only a key really set is searched for in the archive.
  const keySet = Boolean(process.env.CONSOLE_API_KEY);
  const loaded = loadConfigOr((reason) => fail(NAME, reason), { ...process.env, CONSOLE_API_KEY: process.env.CONSOLE_API_KEY || 'not-needed' });
  const config = { ...loaded, apiKey: keySet ? loaded.apiKey : undefined };
  const written = await writeTestRun(
    {
      script,
      profile,
      parallelism,
      seed,
      out: values.out === undefined ? undefined : resolve(values.out),
      secret: dns(values.secret, '--secret', 'console-api-key'),
      claim: dns(values.claim, '--claim', 'console-load-reports'),
      image: values.image,
      strict: values.strict,
    },
    config,
  );
  console.log(`load:testrun: ${written.name}: ${parallelism} runners of ${script} (${profile}) against ${config.baseUrl}`);
  for (const f of [written.archive, written.claim, written.testrun]) console.log(`load:testrun: wrote ${f}`);
  console.log('load:testrun: then (docs/load.md, "Beyond one machine"):');
  for (const s of written.steps) console.log(`  ${s}`);
  return 0;
}

runCommand(NAME, main);
