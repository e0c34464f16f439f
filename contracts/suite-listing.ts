// The conformance suite as Playwright itself lists it (`playwright test --list --reporter=json`): its
// tests with their annotations, with no target reached (the config is loaded, no test runs).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import type { Json } from '../core/json.ts';

/** Playwright's JSON report of the listed suite, or the reason it could not be listed. */
export function listSuite(): { report?: Json; error?: string } {
  const list = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--list', '--reporter=json', '-c', join(ROOT, 'playwright.config.ts')],
    {
      cwd: ROOT,
      encoding: 'utf8',
      // A placeholder target: listing needs none.
      env: { ...process.env, CONSOLE_BASE_URL: 'http://127.0.0.1:9', CONSOLE_API_KEY: 'listing-only' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (list.status !== 0) return { error: (list.stderr || list.stdout).split('\n').slice(0, 5).join(' ') };
  return { report: JSON.parse(list.stdout) };
}
