// The work of `npm run candidate`: the conformance suite against two targets, current and candidate,
// each read `reads` times in turn (current, candidate, current, candidate ...), then the sides compared
// (candidate/compare.ts). Exit codes: 1 a regression (or, with --freeze-open, a change of open
// behaviour); 3 a side could not be tested, one line naming it; else 0.
import { existsSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { runConformance } from '../contracts/conformance-run.ts';
import {
  ConfigError,
  ROOT,
  candidateKeysFromEnv,
  loadManifest,
  newListSeed,
  reportsDirFromEnv,
  requestTimeoutMsFromEnv,
  type Manifest,
} from '../core/config.ts';
import { EXIT, worst } from '../core/exit.ts';
import { readConformance, readExchangeLog, readObservationsFile, writeCandidate, type CandidateReport, type LoadScript, type Side } from '../core/formats.ts';
import { redactText } from '../core/keys.ts';
import { keepOwed, owedRestores } from '../core/ledger.ts';
import { PREFLIGHT_TIMEOUT_MS, preflight } from '../core/preflight.ts';
import { startReference, type ReferenceServer } from '../core/reference.ts';
import { pairedPlan } from '../load/command/plan.ts';
import { runPlan } from '../load/command/run-plan.ts';
import { changes, learnNoise, verdicts, withoutExplained, type Read } from './compare.ts';
import type { Aliases } from './diff.ts';
import { verdictScreen, writeCandidateJunit } from './report.ts';

export const SIDES: Side[] = ['current', 'candidate'];
const DEFAULT_MANIFEST = resolve(ROOT, 'fixtures/targets/reference.json');
const EXCHANGES_REPORTER = './candidate/exchanges-reporter.ts';
const SUITE_REPORTER = './contracts/support/reporter.ts';

export interface SideOptions {
  /** The target's base URL; none: a reference server started for the side. */
  url?: string;
  manifest?: string;
  /** For a reference started for the side (the self-test): its faults and legal variants. */
  faults?: string[];
  variants?: string[];
}

export interface CandidateOptions {
  current: SideOptions;
  candidate: SideOptions;
  /** --writes: the suite's writes reach each side (within its manifest); else read-only. */
  writes: boolean;
  strict: boolean;
  freezeOpen: boolean;
  /** Reads of each side (2: noise is what differs between them). */
  reads: number;
  /** Each read's deadline in seconds, as given (--deadline; default CONSOLE_DEADLINE or 600). */
  deadline?: string;
  /** --latency: the paging profile (with --writes the mutation profile too) sent to both sides, interleaved, after the contract comparison. */
  latency?: { profile: 'smoke' | 'baseline'; minEffect: number; seconds?: number };
  /** Suite options passed on (--grep ...). */
  playwrightArgs?: string[];
  /** Where to write (default CONSOLE_REPORTS_DIR or reports/). */
  reportsDir?: string;
  /** Progress lines (default stderr); the suite's own output goes to this process's stdout. */
  say?: (line: string) => void;
  /** The env the suites run in (default this process's). */
  env?: NodeJS.ProcessEnv;
}

/** One side of the comparison as its reads reach it (`server`: the reference started for it, when it was given no URL). */
export interface SideUnderTest {
  side: Side;
  baseUrl: string;
  apiKey: string;
  manifestPath: string;
  manifest: Manifest;
  server?: ReferenceServer;
}

/** Each manifest id named by its place (`gates[0]`), so that two sides' ids compare equal where their manifests put them. */
export function aliasesOf(a: Manifest, b: Manifest): Aliases {
  const map = new Map<string, string>();
  const add = (m: Manifest) => {
    m.gates.forEach((id, i) => map.set(id, `<gates[${i}]>`));
    m.experiments.forEach((id, i) => map.set(id, `<experiments[${i}]>`));
    m.triggers.forEach((t, i) => {
      map.set(t.id, `<triggers[${i}]>`);
      map.set(t.releasePipelineID, `<triggers[${i}].releasePipelineID>`);
      t.phaseIDs.forEach((p, j) => map.set(p, `<triggers[${i}].phaseIDs[${j}]>`));
    });
  };
  add(a);
  add(b);
  return (v) => map.get(v) ?? v;
}

/** The side ready to be read: its URL and key, or a reference server started for it; its manifest read. */
export async function prepareSide(side: Side, o: SideOptions, key: string | undefined): Promise<SideUnderTest> {
  const manifestPath = resolve(o.manifest ?? DEFAULT_MANIFEST);
  const manifest = loadManifest(manifestPath);
  if (o.url) {
    if (o.faults?.length || o.variants?.length)
      throw new ConfigError(`--${side}-fault and --${side}-variant are for a reference started for the side, not --${side} URL`);
    let url: URL;
    try {
      url = new URL(o.url);
    } catch {
      throw new ConfigError(`--${side} is not a URL: ${JSON.stringify(o.url)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`--${side} must be http or https, got ${url.protocol}`);
    const envName = side === 'current' ? 'CONSOLE_CURRENT_API_KEY' : 'CONSOLE_CANDIDATE_API_KEY';
    if (!key) throw new ConfigError(`${envName} must be set with --${side} URL`);
    return { side, baseUrl: o.url.replace(/\/+$/, ''), apiKey: key, manifestPath, manifest };
  }
  let server: ReferenceServer;
  try {
    server = await startReference({ faults: o.faults, variants: o.variants, stderr: 'ignore' });
  } catch (err) {
    throw new ConfigError(`${side}: cannot start the reference server: ${(err as Error).message}`);
  }
  return { side, baseUrl: server.baseUrl, apiKey: server.apiKey, manifestPath, manifest, server };
}

/** The list checks' seed of this candidate run, when none is given (CONSOLE_LIST_SEED). */
const LIST_SEED = String(newListSeed());

/** One read of one side: the suite, its reports in a folder of their own; the one line it ended with when it was not carried out. */
export async function readSide(t: SideUnderTest, n: number, o: CandidateOptions, dir: string): Promise<{ code: number; reports: string; line?: string }> {
  const reports = join(dir, 'candidate', `${t.side}-${n}`);
  // What a cut read still owes the side outlives the clearing: the suite gives it back before it starts.
  const owed = owedRestores(reports);
  rmSync(reports, { recursive: true, force: true });
  keepOwed(reports, owed);
  const env: NodeJS.ProcessEnv = {
    ...(o.env ?? process.env),
    CONSOLE_BASE_URL: t.baseUrl,
    CONSOLE_API_KEY: t.apiKey,
    CONSOLE_TARGET_MANIFEST: t.manifestPath,
    CONSOLE_REPORTS_DIR: reports,
    CONSOLE_FULL_EXCHANGES: '1',
  };
  // Every read of both sides draws the same pages across a list's depth: their answers pair request by request.
  env.CONSOLE_LIST_SEED = env.CONSOLE_LIST_SEED?.trim() || LIST_SEED;
  delete env.CONSOLE_FIXTURES;
  delete env.CONSOLE_OBSERVATIONS_BASELINE;
  delete env.CONSOLE_READ_ONLY;
  delete env.CONSOLE_STRICT;
  // runConformance says why it could not run in one `conformance: ...` line on stderr: kept to name the side.
  let last: string | undefined;
  const error = console.error;
  console.error = (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (text.startsWith('conformance: ')) last = text.slice('conformance: '.length);
    error(...args);
  };
  try {
    const code = await runConformance({
      strict: o.strict,
      readOnly: !o.writes,
      deadline: o.deadline,
      observationsBaseline: undefined,
      // Each read has the whole deadline: the command runs the suite several times.
      startedAt: Date.now(),
      playwrightArgs: ['--reporter', `dot,${SUITE_REPORTER},${EXCHANGES_REPORTER}`, ...(o.playwrightArgs ?? [])],
      env,
    });
    return { code, reports, line: last };
  } finally {
    console.error = error;
  }
}

export function loadRead(reports: string): Read {
  const conformance = readConformance(reports);
  const exchanges = readExchangeLog(reports);
  if (!conformance || !exchanges) throw new Error(`${reports}: the suite left no conformance.json or exchanges.json`);
  return { conformance, exchanges, observations: readObservationsFile(join(reports, 'observations.json')) ?? {} };
}

/** Fills `report` from both sides' reads; the exit code: 1 a regression (or a change under freezeOpen), else 0. */
export function judge(report: CandidateReport, reads: Record<Side, Read[]>, aliases: Aliases, freezeOpen: boolean): number {
  const stateful = { stateful: !report.options.readOnly };
  const noise = learnNoise(reads.current, undefined, stateful);
  learnNoise(reads.candidate, noise, stateful);
  const c = changes(reads.current[0], reads.candidate[0], noise, aliases);
  const v = verdicts(reads.current, reads.candidate);
  report.regressions = v.regressions;
  report.bothBroken = v.bothBroken;
  report.fixed = v.fixed;
  report.changes = [...v.newWarnings, ...withoutExplained(c.changes, v.regressions, aliases)];
  report.noise = { places: noise.keys.size, differencesIgnored: c.ignored, unstableTests: noise.unstableTests.size };
  report.paired = { exchanges: c.pairedExchanges, tests: c.pairedTests };
  report.verdict = report.regressions.length ? 'regression' : report.changes.length ? 'changed' : 'pass';
  return report.regressions.length || (freezeOpen && report.changes.length) ? EXIT.contract : EXIT.pass;
}

/** A report with nothing found yet: not carried out until judged. */
export function emptyReport(o: Pick<CandidateOptions, 'writes' | 'strict' | 'freezeOpen' | 'reads'>, started: number): CandidateReport {
  return {
    format: 'console-conformance.candidate/1',
    verdict: 'not carried out',
    exitCode: EXIT.notCarriedOut,
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    options: { readOnly: !o.writes, strict: o.strict, freezeOpen: o.freezeOpen, reads: o.reads },
    sides: [],
    regressions: [],
    changes: [],
    bothBroken: [],
    fixed: [],
    noise: { places: 0, differencesIgnored: 0, unstableTests: 0 },
    paired: { exchanges: 0, tests: 0 },
  };
}

export async function runCandidate(o: CandidateOptions): Promise<{ code: number; report: CandidateReport }> {
  const started = Date.now();
  const say = o.say ?? ((l: string) => console.error(l));
  const dir = resolve(o.reportsDir ?? reportsDirFromEnv(o.env ?? process.env));
  const keys = candidateKeysFromEnv(o.env ?? process.env);
  const sides: SideUnderTest[] = [];
  const report = emptyReport(o, started);
  const guard = (text: string) => sides.reduce((t, x) => redactText(t, x.apiKey), text);
  const finish = (code: number, reason?: string) => {
    report.exitCode = code;
    report.durationMs = Date.now() - started;
    if (reason) report.reason = reason;
    writeCandidate(dir, report, guard);
    writeCandidateJunit(dir, report, guard);
    console.log(guard(verdictScreen(report, relative(process.cwd(), join(dir, 'candidate.json')) || 'candidate.json')));
    if (reason) console.error(`candidate: ${reason}`);
    return { code, report };
  };
  rmSync(join(dir, 'candidate.json'), { force: true });
  try {
    for (const side of SIDES) {
      try {
        sides.push(await prepareSide(side, o[side], keys[side]));
      } catch (err) {
        if (err instanceof ConfigError) throw new ConfigError(err.message.startsWith(side) ? err.message : `${side}: ${err.message}`);
        throw err;
      }
      const t = sides.at(-1)!;
      report.sides.push({ side, target: t.server ? `reference ${t.baseUrl}` : t.baseUrl, manifest: relative(ROOT, t.manifestPath), reads: [] });
      say(
        `candidate: ${side} is ${t.server ? `a reference server at ${t.baseUrl}${[...(o[side].faults ?? []), ...(o[side].variants ?? [])].length ? ` with ${[...(o[side].faults ?? []), ...(o[side].variants ?? [])].join(', ')}` : ''}` : t.baseUrl}`,
      );
    }
    // Both sides answer before either is read: a side that cannot be tested stops the run in seconds.
    for (const t of sides) {
      const unfit = await preflight(t.baseUrl, t.apiKey, PREFLIGHT_TIMEOUT_MS);
      if (unfit) return finish(EXIT.notCarriedOut, `the ${t.side} (${t.baseUrl}) cannot be tested: ${unfit}`);
    }
    const reads: Record<Side, Read[]> = { current: [], candidate: [] };
    for (let n = 1; n <= o.reads; n++) {
      for (const t of sides) {
        say(`candidate: read ${n} of ${o.reads} of the ${t.side} (${t.baseUrl}), ${o.writes ? 'with writes' : 'read-only'}`);
        const r = await readSide(t, n, o, dir);
        const conformance = existsSync(join(r.reports, 'conformance.json')) ? readConformance(r.reports) : undefined;
        report.sides
          .find((s) => s.side === t.side)!
          .reads.push({ verdict: conformance?.summary.verdict ?? 'no report', exitCode: r.code, reports: relative(dir, r.reports) });
        if (r.code !== EXIT.pass && r.code !== EXIT.contract)
          return finish(EXIT.notCarriedOut, `the ${t.side} (${t.baseUrl}) cannot be tested: ${r.line ?? `the suite ended with exit ${r.code}`}`);
        reads[t.side].push(loadRead(r.reports));
      }
    }
    const code = judge(report, reads, aliasesOf(sides[0].manifest, sides[1].manifest), o.freezeOpen);
    if (!o.latency) return finish(code);
    // With --writes (each side's writes within its own manifest) the mutation profile is paired too.
    const scripts: LoadScript[] = o.writes ? ['paging', 'mutation'] : ['paging'];
    say(`candidate: latency: the ${scripts.join(' and ')} profile${scripts.length > 1 ? 's' : ''} (${o.latency.profile}) sent to both sides, interleaved`);
    const side = (t: SideUnderTest) => ({ baseUrl: t.baseUrl, apiKey: t.apiKey, manifestPath: t.manifestPath, manifest: t.manifest, external: !t.server });
    const { latency } = await runPlan(
      pairedPlan({
        scripts,
        profile: o.latency.profile,
        current: side(sides[0]),
        candidate: side(sides[1]),
        minEffect: o.latency.minEffect,
        seconds: o.latency.seconds,
        reportDir: join(dir, 'candidate', 'latency'),
        reportsRoot: dir,
        requestTimeoutMs: requestTimeoutMsFromEnv(o.env ?? process.env),
      }),
    );
    if (!latency) return finish(worst([code, EXIT.notCarriedOut]), 'latency: the load runner gave no side-by-side verdict');
    report.latency = latency;
    if (report.latency.verdict === 'not carried out') return finish(worst([code, EXIT.notCarriedOut]), `latency: ${report.latency.reason}`);
    return finish(worst([code, report.latency.verdict === 'regression' ? EXIT.regression : EXIT.pass]));
  } finally {
    for (const t of sides) await t.server?.stop();
  }
}
