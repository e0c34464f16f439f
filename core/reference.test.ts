// The launcher leaves nothing behind: a command killed with SIGKILL (no handler runs) takes its
// reference server with it, because the server stops when the pipe on its standard input closes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { ROOT } from './config.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('a SIGKILLed launcher leaves no reference server running', async () => {
  const script = `import { startReference } from './core/reference.ts'; const s = await startReference({ stderr: 'ignore' }); console.log(s.process.pid, s.baseUrl);`;
  const launcher = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: launcher.stdout! }), 'line')) as [string];
  const [pid, baseUrl] = line.split(' ');
  assert.equal((await fetch(`${baseUrl}/console/v1/metrics`)).status, 401, 'the server answers while its launcher lives');
  launcher.kill('SIGKILL');
  await once(launcher, 'exit');
  // The server's exit is an event of another process tree: wait for it by asking, not by sleeping a fixed time.
  for (let i = 0; i < 200 && alive(Number(pid)); i++) await new Promise((r) => setTimeout(r, 50));
  const left = alive(Number(pid));
  if (left) process.kill(Number(pid), 'SIGKILL');
  assert.equal(left, false, 'the reference server outlived its SIGKILLed launcher');
});
