// The child process of the stage now running and the reference server it uses: started here, so
// that the deadline and a signal (CI stops a job with SIGTERM) can stop them.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../../../core/config.ts';
import { TSX_LOADER } from '../../../core/package.ts';
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
  const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, script), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** A cancelled run (CI stops a job with SIGTERM) must not leave its reference server or the stage's child behind. */
export function onSignal(signal: NodeJS.Signals): void {
  console.error(`verify: stopped by ${signal}`);
  stopRunningChild();
  void (activeServer?.stop() ?? Promise.resolve()).then(() => process.exit(3));
}

/** The stage's reference server, from its start to its stop (undefined: none runs). */
export function setActiveServer(server: ReferenceServer | undefined): void {
  activeServer = server;
}
