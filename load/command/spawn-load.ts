// `npm run load:*` as a child process, for the tests and benchmarks that judge the command whole: its exit code and
// everything it printed. The environment's CONSOLE_ and LOAD_ variables are left out, so that a test
// sees only the target and options it gives (`env`: a target's CONSOLE_BASE_URL and key, for one).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../core/config.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';

export function spawnLoad(args: string[], reports: string, extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_') && !k.startsWith('LOAD_')));
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'load/command/load.ts'), ...args], {
    cwd: ROOT,
    env: { ...env, ...extra, CONSOLE_REPORTS_DIR: reports },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  // 'close', not 'exit': the child's output is read to its end before the test looks at it.
  return new Promise((done) => child.on('close', (code) => done({ code, out })));
}
