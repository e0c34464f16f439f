// The report page's own test (npm run report:test): reports/index.html from a real run, opened in
// Debian's Chromium (/usr/bin/chromium, scripts/install-chromium). Separate from playwright.config.ts,
// which is the conformance suite (API tests, no browser). Playwright never downloads a browser here.
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { loadConfig } from './core/config.ts';

const { reportsDir } = loadConfig();

export default defineConfig({
  testDir: 'report/ui',
  testMatch: '**/*.spec.ts',
  // Produces the page: verify against a reference server with one injected fault (report/ui/global-setup.ts).
  globalSetup: './report/ui/global-setup.ts',
  workers: 1,
  retries: 0,
  timeout: 30_000,
  outputDir: join(reportsDir, 'report-test', 'test-results'),
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      // Without the background-networking flags Chromium calls home at start, and this machine's closed
      // network refuses it; the page itself must need no network at all (the test checks).
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
    trace: 'off',
    video: 'off',
    screenshot: 'off',
  },
});
