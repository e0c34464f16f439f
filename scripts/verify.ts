// npm run verify -- [--strict] [--skip-load] [--profile smoke|baseline|stress] [...] [--help]
// The main job: parses its options and runs scripts/lib/verify-run.ts, which holds the stages.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail, integerOption, parseCommand, runCommand } from '../core/command.ts';
import { AUTH_PROBES, type AuthProbes, type ConfigError, seconds } from '../core/config.ts';
import { LOAD_PROFILES } from '../core/formats.ts';
import { verify, type VerifyOptions } from './lib/verify-run.ts';

const HELP = `usage: npm run verify -- [options]

The main job. Runs, against CONSOLE_BASE_URL (or a reference server it starts on a free loopback port):
  1. the conformance suite (Playwright),
  2. the paging and mutation load profiles (on Artillery), compared with load/baselines/ (calibrated per machine),
then writes reports/ (index.html: one page for a release manager; conformance.json, observations.json,
junit.xml, verify.json, load/), scans reports/ for the API key and prints a one-screen verdict.

  --strict                      inferred clauses fail instead of warn (also CONSOLE_STRICT=1)
  --read-only                   for production: only reads and dryRun writes reach the target (also
                                CONSOLE_READ_ONLY=1); the conformance tests that need a write are left
                                out by design and listed as excluded, the load runs its paging profile only
  --auth-probes derived         the auth tests also send wrong keys made from the real one (one character
                                short, its first half, one added, other case) and expect each refused;
                                for a throwaway key only (also CONSOLE_AUTH_PROBES=derived; default random)
  --skip-load                   do not run the load profiles
  --profile smoke|baseline|stress
                                size of the load profiles (default smoke, a few seconds each; the
                                committed baselines are smoke: another profile compares as no-baseline)
  --runners N                   run each load profile as N Artillery processes sharing its arrival rates,
                                their records merged exactly (npm run load:paging -- --help); default 1;
                                compared only with baselines of N runners (--baselines DIR)
  --baselines DIR               compare with the baselines in DIR instead of load/baselines/
  --observations-baseline FILE  report drift against this observations.json (default:
                                CONSOLE_OBSERVATIONS_BASELINE, else the previous run's when it was of
                                the whole suite against the same target)
  --waive 'CLAUSES=REASON'      leave clauses (an id or a glob) out on purpose, listed as waived, never
                                as passed (repeatable; also CONSOLE_WAIVE; the manifest's "waive" too)
  --history FILE                add this run to the run history in FILE (SQLite; default CONSOLE_HISTORY,
                                else history.sqlite in the reports folder) and draw the report's trends
                                from it; a failing write is a warning, never a failed run
  --grep PATTERN                only the conformance tests whose title matches (passed to Playwright)
  --deadline SECONDS            the whole run's deadline (also CONSOLE_DEADLINE; default 600): past it
                                the running stage stops, later ones do not start, and verify exits 3
                                with the reports written so far, marked partial (docs/transport.md)
  --help                        this text

Load engine: Artillery, an npm dependency installed by npm ci (k6 is not used: docs/load.md).
Environment: CONSOLE_BASE_URL, CONSOLE_API_KEY, CONSOLE_TARGET_MANIFEST (old name CONSOLE_FIXTURES), CONSOLE_STRICT, CONSOLE_READ_ONLY, CONSOLE_AUTH_PROBES, CONSOLE_ALLOW_REMOTE_LOAD,
CONSOLE_DEADLINE, CONSOLE_REQUEST_TIMEOUT, CONSOLE_HISTORY, CONSOLE_REPORTS_DIR (where reports go, default
reports/) (docs/environment.md).

exit codes: 0 pass; 1 contract failure (a stated clause violated, by the suite or a load check; an
inferred one under --strict);
2 performance regression against the baseline (or a load latency threshold crossed); 3 the run could
not be carried out or was cut short (deadline, transport failures, inconclusive tests, the network
answering instead of the target under load, the key found in reports/), or is INCOMPLETE: a stated clause went unchecked for a
reason you can fix (the manifest ran out of trigger phases, the target refused a resource), named
with the fix; waive on purpose with the manifest's "waive". When several apply: 1, then 3, then 2.`;

const { values } = parseCommand({
  name: 'verify',
  help: HELP,
  target: true,
  options: {
    strict: { type: 'boolean' },
    'read-only': { type: 'boolean' },
    'auth-probes': { type: 'string' },
    'skip-load': { type: 'boolean' },
    profile: { type: 'string' },
    baselines: { type: 'string' },
    'observations-baseline': { type: 'string' },
    grep: { type: 'string' },
    deadline: { type: 'string' },
    history: { type: 'string' },
    runners: { type: 'string' },
    waive: { type: 'string', multiple: true },
  },
});

function options(): VerifyOptions {
  const profile = values.profile ?? 'smoke';
  if (!(LOAD_PROFILES as readonly string[]).includes(profile)) fail('verify', `--profile must be smoke, baseline or stress, got ${JSON.stringify(profile)}`);
  const baselines = values.baselines === undefined ? undefined : resolve(values.baselines);
  if (baselines !== undefined && !(existsSync(baselines) && statSync(baselines).isDirectory())) fail('verify', `--baselines: no folder ${values.baselines}`);
  const observationsBaseline = values['observations-baseline'] === undefined ? undefined : resolve(values['observations-baseline']);
  if (observationsBaseline !== undefined && !existsSync(observationsBaseline))
    fail('verify', `--observations-baseline: no file ${values['observations-baseline']}`);
  if (values.grep !== undefined && values.grep === '') fail('verify', '--grep needs a pattern');
  const authProbes = values['auth-probes'];
  if (authProbes !== undefined && !(AUTH_PROBES as readonly string[]).includes(authProbes))
    fail('verify', `--auth-probes must be random or derived, got ${JSON.stringify(authProbes)}`);
  if (values.history !== undefined && values.history === '') fail('verify', '--history needs a file');
  const runners = integerOption('verify', '--runners', values.runners, { min: 1, max: 16, fallback: 1 });
  if (values.deadline !== undefined) {
    try {
      seconds(values.deadline, '--deadline', 0);
    } catch (err) {
      fail('verify', (err as ConfigError).message);
    }
  }
  return {
    strict: values.strict ?? false,
    readOnly: values['read-only'] ?? false,
    authProbes: authProbes as AuthProbes | undefined,
    skipLoad: values['skip-load'] ?? false,
    profile,
    baselines,
    observationsBaseline,
    grep: values.grep,
    waive: (values.waive as string[] | undefined) ?? [],
    deadline: values.deadline,
    history: values.history === undefined ? undefined : resolve(values.history),
    runners,
  };
}

runCommand('verify', () => verify(options()));
