// Progress of a long child process, for `npm run verify`: reads the conformance suite's output (the
// Playwright list reporter) to count tests done of the total, and prints a progress line at most
// every few seconds (on a terminal, one line rewritten in place).

export interface TestProgress {
  total: number | null;
  done: number;
  failed: number;
}

/** Playwright's list reporter, not on a terminal: "  ✓   12 path:line:col › title (20ms)"; ✘ failed, - skipped. */
const TEST_LINE = /^\s+(✓|✘|-|ok|x)\s+\d+\s/;
const RUNNING = /^Running (\d+) tests? using/;

/** Feeds one line of the suite's output; returns what the line was, for the caller to show or hide. */
export function readTestLine(p: TestProgress, line: string): 'test-passed' | 'test-failed' | 'other' {
  const running = RUNNING.exec(line);
  if (running) {
    p.total = Number(running[1]);
    return 'other';
  }
  const m = TEST_LINE.exec(line);
  if (!m) return 'other';
  p.done++;
  if (m[1] === '✘' || m[1] === 'x') {
    p.failed++;
    return 'test-failed';
  }
  return 'test-passed';
}

export class Ticker {
  private last = 0;
  private onTerminal: boolean;
  private pending = false;
  private readonly everyMs: number;
  private readonly out: NodeJS.WriteStream;
  constructor(everyMs = 5000, out: NodeJS.WriteStream = process.stdout) {
    this.everyMs = everyMs;
    this.out = out;
    this.onTerminal = Boolean(out.isTTY);
  }

  /** Shows `text` now when `force`, else only if the last line is older than `everyMs` (always on a terminal). */
  show(text: string, force = false): void {
    const now = Date.now();
    if (this.onTerminal) {
      this.out.write(`\r\x1b[2K${text}`);
      this.pending = true;
    } else if (force || now - this.last >= this.everyMs) {
      this.out.write(`${text}\n`);
      this.last = now;
    }
  }

  /** Ends an in-place line before other output is written. */
  clear(): void {
    if (this.onTerminal && this.pending) {
      this.out.write('\r\x1b[2K');
      this.pending = false;
    }
  }
}
