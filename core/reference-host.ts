// Reference servers started in warm processes (reference/host.ts), for a caller that starts many in a
// row (the self-test, the proof map): each server is built anew with a fresh in-memory store, as
// `serve` would start it, but the process it runs in is reused, which saves the start of Node, tsx
// and the server's modules (about half a second of CPU) per server. One server per process at a
// time: two servers at once get two processes. A process with no server does not keep this one
// alive, and goes when this one does (its standard input, a pipe from here, closes).
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './config.ts';
import { TS_NODE_OPTIONS } from './package.ts';
import { randomApiKey } from './reference.ts';

export interface HostedServer {
  baseUrl: string;
  apiKey: string;
  /** Closes the server (and its store); its process waits for the next. */
  stop(): Promise<void>;
}

export interface HostedOptions {
  faults?: string[];
  variants?: string[];
  scale?: number;
}

interface Host {
  child: ChildProcess;
  /** The next line the host writes, parsed. */
  next(): Promise<{ url?: string; error?: string; stopped?: true }>;
}

const idle: Host[] = [];

function startHost(): Host {
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, resolve(ROOT, 'reference/host.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  // The pipe is only written to while the host lives; an error on it (the host gone) shows as its exit below.
  child.stdin!.on('error', () => {});
  const waiting: ((line: string | Error) => void)[] = [];
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else lines.push(line);
  });
  child.once('exit', (code, signal) => {
    const i = idle.findIndex((h) => h.child === child);
    if (i >= 0) idle.splice(i, 1);
    for (const w of waiting.splice(0)) w(new Error(`the reference host exited (code ${code}, signal ${signal})`));
  });
  return {
    child,
    next: () =>
      new Promise((done, fail) => {
        const answer = (line: string | Error) => (line instanceof Error ? fail(line) : done(JSON.parse(line)));
        if (lines.length) answer(lines.shift()!);
        else if (child.exitCode !== null || child.signalCode !== null) answer(new Error(`the reference host exited (code ${child.exitCode})`));
        else waiting.push(answer);
      }),
  };
}

/** Whether the host holds this process open: only while it runs a server for it. */
function hold(host: Host, on: boolean): void {
  for (const handle of [host.child, host.child.stdin, host.child.stdout] as { ref(): void; unref(): void }[]) {
    if (on) handle.ref();
    else handle.unref();
  }
}

/** A reference server with these switches and a fresh store, on a free loopback port, in a warm host process. */
export async function startHosted(opts: HostedOptions = {}): Promise<HostedServer> {
  const host = idle.pop() ?? startHost();
  hold(host, true);
  const apiKey = randomApiKey();
  host.child.stdin!.write(`${JSON.stringify({ start: { apiKey, faults: opts.faults, variants: opts.variants, scale: opts.scale } })}\n`);
  const started = await host.next();
  if (!started.url) {
    hold(host, false);
    idle.push(host);
    throw new Error(`reference server did not start: ${started.error}`);
  }
  return {
    baseUrl: started.url,
    apiKey,
    stop: async () => {
      host.child.stdin!.write(`${JSON.stringify({ stop: true })}\n`);
      const stopped = await host.next().catch(() => undefined);
      hold(host, false);
      if (stopped?.stopped) idle.push(host);
      else host.child.kill('SIGKILL');
    },
  };
}

/** Ends the idle host processes and waits for them (a command's last step: its CPU time then counts theirs). */
export async function stopHosts(): Promise<void> {
  await Promise.all(
    idle.splice(0).map(
      (host) =>
        new Promise<void>((done) => {
          if (host.child.exitCode !== null || host.child.signalCode !== null) return done();
          hold(host, true);
          host.child.once('exit', () => done());
          host.child.stdin!.end();
        }),
    ),
  );
}
