// Reporters for `npm run conformance:merge`: the same as playwright.config.ts, replayed over the blob
// reports of several shards (`npm run conformance -- --shard 1/2 --reporter=list,blob,...`), so that
// the merged conformance.json, junit.xml and HTML report cover the whole suite.
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { loadConfig } from '../core/config.ts';

const { reportsDir } = loadConfig();

export default defineConfig({
  testDir: 'conformance',
  reporter: [['list'], ['html', { outputFolder: join(reportsDir, 'playwright-report'), open: 'never' }], ['./support/reporter.ts']],
});
