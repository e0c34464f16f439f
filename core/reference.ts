// The one way to start the reference server as a child process: on a free loopback port, waiting for
// its readiness line (no sleeps). The server is one operating-system process (`node --import tsx`, not
// the tsx CLI, which would run it in a grandchild: a SIGKILL would then miss the server and RSS would
// be the launcher's), and it watches its standard input, a pipe from here: when this process dies,
// even by SIGKILL, the pipe closes and the server stops, so no orphan is left listening.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError, ROOT, type Config } from './config.ts';
import { TS_NODE_OPTIONS } from './package.ts';

export interface ReferenceServer {
  baseUrl: string;
  apiKey: string;
  process: ChildProcess;
  /** What the server wrote so far: its stdout, and its stderr when `stderr: 'pipe'` (its log, with `log`). */
  output(): string;
  /** Resident set size of the server process in bytes (Linux /proc). */
  rss(): number;
  /** SIGKILL, as a crash would: no shutdown hook runs. */
  kill9(): Promise<void>;
  /** SIGTERM (a clean close), SIGKILL after 5 s. */
  stop(): Promise<void>;
}

export interface ReferenceOptions {
  apiKey?: string;
  db?: string; // default :memory:
  seed?: number;
  scale?: number;
  faults?: string[];
  variants?: string[];
  /** Log requests (`--log`); the key is never logged. */
  log?: boolean;
  /** Network-like latency on every response, `<median-ms>[:<spread>]` (`--latency`, reference/latency.ts). */
  latency?: string;
  extraArgs?: string[];
  /** Where the server's stderr goes; default: inherited. 'pipe' keeps it for output(). */
  stderr?: 'inherit' | 'ignore' | 'pipe';
  timeoutMs?: number;
}

export function randomApiKey(): string {
  return `cc_${randomBytes(24).toString('hex')}`;
}

export async function startReference(opts: ReferenceOptions = {}): Promise<ReferenceServer> {
  const apiKey = opts.apiKey ?? randomApiKey();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const args = [
    ...TS_NODE_OPTIONS,
    resolve(ROOT, 'reference/cli.ts'),
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--db',
    opts.db ?? ':memory:',
    '--exit-with-stdin',
  ];
  if (opts.seed !== undefined) args.push('--seed', String(opts.seed));
  if (opts.scale !== undefined) args.push('--scale', String(opts.scale));
  for (const f of opts.faults ?? []) args.push('--fault', f);
  for (const v of opts.variants ?? []) args.push('--variant', v);
  if (opts.log) args.push('--log');
  if (opts.latency !== undefined) args.push('--latency', opts.latency);
  args.push(...(opts.extraArgs ?? []));
  // The key goes through the environment, never argv, so that it shows in no process listing.
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, CONSOLE_API_KEY: apiKey },
    stdio: ['pipe', 'pipe', opts.stderr ?? 'inherit'],
  });
  // The pipe is only held open; an error on it (the server gone first) is not this process's failure.
  child.stdin!.on('error', () => {});
  const chunks: string[] = [];
  child.stderr?.on('data', (b: Buffer) => chunks.push(b.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reference server did not report "listening on" within ${timeoutMs} ms`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      chunks.push(`${line}\n`);
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1].replace(/\/+$/, ''));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `reference server exited before it was ready (code ${code}, signal ${signal})${opts.stderr === 'pipe' ? `: ${chunks.join('').slice(-500)}` : ''}`,
        ),
      );
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    baseUrl,
    apiKey,
    process: child,
    output: () => chunks.join(''),
    rss: () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : NaN;
    },
    kill9: async () => {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (gone()) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * The target of a command: with CONSOLE_BASE_URL set, nothing to start; otherwise a reference server,
 * whose address and key are written into `env` for the child processes (which read them through
 * the config module). A server that will not start is a ConfigError: the run cannot be carried out.
 */
export async function referenceUnlessTarget(config: Config, env: NodeJS.ProcessEnv): Promise<ReferenceServer | undefined> {
  if (config.baseUrl) return undefined;
  let server: ReferenceServer;
  try {
    server = await startReference({ apiKey: config.apiKey, stderr: 'ignore' });
  } catch (err) {
    throw new ConfigError(`cannot start the reference server: ${(err as Error).message}`);
  }
  env.CONSOLE_BASE_URL = server.baseUrl;
  env.CONSOLE_API_KEY = server.apiKey;
  return server;
}
