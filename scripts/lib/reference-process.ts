// Starts the reference server as a child process on a free loopback port and waits for its readiness
// line (no sleeps: style guide 7). Used by every command that needs a target when none is configured.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError, ROOT, type Config } from './config.ts';

export interface ReferenceServer {
  baseUrl: string;
  apiKey: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface ReferenceOptions {
  apiKey?: string;
  db?: string; // default :memory:
  seed?: number;
  scale?: number;
  faults?: string[];
  variants?: string[];
  extraArgs?: string[];
  /** Where the server's stderr goes; default: inherited. */
  stderr?: 'inherit' | 'ignore' | 'pipe';
  timeoutMs?: number;
}

export function randomApiKey(): string {
  return `cc_${randomBytes(24).toString('hex')}`;
}

export async function startReference(opts: ReferenceOptions = {}): Promise<ReferenceServer> {
  const apiKey = opts.apiKey ?? randomApiKey();
  const args = [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), resolve(ROOT, 'reference/cli.ts'), '--port', '0', '--host', '127.0.0.1', '--db', opts.db ?? ':memory:'];
  if (opts.seed !== undefined) args.push('--seed', String(opts.seed));
  if (opts.scale !== undefined) args.push('--scale', String(opts.scale));
  for (const f of opts.faults ?? []) args.push('--fault', f);
  for (const v of opts.variants ?? []) args.push('--variant', v);
  args.push(...(opts.extraArgs ?? []));
  // The key goes through the environment, never argv, so that it shows in no process listing.
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, CONSOLE_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', opts.stderr ?? 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reference server did not report "listening on" within ${opts.timeoutMs ?? 60000} ms`));
    }, opts.timeoutMs ?? 60000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1].replace(/\/+$/, ''));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`reference server exited before it was ready (code ${code}, signal ${signal})`));
    });
  });
  // Keep draining stdout so the child never blocks on a full pipe.
  child.stdout!.resume();
  return {
    baseUrl,
    apiKey,
    process: child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
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
