// N k6 runners of one test, started and released the way the k6 operator does it on Kubernetes
// (grafana/k6-operator: each runner pod runs `k6 run --execution-segment=... --execution-segment-sequence=...
// --paused --address=...`, and once every runner answers on its REST API a starter unpauses them all
// with `PATCH /v1/status`). Here the runners are processes on this machine with loopback addresses:
// against one reference server this proves the mechanism and the merge, not extra capacity (the
// runners share the machine's cores with each other and with the server).
//
// Every runner stops by itself (the profiles are bounded); past `stopWithinMs` after the release the
// ones still running are stopped (SIGTERM, then SIGKILL) and the run could not be carried out. A runner
// that exits before it is ready, or is not ready in time, stops the others: one line says which and why.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError } from '../../core/config.ts';
import { k6Status, PAUSED_BEFORE_RUN, releaseRunner } from './k6-rest.ts';
import { runnerK6Out } from './outputs.ts';
import { segmentArgs, segmentsFor } from './segments.ts';

export interface RunnersOptions {
  k6: string;
  /** The script (or k6 archive) every runner runs. */
  script: string;
  runners: number;
  /** The environment one k6 of the whole test would get; each runner's report folder and file outputs are made its own. */
  env: NodeJS.ProcessEnv;
  /** Runner i writes its summary, JUnit and dashboard into `<reportDir>/runners/<i>/`. */
  reportDir: string;
  cwd: string;
  /** Arguments before the segment's, e.g. --quiet --no-color. */
  args?: string[];
  /** How long the runners may take to initialise and pause (default 120 s: four runners bundle the script at once on a small machine). */
  readyTimeoutMs?: number;
  /** The bound of the whole test after the release; past it the runners still running are stopped. */
  stopWithinMs: number;
  /** Progress lines; runner output goes to stdout/stderr prefixed with its number. */
  say?: (line: string) => void;
  /** What progress lines start with, e.g. `load: paging`. */
  label: string;
  /** Called once every runner is initialised and paused, just before the release (the tests look at the target then). */
  beforeRelease?: () => Promise<void> | void;
}

export interface RunnerResult {
  index: number;
  segment: string;
  /** Its report folder (summary.json, junit.xml, dashboard.html). */
  dir: string;
  /** k6's exit code (0 pass, 99 a threshold crossed, else not carried out). */
  exit: number;
  /** The K6_OUT it was given. */
  k6Out: string;
}

/** `count` ports free on 127.0.0.1 now (held together, so that they differ, then released for the runners). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((done, fail) => {
          const s = createServer();
          s.once('error', fail);
          s.listen(0, '127.0.0.1', () => done(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done()))));
  return ports;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Live {
  index: number;
  child: ChildProcess;
  address: string;
  exited: Promise<number>;
  exit: number | undefined;
  /** The last lines it wrote to stderr, for the one-line reason of a failure. */
  tail: string[];
}

/** Prefixes each line of a runner's output with its number, on the stream it came from. */
function relay(stream: NodeJS.ReadableStream | null, prefix: string, write: (line: string) => void, keep?: string[]): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    write(`${prefix} ${line}`);
    if (keep) {
      keep.push(line);
      if (keep.length > 5) keep.shift();
    }
  });
}

/** SIGTERM (k6 then aborts the test and still writes its summary), SIGKILL after `graceMs`. */
async function stop(live: Live[], graceMs = 10_000): Promise<void> {
  const running = live.filter((r) => r.exit === undefined);
  for (const r of running) r.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const r of running) if (r.exit === undefined) r.child.kill('SIGKILL');
  }, graceMs);
  await Promise.all(running.map((r) => r.exited));
  clearTimeout(timer);
}

/** The runner's last word on stderr, without k6's log prefix, cut to a line's length. */
const lastLine = (r: Live) => {
  const line = r.tail
    .map((l) =>
      l
        .replace(/^time="[^"]*" level=\w+ msg=/, '')
        .replace(/^"|"$/g, '')
        .trim(),
    )
    .filter(Boolean)
    .at(-1);
  return line ? (line.length > 200 ? `${line.slice(0, 200)}...` : line) : 'no output';
};

/**
 * Runs the test as `runners` segmented k6 processes: started paused, released together when every
 * one is ready, awaited until each stops. Resolves to each runner's result; throws a ConfigError
 * (exit 3, one line) when a runner cannot start, is not ready in time, refuses its release, or the
 * test outlives `stopWithinMs`.
 */
export async function runRunners(o: RunnersOptions): Promise<RunnerResult[]> {
  const say = o.say ?? ((line: string) => console.log(line));
  const n = o.runners;
  const { segments } = segmentsFor(n);
  const ports = await freePorts(n);
  const live: Live[] = [];
  const results: RunnerResult[] = [];
  const onSignal = () => void stop(live, 2000);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (let i = 1; i <= n; i++) {
      const dir = join(o.reportDir, 'runners', String(i));
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const k6Out = runnerK6Out(o.env.K6_OUT ?? '', i);
      const env: NodeJS.ProcessEnv = {
        ...o.env,
        LOAD_REPORT_DIR: dir,
        K6_OUT: k6Out,
        ...(o.env.K6_WEB_DASHBOARD_EXPORT ? { K6_WEB_DASHBOARD_EXPORT: join(dir, 'dashboard.html') } : {}),
      };
      const address = `127.0.0.1:${ports[i - 1]}`;
      // As the operator's runner pods: the segment, paused, the REST API on an address of its own, an instance tag.
      const args = ['run', ...(o.args ?? []), ...segmentArgs(i, n), '--paused', `--address=${address}`, '--tag', `instance_id=${i}`, o.script];
      const child = spawn(o.k6, args, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const r: Live = { index: i, child, address, exit: undefined, tail: [], exited: Promise.resolve(0) };
      r.exited = new Promise<number>((done) => {
        child.once('error', (err) => {
          r.tail.push(err.message);
          r.exit = 3;
          done(3);
        });
        // 'close', not 'exit': its output is read to the end by then, for the one-line reason.
        child.once('close', (code, signal) => {
          r.exit ??= code ?? (signal ? 3 : 0);
          done(r.exit);
        });
      });
      const prefix = `[runner ${i}/${n}]`;
      relay(child.stdout, prefix, (l) => console.log(l));
      relay(child.stderr, prefix, (l) => console.error(l), r.tail);
      live.push(r);
      results.push({ index: i, segment: segments[i - 1], dir, exit: -1, k6Out });
    }
    say(`${o.label}: ${n} k6 runners started paused (segments ${segments.join(', ')}), REST API on ${live.map((r) => r.address).join(', ')}`);

    // Ready: every runner initialised and paused before its run, as the operator waits for every runner pod.
    const t0 = Date.now();
    const readyBy = t0 + (o.readyTimeoutMs ?? 120_000);
    const pending = new Set(live);
    while (pending.size > 0) {
      for (const r of [...pending]) {
        if (r.exit !== undefined) {
          await stop(live);
          throw new ConfigError(`runner ${r.index} of ${n} exited (code ${r.exit}) before it was ready: ${lastLine(r)}`);
        }
        const s = await k6Status(r.address);
        if (s?.status === PAUSED_BEFORE_RUN && s.paused) pending.delete(r);
      }
      if (pending.size === 0) break;
      if (Date.now() > readyBy) {
        await stop(live);
        const late = [...pending].map((r) => r.index);
        throw new ConfigError(
          `runner${late.length > 1 ? 's' : ''} ${late.join(', ')} of ${n} not initialised and paused within ${Math.round((o.readyTimeoutMs ?? 120_000) / 1000)} s`,
        );
      }
      await sleep(100);
    }
    await o.beforeRelease?.();
    // Released together: one PATCH per runner, sent at once.
    try {
      await Promise.all(live.map((r) => releaseRunner(r.address)));
    } catch (err) {
      await stop(live);
      throw new ConfigError(`releasing the runners: ${(err as Error).message.split('\n')[0]}`);
    }
    say(`${o.label}: all ${n} runners ready after ${((Date.now() - t0) / 1000).toFixed(1)} s, released together`);

    let timedOut = false;
    const bound = setTimeout(() => {
      timedOut = true;
      void stop(live);
    }, o.stopWithinMs);
    const exits = await Promise.all(live.map((r) => r.exited));
    clearTimeout(bound);
    if (timedOut) throw new ConfigError(`the runners did not stop within ${Math.round(o.stopWithinMs / 1000)} s of their release: stopped`);
    for (const [i, code] of exits.entries()) results[i].exit = code;
    return results;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * How long a test may run once released, from k6 itself (`k6 inspect --execution-requirements`: the
 * scenarios' total duration, graceful stops included), plus setup's and teardown's timeouts and a
 * margin for the summary. Undefined when k6 cannot tell (the caller keeps its own bound).
 */
export async function testBoundMs(k6: string, script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number | undefined> {
  const child = spawn(k6, ['inspect', '--execution-requirements', '--include-system-env-vars', script], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((done) => {
    child.once('error', () => done(null));
    child.once('exit', (c) => done(c));
  });
  if (code !== 0) return undefined;
  try {
    const req = JSON.parse(out) as { totalDuration?: string; setupTimeout?: string; teardownTimeout?: string };
    const total = durationMs(req.totalDuration);
    if (total === undefined) return undefined;
    return total + (durationMs(req.setupTimeout) ?? 60_000) + (durationMs(req.teardownTimeout) ?? 60_000) + 60_000;
  } catch {
    return undefined;
  }
}

/** A Go duration as k6 prints it (`1m35s`, `500ms`, `2h0m0s`) in milliseconds. */
export function durationMs(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
  let total = 0;
  let rest = text.trim();
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/.exec(rest);
    if (!m) return undefined;
    total += Number(m[1]) * unit[m[2]];
    rest = rest.slice(m[0].length);
  }
  return total;
}
