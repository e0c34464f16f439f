// What the self-test (selftest.ts) and the proof map (proof.ts) share: the reference's list of
// switches, one run of the suite against a reference server started with some switches, and a pool
// that runs jobs a few at a time. (The suite files each fault runs: selftest-files.ts.)
import { readConformance } from '../core/formats.ts';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';
import type { ClauseResult, ListedSwitch, ListedVariant } from '../core/formats.ts';
import { startHosted, type HostedServer } from '../core/reference-host.ts';

export { stopHosts } from '../core/reference-host.ts';

/** The reference's faults and variants, from its own list (`serve --list-faults`), never from its code; with `generated`, the generated faults too. */
export function listSwitches(generated = false): { faults: ListedSwitch[]; variants: ListedVariant[] } {
  const r = spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'reference/cli.ts'), '--list-faults', ...(generated ? ['--generated'] : [])], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`serve --list-faults failed: ${r.stderr.split('\n')[0]}`);
  return JSON.parse(r.stdout);
}

export interface Outcome {
  verdict: 'pass' | 'fail' | 'inconclusive' | 'incomplete' | 'no report' | 'timed out';
  /** Titles of the failed tests that count. */
  failed: string[];
  tests: number;
  /** Ids of the clauses that warn. */
  warned: string[];
  /** Every clause of the run's conformance.json with its level and status ([] without a report). */
  clauses: Pick<ClauseResult, 'id' | 'level' | 'status'>[];
}

export interface SuiteRun {
  /** Suite files to run ([] or absent: all). */
  files?: string[];
  /** Only the tests whose title matches (Playwright's --grep, a /.../i pattern). */
  grep?: string;
  /** Stop at the first failing test (the self-test: a fault is caught or not). */
  stopAtFirstFailure?: boolean;
  /** --strict (default): an inferred clause violated fails. */
  strict?: boolean;
  /** The run is stopped after this long (its verdict `timed out`). */
  timeoutMs?: number;
  /** Suite options in the environment, beside the target's (selftest-files.ts optionsFor). */
  options?: NodeJS.ProcessEnv;
}

/** One run of the suite against `server`: Playwright directly, one worker, the suite's own reporter; the verdict from its conformance.json. */
export function runSuite(server: Pick<HostedServer, 'baseUrl' | 'apiKey'>, run: SuiteRun = {}): Promise<Outcome> {
  const reports = mkdtempSync(join(tmpdir(), 'cc-selftest-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONSOLE_BASE_URL: server.baseUrl,
    CONSOLE_API_KEY: server.apiKey,
    CONSOLE_REPORTS_DIR: reports,
    CONSOLE_STRICT: '1',
  };
  if (run.strict === false) delete env.CONSOLE_STRICT;
  delete env.CONSOLE_OBSERVATIONS_BASELINE;
  // The suite's options are the run's alone, none from the environment the command was started in.
  delete env.CONSOLE_AUTH_PROBES;
  // A young generation of up to 32 MB (V8's default on 64 bits: 16) for Playwright's runner and worker:
  // most of what their start allocates then dies young without as many collections; measured, about a
  // quarter less CPU per short run (five runs of auth.spec.ts, 8.0 s against 10.7 s), the same results.
  env.NODE_OPTIONS = [env.NODE_OPTIONS, '--max-semi-space-size=32'].filter(Boolean).join(' ');
  Object.assign(env, run.options);
  const args = [
    join(ROOT, 'node_modules/@playwright/test/cli.js'),
    'test',
    '-c',
    join(ROOT, 'playwright.config.ts'),
    '--reporter',
    './contracts/support/reporter.ts',
    '--workers',
    '1',
    ...(run.stopAtFirstFailure ? ['--max-failures', '1'] : []),
    ...(run.grep ? ['--grep', run.grep] : []),
    ...(run.files ?? []),
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    const timer = run.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, run.timeoutMs)
      : undefined;
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', () => {
      if (timer) clearTimeout(timer);
      const path = join(reports, 'conformance.json');
      let out: Outcome = {
        verdict: timedOut ? 'timed out' : 'no report',
        failed: [timedOut ? `stopped after ${Math.round((run.timeoutMs ?? 0) / 1000)} s` : (stderr.split('\n').find((l) => l.trim()) ?? 'no output')],
        tests: 0,
        warned: [],
        clauses: [],
      };
      if (!timedOut && existsSync(path)) {
        const report = readConformance(dirname(path))!;
        out = {
          verdict: report.summary.verdict,
          failed: report.failures.filter((f) => f.counts).map((f) => f.test),
          tests: report.summary.tests.total,
          warned: report.clauses.filter((c) => c.status === 'warn').map((c) => c.id),
          clauses: report.clauses.map(({ id, level, status }) => ({ id, level, status })),
        };
      }
      rmSync(reports, { recursive: true, force: true });
      resolve(out);
    });
  });
}

/** Runs `jobs` with at most `lanes` at a time; results in the order of `jobs`. */
export async function pool<T>(jobs: (() => Promise<T>)[], lanes: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await jobs[i]();
      }
    }),
  );
  return results;
}

/**
 * The parameter a variant runs with here, where its default would only make the run long: steady-429's
 * default (every 4th request refused for 1 s) costs the suite's ~800 requests about 4 minutes of waiting
 * (236 s measured, passing); every 12th shows the same waiting-out across workers in about a quarter.
 */
const SELFTEST_PARAMETERS: Record<string, string> = { 'steady-429': '12:1' };
const withParameter = (name: string) => (SELFTEST_PARAMETERS[name] ? `${name}:${SELFTEST_PARAMETERS[name]}` : name);

/**
 * `body` against a reference server started with these switches (stopped after, whatever happens): a
 * fresh server and store each time, in a warm process reused from run to run (core/reference-host.ts).
 */
export async function withServer<T>(opts: { faults?: string[]; variants?: string[]; scale?: number }, body: (s: HostedServer) => Promise<T>): Promise<T> {
  const server = await startHosted({ ...opts, variants: opts.variants?.map(withParameter) });
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}
