// npm run candidate -- --current URL --candidate URL [options]: parses, calls candidate/run.ts, exits.
// `main(argv)` is the entry a dispatcher (the packaged bin) calls with the arguments after the command.
import { fileURLToPath } from 'node:url';
import { integerOption, parseCommand, runCommand } from '../core/command.ts';
import { runCandidate } from './run.ts';

export const HELP = `usage: npm run candidate -- [--current URL] [--candidate URL] [options]

The conformance suite against two deployments, current and candidate, their exchanges paired request
by request, and every difference classified:
  regression   a stated clause the candidate breaks and the current keeps (exit 1), both exchanges shown;
               one both break is listed as such, not as a change
  changed      what the spec leaves open, differing (order, page size, field presence, status, body,
               message, an open clause's observation): listed with both exchanges and its clause (exit 0)
  noise        what differs between two reads of one side (timestamps, generated ids, run-made names),
               learnt from the run itself: never reported
Each side is read --reads times, in turn. Writes reports/candidate.json, reports/candidate/junit.xml and
each read's own reports (conformance.json, exchanges.json, observations.json, ledger.json) in
reports/candidate/<side>-<n>/.

  --current URL, --candidate URL
                    the two deployments' base URLs; keys from CONSOLE_CURRENT_API_KEY and
                    CONSOLE_CANDIDATE_API_KEY. A side without a URL is a reference server started for it.
  --current-manifest FILE, --candidate-manifest FILE
                    each side's target manifest (default fixtures/targets/reference.json)
  --read-only       only reads and dryRun writes reach either side (the default)
  --writes          the suite's writes reach each side, within what its manifest names (each side's
                    writes in its reads' ledger.json)
  --strict          inferred clauses count as stated: one the candidate alone breaks is a regression
  --freeze-open     a change of open behaviour fails the run too (exit 1), for teams that freeze it
  --reads N         reads of each side (default 2; noise is learnt from what differs between them;
                    1 learns none)
  --candidate-fault NAME, --candidate-variant NAME (repeatable)
                    with no --candidate URL: the candidate's reference server runs with this fault or
                    legal variant (npm run serve -- --list-faults); --current-fault, --current-variant alike
  --deadline SECONDS
                    each read's deadline (default CONSOLE_DEADLINE, else 600): past it, exit 3 naming the side
  --grep PATTERN    only the suite's tests whose title matches, on both sides
  --latency         then the paging load profile, every request sent to both sides in random order from
                    one generator, judged pair by pair: per operation the candidate's time over the current's
                    beyond the calibration request's, its 95% interval and a one-sided Wilcoxon signed-rank
                    test; a ratio shown above 1 + --min-effect
                    is a latency regression (exit 2). Loopback targets only, unless
                    CONSOLE_ALLOW_REMOTE_LOAD=1. With --writes the mutation profile is paired too: each
                    side gets its own ids and names (manifests paired by position), within the smaller
                    budget of the two manifests; a side given by URL is snapshotted and restored, its
                    writes in reports/candidate/latency/<side>/ledger.json. A candidate whose network
                    answers instead of it (no answer, an HTML 502) past the profile's budget: exit 3
  --profile NAME    the load profile of --latency: smoke (4 s) or baseline (a minute, the default)
  --min-effect PCT  the smallest slowdown of --latency that counts (default 10, as baseline:compare; 0
                    counts any slowdown the test and the interval show, for gating on small ones)
  --help            this text

exit codes: 0 no regression (changes of open behaviour are listed), 1 a regression (or a change under
--freeze-open), 2 a latency regression (--latency) and nothing worse, 3 a side could not be tested (one
line naming it) or bad options`;

export async function main(argv: string[]): Promise<number> {
  const { values } = parseCommand(
    {
      name: 'candidate',
      help: HELP,
      options: {
        current: { type: 'string' },
        candidate: { type: 'string' },
        'current-manifest': { type: 'string' },
        'candidate-manifest': { type: 'string' },
        'read-only': { type: 'boolean' },
        writes: { type: 'boolean' },
        strict: { type: 'boolean' },
        'freeze-open': { type: 'boolean' },
        reads: { type: 'string' },
        'current-fault': { type: 'string', multiple: true },
        'current-variant': { type: 'string', multiple: true },
        'candidate-fault': { type: 'string', multiple: true },
        'candidate-variant': { type: 'string', multiple: true },
        grep: { type: 'string' },
        deadline: { type: 'string' },
        latency: { type: 'boolean' },
        profile: { type: 'string' },
        'min-effect': { type: 'string' },
      },
    },
    argv,
  );
  if (values.writes && values['read-only']) throw new Error('--writes and --read-only exclude each other');
  const profile = values.profile ?? 'baseline';
  if (profile !== 'smoke' && profile !== 'baseline') throw new Error(`--profile must be smoke or baseline, got ${JSON.stringify(profile)}`);
  if (!values.latency && (values.profile !== undefined || values['min-effect'] !== undefined))
    throw new Error('--profile and --min-effect are options of --latency');
  const minEffect = values['min-effect'] === undefined ? 10 : Number(values['min-effect']);
  if (values['min-effect']?.trim() === '' || !Number.isFinite(minEffect) || minEffect < 0 || minEffect > 1000)
    throw new Error(`--min-effect must be a percentage from 0 to 1000, got ${JSON.stringify(values['min-effect'])}`);
  const reads = integerOption('candidate', '--reads', values.reads, { min: 1, max: 5, fallback: 2 });
  const { code } = await runCandidate({
    current: { url: values.current, manifest: values['current-manifest'], faults: values['current-fault'], variants: values['current-variant'] },
    candidate: { url: values.candidate, manifest: values['candidate-manifest'], faults: values['candidate-fault'], variants: values['candidate-variant'] },
    writes: values.writes ?? false,
    strict: values.strict ?? false,
    freezeOpen: values['freeze-open'] ?? false,
    reads,
    deadline: values.deadline,
    latency: values.latency ? { profile, minEffect: minEffect / 100 } : undefined,
    playwrightArgs: values.grep ? ['--grep', values.grep] : [],
  });
  return code;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) runCommand('candidate', () => main(process.argv.slice(2)));
