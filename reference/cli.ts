// npm run serve -- [--port N] [--host H] [--db FILE|:memory:] [--api-key K] [--seed N] [--scale N]
//                  [--fault NAME]... [--variant NAME]... [--latency MS[:SPREAD]] [--log] [--exit-with-stdin] [--list-faults [--generated]]
// Prints one line `listening on http://HOST:PORT` when ready (core/reference.ts waits for it).
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { fail as failCommand, integerOption, parseCommand } from '../core/command.ts';
import { referenceKeyFromEnv } from '../core/config.ts';
import { build, DEFAULT_SCALE } from './app.ts';
import { FAULTS, PARAMETRISED_FAULTS, VARIANTS, checkSwitches, generatedFaults } from './faults.ts';
import { DEFAULT_SPREAD, parseLatency } from './latency.ts';

const HELP = `usage: npm run serve -- [options]

The reference Console API server (Fastify + SQLite), for the conformance suite and load profiles.

  --port N          port to listen on (default 8080; 0 picks a free port)
  --host H          address to bind (default 127.0.0.1)
  --db FILE         SQLite file, kept across restarts (WAL); default :memory:
  --api-key K       the SERVICE-API-KEY to accept; default $CONSOLE_API_KEY, else a random key printed to stderr
  --seed N          seed of the generated data (default 1)
  --scale N         number of experiments to seed (default ${DEFAULT_SCALE})
  --fault NAME      inject a defect for the suite's self-test (repeatable; see --list-faults); the
                    faults generated from the contract are named gen:<edit>:<clause>[:<detail>]
                    slow:<operationId>:<percent> makes one operation that much slower (its total
                    time, --latency included, scaled by 1 + percent/100), to measure the load compare
  --variant NAME    switch to a legal "not shown" behaviour (repeatable; see --list-faults); some
                    take a parameter after a colon: rules-cap:<N>, steady-429:<every>:<seconds>
  --latency MS[:S]  every response waits a log-normal time of median MS ms and log spread S (default
                    ${DEFAULT_SPREAD}), like a network; loopback alone answers in about 1 ms
  --log             log requests (the key is never logged)
  --exit-with-stdin stop when standard input closes (a launcher gives a pipe, so the server never
                    outlives it, even a launcher killed with SIGKILL)
  --list-faults     print the faults and variants as JSON and exit
  --generated       with --list-faults: the faults generated from the contract too (gen:..., with
                    the edit each is made of); without it, the hand-written faults the self-test runs
  --help            this text

Environment: CONSOLE_API_KEY, the key to accept when --api-key is not given.
Exit 0 stopped by SIGTERM or SIGINT (or --exit-with-stdin), 3 bad options or cannot listen.`;

const NAME = 'serve';
function fail(reason: string): never {
  return failCommand(NAME, reason);
}

const { values: args } = parseCommand({
  name: NAME,
  help: HELP,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    db: { type: 'string' },
    'api-key': { type: 'string' },
    seed: { type: 'string' },
    scale: { type: 'string' },
    fault: { type: 'string', multiple: true },
    variant: { type: 'string', multiple: true },
    latency: { type: 'string' },
    log: { type: 'boolean' },
    'exit-with-stdin': { type: 'boolean' },
    'list-faults': { type: 'boolean' },
    generated: { type: 'boolean' },
  },
});
if (args['list-faults']) {
  const faults = args.generated ? [...FAULTS, ...generatedFaults()] : FAULTS;
  // Exit once the list is written: a pipe takes 64 KiB at a time, and the list with the generated faults is longer.
  const text = `${JSON.stringify({ faults, variants: VARIANTS, parametrised: PARAMETRISED_FAULTS }, null, 2)}\n`;
  await new Promise<void>((written) => process.stdout.write(text, () => written()));
  process.exit(0);
}

if (args.generated) fail('--generated goes with --list-faults (a generated fault is selected by name with --fault)');

// All of the configuration is checked before anything is started or printed.
const port = integerOption(NAME, '--port', args.port, { min: 0, max: 65535, fallback: 8080 });
const host = args.host ?? '127.0.0.1';
if (!isIP(host) && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(host)) fail(`--host must be an IP address or a host name, got ${JSON.stringify(host)}`);
const seedValue = integerOption(NAME, '--seed', args.seed, { min: 0, max: 2 ** 31 - 1, fallback: 1 });
const scale = integerOption(NAME, '--scale', args.scale, { min: 0, max: 5_000_000, fallback: DEFAULT_SCALE });
const faults = args.fault ?? [];
const variants = args.variant ?? [];
const switchProblem = checkSwitches(faults, variants);
if (switchProblem) fail(switchProblem);
const latency = args.latency === undefined ? undefined : parseLatency(args.latency);
if (typeof latency === 'string') fail(latency);
if (args['api-key'] === '') fail('--api-key must not be empty');
const givenKey = args['api-key'] ?? referenceKeyFromEnv();
const apiKey = givenKey || randomBytes(18).toString('hex');

let app;
try {
  app = build({ apiKey, db: args.db ?? ':memory:', seed: seedValue, scale, faults, variants, latency, logger: args.log ?? false });
} catch (err) {
  fail((err as Error).message);
}

const shutdown = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
// A launcher that dies, however it dies, closes its end of the pipe: the server goes with it.
if (args['exit-with-stdin']) {
  process.stdin.once('end', shutdown);
  process.stdin.resume();
}

try {
  await app.listen({ port, host });
} catch (err) {
  fail(`cannot listen on ${host}:${port}: ${(err as Error).message}`);
}
const address = app.server.address();
const bound = typeof address === 'object' && address ? address.port : port;
const shownHost = host.includes(':') ? `[${host}]` : host;
console.log(`listening on http://${shownHost}:${bound}`);
// A generated key is told once, only on the user's own terminal, never on stdout (which tools parse).
if (!givenKey) console.error(`serve: no key given; this run accepts SERVICE-API-KEY ${apiKey}`);
