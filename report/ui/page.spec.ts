// reports/index.html in real Chromium, as a release manager reads it: the verdict and what ran, the
// clause matrix filtered by status, a failure opened to its evidence and spec text, load against the
// baseline, the trend from the run history; no request leaves file://. Screenshots go to reports/report-test/screenshots/; with
// CONSOLE_UPDATE_SCREENSHOTS=1 (npm run report:screenshots) into docs/ for the README instead, so that
// `npm test` leaves the committed images alone.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { ROOT, updateScreenshotsFromEnv } from '../../core/config.ts';
import { fmtMs } from '../escape.ts';
import { FAULT, reportDir } from './global-setup.ts';

const dir = reportDir();
const shots = updateScreenshotsFromEnv() ? join(ROOT, 'docs') : join(dir, 'screenshots');
const shot = (name: string) => join(shots, name);
const index = join(dir, 'index.html');
const conformance = () => JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8'));

/** Opens the page; every request it makes is recorded, and any that is not file:// is refused. */
async function open(page: Page): Promise<string[]> {
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.route('**/*', (route) => (route.request().url().startsWith('file://') ? route.continue() : route.abort()));
  await page.goto(pathToFileURL(index).href);
  return requests;
}

const offFile = (requests: string[]) => requests.filter((u) => !u.startsWith('file://'));

test('the page opens on the verdict and says what was run against what, and requests nothing beyond file://', async ({ page }) => {
  const requests = await open(page);
  await expect(page.locator('#verdict')).toHaveText('FAIL');
  await expect(page.locator('.meaning')).toContainText('a stated clause is violated');
  const summary = conformance().summary;
  await expect(page.locator('#headline')).toContainText(`${summary.clauses.total} clauses: ${summary.clauses.pass} pass, ${summary.clauses.fail} fail`);
  const run = page.locator('#run table.meta');
  await expect(run).toContainText(/http:\/\/127\.0\.0\.1:\d+/);
  await expect(run).toContainText('fixtures/targets/reference.json');
  await expect(run).toContainText(/artillery \d/);
  await expect(run).toContainText(/started\s*20\d\d-/);
  await expect(page.locator('#stages tr.stage-fail')).toContainText('conformance');
  // The load stage says what the compare said (on a busy machine a regression can be real).
  const loadVerdict = JSON.parse(readFileSync(join(dir, 'load/compare.json'), 'utf8')).verdict;
  await expect(page.locator('#stages tr', { hasText: 'load' })).toHaveClass(loadVerdict === 'regression' ? /stage-regression/ : /stage-pass/);
  await expect(page.locator('#stages tr', { hasText: 'secret scan' })).toHaveClass(/stage-pass/);
  await page.screenshot({ path: shot('report-verdict.png') });
  expect(offFile(requests)).toEqual([]);
  expect(requests.length).toBeGreaterThan(0);
});

test('the clause matrix filters by status and by level', async ({ page }) => {
  await open(page);
  const rows = page.locator('#matrix tr.clause');
  const visible = page.locator('#matrix tr.clause:visible');
  const all = await rows.count();
  expect(all).toBe(conformance().clauses.length);
  await expect(visible).toHaveCount(all);

  await page.locator('button.filter[data-status="fail"]').click();
  const failing = conformance().clauses.filter((c: { status: string }) => c.status === 'fail');
  expect(failing.length).toBeGreaterThan(0);
  await expect(visible).toHaveCount(failing.length);
  for (const c of failing) await expect(page.locator(`#matrix tr.clause:visible:has(code:text-is("${c.id}"))`)).toHaveCount(1);
  // Only the sections holding a failing clause keep their heading.
  const sections = [...new Set(failing.map((c: { section: string }) => c.section))];
  await expect(page.locator('#matrix tr.sec-head:visible')).toHaveCount(sections.length);
  await expect(page.locator('#shown')).toHaveText(`${failing.length} of ${all} shown`);
  // The filtered matrix, from its title to its last row, for the README.
  await page.locator('#matrix-block').screenshot({ path: shot('report-matrix.png') });

  await page.locator('button.filter[data-status="observed"]').click();
  const observed = conformance().clauses.filter((c: { status: string }) => c.status === 'observed').length;
  await expect(visible).toHaveCount(observed);
  await page.locator('#level-filter').selectOption('stated');
  await expect(visible).toHaveCount(0);
  await page.locator('#level-filter').selectOption('open');
  await expect(visible).toHaveCount(observed);

  await page.locator('button.filter[data-status="all"]').click();
  await page.locator('#level-filter').selectOption('all');
  await expect(visible).toHaveCount(all);
});

test('a failure opens to its error, spec text and exchanges, with the key left out of the curl line', async ({ page }) => {
  await open(page);
  const failure = conformance().failures.find((f: { counts: boolean }) => f.counts);
  expect(failure, `the fault ${FAULT} makes a counting failure`).toBeTruthy();
  await page.locator('button.filter[data-status="fail"]').click();
  // From the failing clause in the matrix to its evidence.
  await page.locator('#matrix tr.clause:visible a.evidence-link').first().click();
  const details = page.locator('details.failure[open]');
  await expect(details).toHaveCount(1);
  await expect(details.locator('summary')).toContainText(failure.test);
  // The clauses it failed (its blame), not every clause its test names.
  await expect(details.locator('summary .blamed')).toHaveText(failure.blamed.join(', '));
  await expect(details.locator('pre.error')).toBeVisible();
  await expect(details.locator('ul.spec blockquote').first()).toBeVisible();
  await expect(details.locator('ul.spec')).toContainText('spec 8 Limits');
  const curl = details.locator('pre.curl').first();
  await expect(curl).toContainText('curl -sS -X POST');
  await expect(curl).toContainText('SERVICE-API-KEY: $CONSOLE_API_KEY');
  await expect(details.locator('.exchange').first()).toContainText('response body');
  await details.screenshot({ path: shot('report-failure.png') });
  // Closed again by a click on its summary: a plain <details>.
  await details.locator('summary').click();
  await expect(page.locator('details.failure[open]')).toHaveCount(0);
});

test('load: percentiles per endpoint against the baseline, throughput over time, links that lead to files', async ({ page }) => {
  await open(page);
  const compare = JSON.parse(readFileSync(join(dir, 'load/compare.json'), 'utf8'));
  for (const script of ['paging', 'mutation']) {
    const block = page.locator(`#load-${script}`);
    await expect(block.locator('h3 .tag')).toHaveText(compare.profiles[script].verdict);
    await expect(block.locator('table.load-table tbody tr')).toHaveCount(compare.profiles[script].endpoints.length);
    // The p95 against the baseline and the throughput over time, then one latency-over-time chart per
    // endpoint the run's periods hold, each with its p50, p95 and p99 lines.
    await expect(block.locator('svg.chart:not(.latency-time)')).toHaveCount(2);
    await expect(block.locator('svg.chart:not(.latency-time)').nth(1).locator('polyline')).not.toHaveCount(0);
    const overTime = block.locator('svg.chart.latency-time');
    expect(await overTime.count(), `${script}: a latency-over-time chart per endpoint`).toBeGreaterThan(0);
    await expect(overTime.first().locator('polyline')).not.toHaveCount(0);
  }
  const deep = compare.profiles.paging.endpoints.find((e: { endpoint: string }) => e.endpoint === 'listExperiments.deep');
  const deepRow = page.locator('#load-paging tr[data-endpoint="listExperiments.deep"] td');
  await expect(deepRow.nth(4)).toContainText(fmtMs(deep.p95)); // p95 of this run
  await expect(deepRow.nth(4)).toContainText(fmtMs(deep.baseline.p95 * compare.profiles.paging.calibration.scale)); // the calibrated baseline
  // Every link of the page leads to a file of the run or to a place on the page.
  const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
  for (const href of hrefs.filter((h) => !h.startsWith('#'))) expect(existsSync(join(dir, href)), href).toBe(true);
  expect(hrefs).toEqual(expect.arrayContaining(['load/paging/artillery.json', 'load/mutation/artillery.json', 'playwright-report/index.html']));
  await page.locator('#load-paging').screenshot({ path: shot('report-load.png') });
});

test('trend: the run history of this folder (this run) drawn per endpoint, for the pass rate and the stated coverage, no shift from one run', async ({
  page,
}) => {
  await open(page);
  const trend = page.locator('#trend');
  await expect(trend.locator('h2 .tag')).toHaveText('no shift');
  await expect(trend).toContainText('The last 1 run ');
  const passRate = trend.locator('figure[data-trend="pass-rate"]');
  await expect(passRate.locator('svg.chart circle')).toHaveCount(1);
  await expect(trend.locator('figure[data-trend="coverage"] svg.chart circle')).toHaveCount(1);
  const endpoints = ['paging', 'mutation'].flatMap((script) =>
    Object.keys(JSON.parse(readFileSync(join(dir, 'load', script, 'summary.json'), 'utf8')).endpoints).map((e) => `${script} ${e}`),
  );
  await expect(trend.locator('figure.trend')).toHaveCount(2 + endpoints.length);
  await expect(trend.locator(`figure[data-trend="paging listExperiments.deep"]`)).toContainText('No shift in 1 run (a shift needs 6 runs');
  await expect(trend.locator('g.change')).toHaveCount(0);
});

test('open clauses show what the target did, and drift against the previous run is listed', async ({ page }) => {
  await open(page);
  const observations = JSON.parse(readFileSync(join(dir, 'observations.json'), 'utf8'));
  await expect(page.locator('#observed tbody tr')).toHaveCount(Object.keys(observations).length);
  const drift = conformance().drift as { clause: string; aspect: string; before: unknown; now: unknown }[];
  // The previous run's pagination was {page, limit, hasMore} (variant pagination-other-fields); this one's is the reference's.
  const pagination = drift.filter((d) => d.clause === 'pagination.fields');
  expect(pagination.map((d) => d.aspect).sort(), JSON.stringify(drift)).toEqual(['listExperiments', 'listReleasePipelines']);
  expect(pagination[0].before).toEqual(['hasMore', 'limit', 'page']);
  await expect(page.locator('#drift tbody tr')).toHaveCount(drift.length);
  await expect(page.locator('#drift tbody tr', { hasText: 'pagination.fields' })).toHaveCount(2);
  await expect(page.locator('#drift')).toContainText('"hasMore"');
  await expect(page.locator('#observed tr.drifted')).not.toHaveCount(0);
  await expect(page.locator('#run table.meta')).toContainText('report-test-previous/observations.json');
});
