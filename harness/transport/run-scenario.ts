// One transport scenario, end to end: a fresh reference server, the misbehaving proxy in front of it,
// and the real command (`npm run conformance`, `npm run verify -- --skip-load`, or a load profile at
// smoke size, `npm run load:paging` / `load:mutation`) run through the proxy as a child process. What comes back is what a user would see: exit code, time, the reports
// written (and whether they say partial), the last line of stderr, and whether the key leaked into
// any report, the console output, or to the origin a redirect points to.
import { readConformance, readRunSummary, RUN_FILES } from '../../core/formats.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../core/config.ts';
import { startReference } from '../../core/reference.ts';
import { scan } from '../../core/scan.ts';
import { startProxy, type Scenario } from './proxy.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';

export interface ScenarioSpec {
  name: string;
  scenario: Scenario;
  /** Requests answered faithfully before the proxy misbehaves (1 = the preflight only). */
  after: number;
  command: 'conformance' | 'verify' | 'load:paging' | 'load:mutation';
  /** --deadline, seconds (load has none: the scenario's bound). */
  deadline: number;
  /** CONSOLE_REQUEST_TIMEOUT, seconds (default: the suite's own). */
  requestTimeout?: number;
  /** Extra arguments (e.g. a --grep for a short run). */
  args?: string[];
  /** Faults of the reference server behind the proxy (reference/faults.ts). */
  faults?: string[];
}

export interface ScenarioOutcome {
  spec: ScenarioSpec;
  exitCode: number | null;
  seconds: number;
  conformanceJson: boolean;
  junitXml: boolean;
  indexHtml: boolean;
  /** summary.partial, or undefined without conformance.json. */
  partial: boolean | undefined;
  verdict: string | undefined;
  inconclusive: number | undefined;
  /** Load: summary.json written, and the verdict it keeps (load/command/outcome.ts). */
  loadSummary: boolean;
  loadVerdict: { code: number; note: string } | undefined;
  lastLine: string;
  /** Lines the command printed (stdout and stderr). */
  lines: number;
  /** Files (reports or console output) holding any form of the key, and requests that took it to another origin. */
  keyIn: string[];
  keyElsewhere: number;
  /** What the command printed, stdout then stderr. */
  output: string;
  reports: string;
}

const clean = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));

export async function runScenario(spec: ScenarioSpec, keep = false): Promise<ScenarioOutcome> {
  const work = mkdtempSync(join(tmpdir(), `cc-transport-${spec.name.replace(/[^a-z0-9-]+/gi, '-')}-`));
  const reports = join(work, 'reports');
  const logs = join(work, 'logs');
  mkdirSync(logs, { recursive: true });
  const server = await startReference({ stderr: 'ignore', faults: spec.faults });
  const proxy = await startProxy({ upstream: server.baseUrl, scenario: spec.scenario, after: spec.after });
  try {
    const load = spec.command.startsWith('load:') ? spec.command.slice('load:'.length) : undefined;
    const script = spec.command === 'verify' ? 'scripts/verify.ts' : load ? 'load/command/load.ts' : 'contracts/conformance.ts';
    const args = load
      ? [load, ...(spec.args ?? [])]
      : [...(spec.command === 'verify' ? ['--skip-load'] : []), '--deadline', String(spec.deadline), ...(spec.args ?? [])];
    const env = {
      ...clean(),
      CONSOLE_BASE_URL: proxy.baseUrl,
      CONSOLE_API_KEY: server.apiKey,
      CONSOLE_REPORTS_DIR: reports,
      ...(spec.requestTimeout ? { CONSOLE_REQUEST_TIMEOUT: String(spec.requestTimeout) } : {}),
    };
    const t0 = Date.now();
    // Asynchronous on purpose: the proxy lives in this process and must keep answering.
    const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, script), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // Bounded: a command that outlives its deadline by a minute is stopped (and the row shows it).
    const guard = setTimeout(() => child.kill('SIGKILL'), (spec.deadline + 60) * 1000);
    const exitCode = await new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    clearTimeout(guard);
    const seconds = (Date.now() - t0) / 1000;
    writeFileSync(join(logs, 'stdout.txt'), stdout);
    writeFileSync(join(logs, 'stderr.txt'), stderr);
    const summary = readConformance(reports)?.summary;
    const loadSummary = load ? readRunSummary(join(reports, RUN_FILES.summary(load))) : undefined;
    const stderrLines = stderr.split('\n').filter((l) => l.trim() && !l.includes('npm warn'));
    return {
      spec,
      exitCode,
      seconds,
      conformanceJson: summary !== undefined,
      junitXml: existsSync(join(reports, 'junit.xml')),
      indexHtml: existsSync(join(reports, 'index.html')),
      partial: summary?.partial,
      verdict: summary?.verdict,
      inconclusive: summary?.tests?.inconclusive,
      loadSummary: loadSummary !== undefined,
      loadVerdict: loadSummary?.verdict,
      lastLine: stderrLines.at(-1) ?? '',
      lines: (stdout + stderr).split('\n').filter((l) => l.trim()).length,
      keyIn: scan([reports, logs], server.apiKey).found.map((f) => f.slice(work.length + 1)),
      keyElsewhere: proxy.stats.keyElsewhere,
      output: stdout + stderr,
      reports,
    };
  } finally {
    await proxy.stop();
    await server.stop();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}
