// The work of `npm run conformance`: a preflight that the target is the Console API, then the
// Playwright suite, and the exit code from the verdict in conformance.json. Exit codes: 0 pass; 1
// contract failure (a stated clause violated, or an inferred one under --strict), even when the run
// later stopped; 3 the run could not be carried out, or was cut short (deadline, transport failures:
// docs/transport.md), with one line and, where the suite ran, a partial report.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, loadConfig, seconds } from '../../core/config.ts';
import { EXIT } from '../../core/exit.ts';
import { redactText } from '../../core/keys.ts';
import { referenceUnlessTarget } from '../../core/reference.ts';
import { notRunJunit } from '../../contracts/support/junit.ts';
import type { ConformanceReport, ConformanceSummary } from '../../contracts/support/reporter.ts';

export interface ConformanceOptions {
  strict: boolean;
  /** --deadline, as given (checked here: a bad value is a ConfigError). */
  deadline: string | undefined;
  observationsBaseline: string | undefined;
  /** Everything else, for `playwright test` (--grep, --repeat-each, --shard ...). */
  playwrightArgs: string[];
}

/** The one line of exit 3, returned as the code so that the caller's `finally` still stops the reference server. */
function say3(reason: string): 3 {
  console.error(`conformance: ${reason}`);
  return EXIT.notCarriedOut;
}

/** The run could not start: the one line, and a junit.xml that says it (contracts/support/junit.ts). */
function notRun(reportsDir: string, reason: string, strict: boolean): 3 {
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(join(reportsDir, 'junit.xml'), notRunJunit(reason, strict));
  return say3(reason);
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
export async function preflight(baseUrl: string, apiKey: string, timeoutMs: number): Promise<string | undefined> {
  let r: Response;
  try {
    r = await fetch(`${baseUrl}/console/v1/release_pipelines?limit=1`, {
      headers: { 'SERVICE-API-KEY': apiKey },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
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
  if (r.status !== 200 || !isEnvelope)
    return `target ${baseUrl} answered HTTP ${r.status} without the Console envelope ({"data": [...]}) to GET /console/v1/release_pipelines: not the Console API, or not working`;
  return undefined;
}

/** The one line of a run that was cut short or left tests unchecked (exit 3). */
function cutShort(summary: ConformanceSummary, deadline: number): string {
  const s = summary.stop;
  const inconclusive = summary.tests.inconclusive
    ? `; ${summary.tests.inconclusive} test${summary.tests.inconclusive > 1 ? 's' : ''} inconclusive (transport)`
    : '';
  if (s?.cause === 'deadline') return `stopped: deadline of ${deadline} s passed after ${s.afterTests} of ${s.ofTests} tests${inconclusive}`;
  if (s) return `stopped: ${s.reason} after ${s.afterTests} of ${s.ofTests} tests`;
  return `inconclusive: ${summary.tests.inconclusive} of ${summary.tests.total} tests got no usable answer (transport; see the INCONCLUSIVE lines above and conformance.json "inconclusive")`;
}

/** The suite against the configured target, or a reference server started for it; resolves to the exit code. */
export async function runConformance(opts: ConformanceOptions): Promise<number> {
  // The deadline counts from the command's start, node's own start-up included.
  const t0 = Date.now() - process.uptime() * 1000;
  const env = { ...process.env };
  if (opts.observationsBaseline) env.CONSOLE_OBSERVATIONS_BASELINE = opts.observationsBaseline;
  if (opts.strict) env.CONSOLE_STRICT = '1';
  if (opts.deadline !== undefined) env.CONSOLE_DEADLINE = String(seconds(opts.deadline, '--deadline', 0));
  const config = loadConfig(env);
  const deadline = config.deadlineSeconds;
  const server = await referenceUnlessTarget(config, env);
  if (server) console.log(`conformance: reference server at ${server.baseUrl}`);
  try {
    const unfit = await preflight(
      env.CONSOLE_BASE_URL!,
      env.CONSOLE_API_KEY!,
      Math.max(1000, Math.min(PREFLIGHT_TIMEOUT_MS, (deadline - (Date.now() - t0) / 1000) * 1000)),
    );
    const report = join(config.reportsDir, 'conformance.json');
    // An earlier run's results must not pass for this run's, whatever happens next.
    for (const file of [report, join(config.reportsDir, 'junit.xml')]) rmSync(file, { force: true });
    if (unfit) return notRun(config.reportsDir, unfit, config.strict);
    // Playwright gets the deadline as a time (playwright.config.ts makes it its globalTimeout, less what
    // its stop and reports take); the child's own timeout is a backstop should it not stop.
    const deadlineAt = t0 + deadline * 1000;
    if (deadlineAt - Date.now() < 5000) return notRun(config.reportsDir, `stopped: deadline of ${deadline} s passed before the suite started`, config.strict);
    env.CONSOLE_DEADLINE_AT = String(Math.round(deadlineAt));
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'playwright.config.ts'), ...opts.playwrightArgs],
      { cwd: ROOT, env, stdio: 'inherit', timeout: Math.ceil(deadlineAt - Date.now() + 30_000), killSignal: 'SIGKILL' },
    );
    if (!existsSync(report))
      return say3(
        r.error
          ? `stopped: deadline of ${deadline} s passed and the suite did not stop by itself`
          : `the suite did not run to the end (playwright exit ${r.status}); see its output above`,
      );
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
