// A child and every process under it, stopped at once. Playwright's workers ignore SIGINT and SIGTERM
// (they wait for their runner to tell them to stop), so a cut run that only signals the runner can have
// a worker still writing to the target after the restore; and once the runner is gone its workers are
// re-parented and can no longer be found. So the whole tree is listed first, then killed.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Each live process's parent, from /proc (Linux), else from ps. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // The command name in brackets may hold spaces and brackets: the fields after its last ')'.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        out.set(Number(name), ppid);
      } catch {
        // it ended while being read
      }
    }
    if (out.size) return out;
  } catch {
    // no /proc: not Linux
  }
  for (const line of execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], { encoding: 'utf8' }).split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid) out.set(pid, ppid);
  }
  return out;
}

/** `pid` and its descendants, parents before children. */
export function processTree(pid: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const [p, pp] of parents()) byParent.set(pp, [...(byParent.get(pp) ?? []), p]);
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of byParent.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** Sends `signal` to `pid` and every process under it, listed before any is signalled. */
export function killTree(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const p of processTree(pid))
    try {
      process.kill(p, signal);
    } catch {
      // already gone
    }
}
