// npm run conformance -- [--strict] [--auth-probes derived] [--deadline SECONDS] [--observations-baseline FILE] [playwright args...]
// Parses its own options, hands the rest to Playwright, and runs contracts/conformance-run.ts.
import { existsSync } from 'node:fs';
import { fail, parseKnown, runCommand } from '../core/command.ts';
import { AUTH_PROBES, type AuthProbes } from '../core/config.ts';
import { runConformance } from './conformance-run.ts';

const HELP = `usage: npm run conformance -- [--strict] [--read-only] [--auth-probes derived] [--deadline SECONDS] [playwright test options]

Runs the conformance suite. Target: CONSOLE_BASE_URL and CONSOLE_API_KEY, else a reference server
started on a free loopback port. Manifest: CONSOLE_TARGET_MANIFEST (old name CONSOLE_FIXTURES; default fixtures/targets/reference.json).

  --strict      inferred clauses fail instead of warn (also CONSOLE_STRICT=1)
  --read-only   for production: only reads and dryRun writes reach the target (also CONSOLE_READ_ONLY=1);
                a test that needs a write stops before sending it, its clauses excluded by design
  --auth-probes derived
                the auth tests also send wrong keys made from the real one (one character short,
                its first half, one character added, other case) and expect each refused (spec 5);
                for a throwaway key only: each is one guess from the real key (also
                CONSOLE_AUTH_PROBES=derived; default random: keys of its shape that reveal nothing)
  --deadline SECONDS
                the whole run's deadline (also CONSOLE_DEADLINE; default 600): past it the run
                stops with exit 3 and a partial report. One request may take CONSOLE_REQUEST_TIMEOUT
                seconds (default 15); 5 tests in a row that get no usable answer also stop the run.
  --observations-baseline FILE
                a previous run's reports/observations.json: every difference is reported as drift
  --waive 'CLAUSES=REASON'
                leaves clauses (an id or a glob) out on purpose for this run, listed as waived,
                never as passed (repeatable; also CONSOLE_WAIVE, one a line; the manifest's "waive" too)
  --help        this text
  anything else is passed to \`playwright test\` (e.g. --grep metrics, --repeat-each 3, --shard 1/2)

exit codes: 0 pass (every stated clause in scope checked and held), 1 contract failure, 3 run could
not be carried out or was cut short (deadline, transport failures, tests left inconclusive;
docs/transport.md), or INCOMPLETE: a stated clause went unchecked for a reason you can fix (named,
with the fix, a clause left undecided with the budget that would decide it; --waive or the
manifest's "waive" leaves clauses out on purpose)`;

const { values, rest } = parseKnown({
  name: 'conformance',
  help: HELP,
  target: true,
  options: {
    strict: { type: 'boolean' },
    'read-only': { type: 'boolean' },
    'auth-probes': { type: 'string' },
    deadline: { type: 'string' },
    'observations-baseline': { type: 'string' },
    waive: { type: 'string', multiple: true },
  },
});
const baseline = values['observations-baseline'];
if (baseline !== undefined && (!baseline || !existsSync(baseline))) fail('conformance', `--observations-baseline: no file ${JSON.stringify(baseline)}`);
const authProbes = values['auth-probes'];
if (authProbes !== undefined && !(AUTH_PROBES as readonly string[]).includes(authProbes))
  fail('conformance', `--auth-probes must be random or derived, got ${JSON.stringify(authProbes)}`);

runCommand('conformance', () =>
  runConformance({
    strict: values.strict ?? false,
    readOnly: values['read-only'] ?? false,
    authProbes: authProbes as AuthProbes | undefined,
    deadline: values.deadline,
    observationsBaseline: baseline,
    waive: values.waive as string[] | undefined,
    playwrightArgs: rest,
  }),
);
