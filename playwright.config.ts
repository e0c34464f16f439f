// The conformance suite: Playwright API tests, no browser. Run it with `npm run conformance`.
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { loadConfig } from './core/config.ts';

const { reportsDir, deadlineSeconds, deadlineAt } = loadConfig();
// Kept back from the deadline for what follows Playwright's stop: worker teardown and the reports.
const STOP_RESERVE_MS = 3000;

export default defineConfig({
  testDir: 'contracts/conformance',
  testMatch: '**/*.spec.ts',
  globalSetup: './contracts/support/global-setup.ts',
  // Two workers fit two cores; no retries: a flaky check is a bug to fix, not to hide.
  workers: 2,
  retries: 0,
  fullyParallel: true,
  // Per test: a test may walk the whole experiment list once per filter (up to 8 walks of 60 pages), which
  // against a real server 200 ms away takes minutes. A hang is bounded by the request timeout, five
  // inconclusive tests in a row and the deadline, not by this.
  timeout: 300_000,
  // The run's deadline (--deadline / CONSOLE_DEADLINE, counted by the wrapper from the command's start):
  // past it Playwright stops, and the reporter still writes its reports, marked partial (docs/transport.md).
  globalTimeout: Math.max(1000, Math.round(deadlineAt ? deadlineAt - Date.now() - STOP_RESERVE_MS : deadlineSeconds * 1000)),
  outputDir: join(reportsDir, 'test-results'),
  reporter: [
    ['list'],
    ['html', { outputFolder: join(reportsDir, 'playwright-report'), open: 'never' }],
    // Writes conformance.json, observations.json and junit.xml (by clause level, not by Playwright's pass/fail).
    ['./contracts/support/reporter.ts'],
  ],
  use: {
    // Traces and videos would record request headers, and so the key.
    trace: 'off',
    video: 'off',
    screenshot: 'off',
  },
});
