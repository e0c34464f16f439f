// The child process of the stage now running and the reference server it uses: started here, so
// that the deadline and a signal (CI stops a job with SIGTERM) can stop them.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../../../core/config.ts';
import { TS_NODE_OPTIONS } from '../../../core/package.ts';
import type { ReferenceServer } from '../../../core/reference.ts';

/** The stage's child process now running, to be stopped with verify. */
let running: ChildProcess | undefined;

/** Runs a TypeScript file in a node process of its own (tsx's loader), its stdout read line by line (for progress), stderr passed through. */
export function runTsx(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void,
  onErrorLine?: (line: string) => void,
): Promise<number> {
  // Once verify is stopping no stage starts: the signal's handler exits when the running one has ended.
  if (stopping) return new Promise(() => {});
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running = child;
  createInterface({ input: child.stdout! }).on('line', onLine);
  // Passed through as it comes; the caller may keep a line too (the one-line reason of a stage that could not run).
  createInterface({ input: child.stderr! }).on('line', (line) => {
    console.error(line);
    onErrorLine?.(line);
  });
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      running = undefined;
      done(code ?? (signal ? 3 : 0));
    }),
  );
}

/** Stops the stage's child process, if one runs (the load stage's deadline). */
export function stopRunningChild(): void {
  running?.kill('SIGTERM');
}

/** The reference server of the running stage, stopped should verify be. */
let activeServer: ReferenceServer | undefined;

/** The signal verify was stopped by: no stage starts after it. */
let stopping: NodeJS.Signals | undefined;
let stoppingAt = 0;

/** What verify's last line says was given back to the target (set by verify-run.ts, which knows the target and the reports). */
let stopLine: () => string = () => 'nothing of a target to give back';

export function setStopLine(line: () => string): void {
  stopLine = line;
}

/**
 * A cancelled run (CI stops a job with SIGINT, then SIGTERM, then SIGKILL) must not leave the stage's
 * child or its reference server behind, nor cut the child's restore short: verify waits for the child,
 * which gives back what it owes the target before it exits (its output would be lost, and its writes
 * could fail, were verify to go first). A second signal changes nothing of that.
 */
export function onSignal(signal: NodeJS.Signals): void {
  // The group's signal and the same one passed on by npm and tsx arrive together: one cut.
  if (stopping === signal && Date.now() - stoppingAt < 500) return;
  if (stopping) {
    console.error(`verify: ${signal} again: waiting for the stage to give back what it owes the target`);
    running?.kill(signal);
    return;
  }
  stopping = signal;
  stoppingAt = Date.now();
  console.error(`verify: ${signal}: stopping; the running stage gives back what it owes the target first`);
  const child = running;
  // Sent on too, for a signal that reached verify alone; the child takes the group's and this one as one.
  child?.kill(signal);
  const ended = child && child.exitCode === null && child.signalCode === null ? new Promise((done) => child.once('close', done)) : Promise.resolve();
  void ended
    .then(() => activeServer?.stop())
    .then(() => {
      console.error(`verify: stopped by ${signal}: ${stopLine()}`);
      process.exit(3);
    });
}

/** The stage's reference server, from its start to its stop (undefined: none runs). */
export function setActiveServer(server: ReferenceServer | undefined): void {
  activeServer = server;
}
