// The reference server as ONE operating-system process (`node --import tsx reference/cli.ts`), for the
// reliability tests: kill -9 must hit the server itself and RSS must be the server's own. (The `tsx`
// CLI that scripts/lib/reference-process.ts spawns runs the server in a child process, so a SIGKILL
// there would orphan the server and RSS would be the launcher's.)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../../scripts/lib/config.ts';
import { randomApiKey } from '../../scripts/lib/reference-process.ts';

export interface Server {
  baseUrl: string;
  apiKey: string;
  child: ChildProcess;
  /** Everything the server wrote to stdout and stderr so far (its log, with --log). */
  output(): string;
  /** Resident set size of the server process in bytes (Linux /proc). */
  rss(): number;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServerOptions {
  apiKey?: string;
  db?: string;
  scale?: number;
  log?: boolean;
  timeoutMs?: number;
}

export async function startServer(opts: ServerOptions = {}): Promise<Server> {
  const apiKey = opts.apiKey ?? randomApiKey();
  const args = ['--import', 'tsx', resolve(ROOT, 'reference/cli.ts'), '--port', '0', '--host', '127.0.0.1', '--db', opts.db ?? ':memory:'];
  if (opts.scale !== undefined) args.push('--scale', String(opts.scale));
  if (opts.log) args.push('--log');
  // The key travels in the environment, never in argv (process listings show argv).
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, CONSOLE_API_KEY: apiKey }, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  child.stderr!.on('data', (b: Buffer) => chunks.push(b.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reference server did not report "listening on" within ${opts.timeoutMs ?? 120_000} ms`));
    }, opts.timeoutMs ?? 120_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      chunks.push(`${line}\n`);
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`reference server exited before it was ready (code ${code}, signal ${signal}): ${chunks.join('').slice(-500)}`));
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    baseUrl,
    apiKey,
    child,
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

/** One request to the server: status and parsed body (undefined when the body is not JSON). */
export async function call(server: Server, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': server.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed };
}
