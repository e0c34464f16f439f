// npm run conformance -- [--strict] [--deadline SECONDS] [playwright args...]
// Runs the Playwright conformance suite against CONSOLE_BASE_URL, or against a reference server it
// starts itself, after a preflight that the target is the Console API. Exit codes (architecture guide,
// section 3): 0 pass; 1 contract failure (a stated clause violated, or an inferred one under
// --strict), even when the run later stopped; 3 the run could not be carried out, or was cut short
// (deadline, transport failures: docs/transport.md), with one line and, where the suite ran, a
// partial report.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ROOT, loadConfigOr, seconds } from '../core/config.ts';
import { referenceUnlessTarget } from '../core/reference.ts';
import { redactText } from '../core/keys.ts';
import type { ConformanceReport, ConformanceSummary } from '../contracts/support/reporter.ts';

const HELP = `usage: npm run conformance -- [--strict] [--deadline SECONDS] [playwright test options]

Runs the conformance suite. Target: CONSOLE_BASE_URL and CONSOLE_API_KEY, else a reference server
started on a free loopback port. Manifest: CONSOLE_FIXTURES (default fixtures/targets/reference.json).

  --strict      inferred clauses fail instead of warn (also CONSOLE_STRICT=1)
  --deadline SECONDS
                the whole run's deadline (also CONSOLE_DEADLINE; default 600): past it the run
                stops with exit 3 and a partial report. One request may take CONSOLE_REQUEST_TIMEOUT
                seconds (default 15); 5 tests in a row that get no usable answer also stop the run.
  --observations-baseline FILE
                a previous run's reports/observations.json: every difference is reported as drift
  --help        this text
  anything else is passed to \`playwright test\` (e.g. --grep metrics, --repeat-each 3, --shard 1/2)

exit codes: 0 pass, 1 contract failure, 3 run could not be carried out or was cut short (deadline,
transport failures, tests left inconclusive; docs/transport.md)`;

function fail3(reason: string): never {
  process.exit(say3(reason));
}

/** The one line of exit 3, returned as the code so that main's `finally` still stops the reference server. */
function say3(reason: string): 3 {
  console.error(`conformance: ${reason}`);
  return 3;
}

const PREFLIGHT_TIMEOUT_MS = 15_000;

/** "ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT"... from a fetch error (its cause), not undici's "fetch failed". */
function fetchErrorCode(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; cause?: { code?: string; name?: string; message?: string }; message?: string };
  if (e.name === 'TimeoutError' || e.cause?.name === 'TimeoutError') return `ETIMEDOUT (no answer within ${Math.round(timeoutMs / 1000)} s)`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/**
 * Is the target the Console API, and does it take the key? One list call, redirects not followed (the
 * key must go to the configured origin only), and the answer must be the Console envelope in JSON: a
 * login page or a proxy's error page is a target that cannot be tested (exit 3), not a contract failure.
 * Returns why the run cannot be carried out, or undefined.
 */
async function preflight(baseUrl: string, apiKey: string, timeoutMs: number): Promise<string | undefined> {
  let r: Response;
  try {
    r = await fetch(`${baseUrl}/console/v1/release_pipelines?limit=1`, { headers: { 'SERVICE-API-KEY': apiKey }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    return `target ${baseUrl} unreachable: ${fetchErrorCode(err, timeoutMs)}`;
  }
  if (r.status === 401 || r.status === 403) return `target ${baseUrl} rejected the key (HTTP ${r.status}): check CONSOLE_API_KEY`;
  if (r.status >= 300 && r.status < 400) {
    const location = r.headers.get('location');
    let to = location ?? '';
    try {
      to = location ? new URL(location, baseUrl).href : '';
    } catch {
      // not a URL: named as given
    }
    return `target ${baseUrl} redirects (HTTP ${r.status}${to ? ` to ${redactText(to, apiKey)}` : ''}): not followed, the key was sent nowhere else; set CONSOLE_BASE_URL to the API's own address`;
  }
  let text: string;
  try {
    text = await r.text();
  } catch (err) {
    return `target ${baseUrl}: the answer broke off (${fetchErrorCode(err, timeoutMs)})`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const type = r.headers.get('content-type')?.split(';')[0].trim() || 'no content type';
    return `target ${baseUrl} answered HTTP ${r.status} ${type}, not the Console API (GET /console/v1/release_pipelines)`;
  }
  const isEnvelope = typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
  if (r.status !== 200 || !isEnvelope) return `target ${baseUrl} answered HTTP ${r.status} without the Console envelope ({"data": [...]}) to GET /console/v1/release_pipelines: not the Console API, or not working`;
  return undefined;
}

/** The one line of a run that was cut short or left tests unchecked (exit 3). */
function cutShort(summary: ConformanceSummary, deadline: number): string {
  const s = summary.stop;
  const inconclusive = summary.tests.inconclusive ? `; ${summary.tests.inconclusive} test${summary.tests.inconclusive > 1 ? 's' : ''} inconclusive (transport)` : '';
  if (s?.cause === 'deadline') return `stopped: deadline of ${deadline} s passed after ${s.afterTests} of ${s.ofTests} tests${inconclusive}`;
  if (s) return `stopped: ${s.reason} after ${s.afterTests} of ${s.ofTests} tests`;
  return `inconclusive: ${summary.tests.inconclusive} of ${summary.tests.total} tests got no usable answer (transport; see the INCONCLUSIVE lines above and conformance.json "inconclusive")`;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  const strict = args.includes('--strict');
  // The deadline counts from the command's start, node's own start-up included.
  const t0 = Date.now() - process.uptime() * 1000;
  const d = args.indexOf('--deadline');
  let deadlineArg: string | undefined;
  if (d >= 0) {
    deadlineArg = args[d + 1];
    if (deadlineArg === undefined) fail3('--deadline needs a number of seconds');
    args.splice(d, 2);
  }
  const at = args.indexOf('--observations-baseline');
  const baseline = at >= 0 ? args[at + 1] : undefined;
  if (at >= 0 && (!baseline || !existsSync(baseline))) fail3(`--observations-baseline: no file ${JSON.stringify(baseline ?? '')}`);
  const passThrough = args.filter((a, i) => a !== '--strict' && (at < 0 || (i !== at && i !== at + 1)));
  const env = { ...process.env };
  if (baseline) env.CONSOLE_OBSERVATIONS_BASELINE = baseline;
  if (strict) env.CONSOLE_STRICT = '1';
  if (deadlineArg !== undefined) {
    try {
      env.CONSOLE_DEADLINE = String(seconds(deadlineArg, '--deadline', 0));
    } catch (err) {
      fail3((err as ConfigError).message);
    }
  }
  const config = loadConfigOr(fail3, env);
  const deadline = config.deadlineSeconds;
  const server = await referenceUnlessTarget(config, env).catch((err: Error) => fail3(err.message));
  if (server) console.log(`conformance: reference server at ${server.baseUrl}`);
  try {
    const unfit = await preflight(env.CONSOLE_BASE_URL!, env.CONSOLE_API_KEY!, Math.max(1000, Math.min(PREFLIGHT_TIMEOUT_MS, (deadline - (Date.now() - t0) / 1000) * 1000)));
    if (unfit) return say3(unfit);
    const report = join(config.reportsDir, 'conformance.json');
    rmSync(report, { force: true });
    // Playwright gets the deadline as a time (playwright.config.ts makes it its globalTimeout, less what
    // its stop and reports take); the child's own timeout is a backstop should it not stop.
    const deadlineAt = t0 + deadline * 1000;
    if (deadlineAt - Date.now() < 5000) return say3(`stopped: deadline of ${deadline} s passed before the suite started`);
    env.CONSOLE_DEADLINE_AT = String(Math.round(deadlineAt));
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'playwright.config.ts'), ...passThrough], { cwd: ROOT, env, stdio: 'inherit', timeout: Math.ceil(deadlineAt - Date.now() + 30_000), killSignal: 'SIGKILL' });
    if (!existsSync(report)) return say3(r.error ? `stopped: deadline of ${deadline} s passed and the suite did not stop by itself` : `the suite did not run to the end (playwright exit ${r.status}); see its output above`);
    const summary = (JSON.parse(readFileSync(report, 'utf8')) as ConformanceReport).summary;
    // A violation proven before a stop is still a fact: 1 outranks 3.
    if (summary.verdict === 'fail') return 1;
    if (summary.verdict === 'inconclusive') return say3(cutShort(summary, deadline));
    if (summary.tests.total === 0) return say3('no test ran (check --grep / --shard)');
    return 0;
  } finally {
    await server?.stop();
  }
}

main().then((code) => process.exit(code), (err) => fail3((err as Error).message));
