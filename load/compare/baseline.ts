// Baselines of the load profiles: `updateBaseline` copies a run's figures into
// load/baselines/ (one file per script and profile, baselineFileFor below); `compareRun` sets a run (or
// the merged runs of several machines) against them, per endpoint, normalised by the calibration
// request timed in the same run (docs/load.md), and writes reports/load/compare.json.
// The command is load/command/baseline.ts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, ROOT, reportsDirFromEnv } from '../../core/config.ts';
import {
  CALIBRATION_ENDPOINT as CALIBRATION,
  LOAD_SCRIPTS,
  type CompareResult,
  type EndpointRow,
  type Figures,
  type ProfileResult,
  type RunSummary,
  type Tolerance,
  readRunSummary,
  writeRunSummary,
} from '../../core/formats.ts';
import { type Detection, detectFromHistograms } from './detect.ts';
import { mergeSummaries } from './merge.ts';
import { formatJson, samplesOf } from './run-samples.ts';
import type { RunSamples } from './samples.ts';
import { COMPARE_RULES, latencyRatio, type RuleId, type RuleInput, round, statisticalFigures } from './rules/index.ts';
import { targetMismatch } from './measured-against.ts';

export type { CompareResult, EndpointRow, Figures, ProfileResult, RunSummary, Tolerance } from '../../core/formats.ts';
// The merge of several runners lives in merge.ts; compare --merge and its callers found it here.
export { mergeSummaries } from './merge.ts';

export const DEFAULT_TOLERANCE: Tolerance = {
  p50: 2,
  p95: 2.5,
  p99: 3,
  minDeltaMs: 5,
  rps: 0.8,
  errorRate: 0.01,
  minP95Count: 20,
  minP99Count: 100,
  minEffect: 0.1,
  alpha: 0.01,
};

const BASELINES = join(ROOT, 'load/baselines');

/**
 * Where the baseline of a script and profile lives. A smoke baseline is `<script>.json` (what verify
 * and npm test compare with); another profile's is `<script>.<profile>.json`, so a nightly baseline
 * profile and the smoke one can both be kept. A `<script>.json` of that other profile (recorded before
 * baselines were kept per profile) is still found when no `<script>.<profile>.json` exists.
 */
export function baselineFileFor(baselinesDir: string, script: string, profile: string): string {
  const plain = join(baselinesDir, `${script}.json`);
  if (profile === 'smoke') return plain;
  const own = join(baselinesDir, `${script}.${profile}.json`);
  if (existsSync(own) || !existsSync(plain)) return own;
  try {
    return readRunSummary(plain)?.profile === profile ? plain : own;
  } catch {
    return own;
  }
}

function readSummary(file: string): RunSummary {
  let s: RunSummary | undefined;
  try {
    s = readRunSummary(file);
  } catch (err) {
    throw new ConfigError((err as Error).message.split('\n')[0]);
  }
  if (s === undefined) throw new ConfigError(`cannot read ${file}: no such file`);
  if (typeof s !== 'object' || s === null || typeof s.script !== 'string' || typeof s.endpoints !== 'object')
    throw new ConfigError(`${file} is not a load summary (written by load/lib/summary.ts)`);
  return s;
}

/** The request-duration histograms a summary keeps (load/compare/run-samples.ts), null when none. */
function samplesIn(summary: RunSummary, file: string): RunSamples | null {
  try {
    return samplesOf(summary, file);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** One endpoint through the rules (load/compare/rules/): which judged its latency, what each found. */
function judgeEndpoint(input: RuleInput): Pick<EndpointRow, 'rule' | 'regression' | 'reason' | 'flaggedBy'> {
  let rule: EndpointRow['rule'];
  const reasons: string[] = [];
  const flaggedBy = new Set<RuleId>();
  for (const r of COMPARE_RULES) {
    if (r.latency && rule !== undefined) continue;
    if (!r.applies(input)) continue;
    if (r.latency) rule = r.id;
    const found = r.judge(input);
    if (found.length) flaggedBy.add(r.id);
    reasons.push(...found);
  }
  return { rule, regression: reasons.length > 0, reason: reasons.join('; '), flaggedBy: [...flaggedBy] };
}

/** Compares one run's summary with a baseline (null: none), normalised by each one's calibration. */
export function compareSummary(run: RunSummary, baseline: RunSummary | null, baselineFile: string, tol: Tolerance = DEFAULT_TOLERANCE): ProfileResult {
  const cal = run.endpoints[CALIBRATION];
  const baseCal = baseline?.endpoints[CALIBRATION] ?? null;
  let verdictReason = '';
  let usable = baseline !== null;
  if (!baseline) verdictReason = `no baseline at ${baselineFile}: run npm run baseline:update`;
  else if (baseline.profile !== run.profile) {
    usable = false;
    verdictReason = `the baseline is of profile ${baseline.profile}, the run of ${run.profile}: not comparable`;
  } else if (run.shape) {
    // Its phases were given as data (--config, --overrides): another load than the profile's baseline measured.
    usable = false;
    verdictReason = `the run was shaped by ${run.shape.source}, the baseline by the ${baseline.profile} profile: not comparable`;
  } else if (targetMismatch(run, baseline)) {
    usable = false;
    verdictReason = targetMismatch(run, baseline)!;
  } else if ((run.runners ?? 1) !== (baseline.runners ?? 1)) {
    // Measured (docs/load.md, "One runner against 2 and 4"): the same test split among more load
    // processes times its requests differently, the ruler included, so the calibration does not carry over.
    usable = false;
    const n = (k: number) => `${k} runner${k === 1 ? '' : 's'}`;
    verdictReason = `the baseline was recorded with ${n(baseline.runners ?? 1)}, this run with ${n(run.runners ?? 1)}: record a baseline with the same --runners`;
  } else if (!cal || !baseCal || cal.p50 <= 0 || baseCal.p50 <= 0) {
    usable = false;
    verdictReason = 'the calibration endpoint is missing from the run or the baseline';
  }
  // How much slower this machine answered the trivial request than the baseline's machine did.
  const scale = usable ? cal.p50 / baseCal!.p50 : null;
  // The statistical rule (load/compare/detect.ts) judges the latency of every endpoint it can decide
  // when both runs keep their request durations with the calibration request's; the ratio rule
  // judges the rest (a smoke run's handful of requests), and every endpoint when samples are missing.
  // Only the endpoints the summaries list (and the calibration) are tested: setup's requests are not load.
  const judged = (x: RunSamples | null): RunSamples | null =>
    x && { ...x, endpoints: Object.fromEntries(Object.entries(x.endpoints).filter(([k]) => k in run.endpoints)) };
  const runSamples = usable ? judged(samplesIn(run, 'the run')) : null;
  const baseSamples = usable ? judged(samplesIn(baseline!, baselineFile)) : null;
  const withCalibration = (s: RunSamples | null) => (s?.endpoints[CALIBRATION]?.counts.length ?? 0) > 0;
  const detection: Detection | null =
    withCalibration(runSamples) && withCalibration(baseSamples)
      ? detectFromHistograms(runSamples!, baseSamples!, { minEffect: tol.minEffect, alpha: tol.alpha, calibration: CALIBRATION })
      : null;
  const latencyRule = !usable
    ? undefined
    : detection
      ? `statistical (one-sided Mann-Whitney at alpha ${tol.alpha ?? 0.01} over the endpoints, and the median ratio's 95% interval above 1 + ${round((tol.minEffect ?? 0.1) * 100, 1)}%) where the counts allow, the ratio tolerances elsewhere`
      : `ratio tolerances: ${runSamples ? 'the baseline' : 'the run'} keeps no request samples with the calibration request's`;
  const rows: EndpointRow[] = [];
  for (const name of Object.keys(run.endpoints).sort()) {
    if (name === CALIBRATION) continue;
    const e = run.endpoints[name];
    const b = usable ? baseline!.endpoints[name] : undefined;
    const row: EndpointRow = {
      endpoint: name,
      p50: round(e.p50),
      p95: round(e.p95),
      p99: round(e.p99),
      rps: round(e.rps),
      errorRate: round(e.errorRate, 5),
      count: e.count,
      baseline: b ? { p50: round(b.p50), p95: round(b.p95), p99: round(b.p99), rps: round(b.rps), errorRate: round(b.errorRate, 5), count: b.count } : null,
      ratio: null,
      regression: false,
      reason: '',
    };
    if (!b || scale === null) {
      row.reason = usable ? 'no such endpoint in the baseline' : verdictReason;
      rows.push(row);
      continue;
    }
    const stat = detection?.endpoints.find((d) => d.endpoint === name);
    const input: RuleInput = { run: e, baseline: b, scale, tolerance: tol, detection: stat };
    row.ratio = {
      p50: round(latencyRatio(input, 'p50')),
      p95: round(latencyRatio(input, 'p95')),
      p99: round(latencyRatio(input, 'p99')),
      rps: round(b.rps > 0 ? e.rps / b.rps : 1),
    };
    if (stat) row.statistical = statisticalFigures(stat);
    Object.assign(row, judgeEndpoint(input));
    rows.push(row);
  }
  const regression = rows.some((r) => r.regression);
  return {
    script: run.script,
    profile: run.profile,
    baselineFile,
    baselineProfile: baseline?.profile ?? null,
    verdict: !usable ? 'no-baseline' : regression ? 'regression' : 'pass',
    reason: verdictReason,
    calibration: {
      p50: round(cal?.p50 ?? 0),
      p95: round(cal?.p95 ?? 0),
      p99: round(cal?.p99 ?? 0),
      rps: round(cal?.rps ?? 0),
      errorRate: round(cal?.errorRate ?? 0, 5),
      baseline: baseCal,
      scale: scale === null ? null : round(scale),
    },
    ...(latencyRule ? { latencyRule } : {}),
    endpoints: rows,
  };
}

/**
 * Whether a regressed profile should be run again before it is believed. Yes when anything but the
 * statistical rule found it: the tolerances judge a smoke run's handful of requests with no
 * false-alarm control, and on a shared machine one short run can be slowed by a neighbour
 * (calibration corrects the machine's speed, not a burst). No when the statistical rule alone found
 * it: its false-alarm rate is bounded by design and was measured (no unchanged baseline-profile run
 * of twenty flagged, docs/load.md "Power of the compare"), and a second run would cost a minute
 * and lose power near the minimum effect.
 */
export function needsConfirmation(p: ProfileResult): boolean {
  return p.endpoints.some((e) => e.regression && (e.flaggedBy ?? ['ratio']).some((by) => by !== 'statistical'));
}

export interface CompareOptions {
  scripts?: string[];
  reportsDir?: string;
  baselinesDir?: string;
  merge?: string[];
  tolerance?: Tolerance;
  out?: string;
}

/** Compares the last runs (or the merged files) with the baselines; writes reports/load/compare.json. */
export function compareRun(o: CompareOptions = {}): CompareResult {
  const reportsDir = o.reportsDir ?? reportsDirFromEnv();
  const baselinesDir = o.baselinesDir ?? BASELINES;
  const tol = o.tolerance ?? DEFAULT_TOLERANCE;
  let runs: RunSummary[];
  if (o.merge?.length) {
    const byScript = new Map<string, RunSummary[]>();
    for (const f of o.merge) {
      const s = readSummary(resolve(f));
      byScript.set(s.script, [...(byScript.get(s.script) ?? []), s]);
    }
    runs = [...byScript.values()].map(mergeSummaries);
  } else {
    const scripts = o.scripts ?? [...LOAD_SCRIPTS];
    runs = scripts
      .map((s) => join(reportsDir, 'load', s, 'summary.json'))
      .filter((f) => existsSync(f))
      .map(readSummary);
    if (runs.length === 0) throw new ConfigError(`no load run to compare under ${join(reportsDir, 'load')}: run npm run load:smoke first`);
  }
  const profiles: Record<string, ProfileResult> = {};
  for (const run of runs) {
    const file = baselineFileFor(baselinesDir, run.script, run.profile);
    profiles[run.script] = compareSummary(run, existsSync(file) ? readSummary(file) : null, file, tol);
  }
  const all = Object.values(profiles);
  const verdict = all.some((p) => p.verdict === 'regression') ? 'regression' : all.some((p) => p.verdict === 'pass') ? 'pass' : 'no-baseline';
  const result: CompareResult = { verdict, tolerance: tol, profiles };
  const out = o.out ?? join(reportsDir, 'load', 'compare.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  return result;
}

export function printCompare(r: CompareResult): void {
  for (const p of Object.values(r.profiles)) {
    console.log(
      `compare ${p.script} (${p.profile}): ${p.verdict}${p.reason ? ` - ${p.reason}` : ''}${p.calibration.scale !== null ? ` (calibration: this run ${p.calibration.scale}x the baseline's)` : ''}`,
    );
    if (p.latencyRule) {
      const judged = (rule: string) => p.endpoints.filter((e) => e.rule === rule).length;
      console.log(`  latency judged by ${p.latencyRule} [statistical: ${judged('statistical')} endpoints, ratio: ${judged('ratio')}]`);
    }
    for (const e of p.endpoints.filter((x) => x.regression)) console.log(`  REGRESSION ${e.endpoint}: ${e.reason}`);
  }
  console.log(`compare verdict: ${r.verdict}`);
}

/** Writes the baseline of the run's script and profile (baselineFileFor) from a run's summary: the figures, the request-duration histograms when the run kept them, and where they came from. */
export function updateBaseline(script: string, reportsDir = reportsDirFromEnv(), baselinesDir = BASELINES, keepSamples = true): string {
  const run = readSummary(join(reportsDir, 'load', script, 'summary.json'));
  // A baseline is what the profile's own load measures: not another shape's, nor a load that fell short.
  if (run.shape) throw new ConfigError(`the last ${script} run was shaped by ${run.shape.source}: a baseline is the ${run.profile} profile's own shape`);
  if (run.delivery && !run.delivery.ok) throw new ConfigError(`the last ${script} run did not deliver its load (${run.delivery.note}): it is no baseline`);
  const baseline = {
    format: run.format,
    script: run.script,
    profile: run.profile,
    durationMs: run.durationMs,
    recordedAt: run.finishedAt ?? new Date().toISOString(),
    machine: { cpus: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
    ...(run.target ? { target: run.target } : {}),
    ...(run.runners ? { runners: run.runners } : {}),
    // The load engine that measured it (absent in baselines recorded before Artillery: k6 measured those).
    ...(run.engine ? { engine: run.engine } : {}),
    endpoints: run.endpoints,
    ...(run.samples && keepSamples ? { samples: samplesIn(run, 'the run') } : {}),
  };
  mkdirSync(baselinesDir, { recursive: true });
  const file = run.profile === 'smoke' ? join(baselinesDir, `${script}.json`) : join(baselinesDir, `${script}.${run.profile}.json`);
  writeRunSummary(file, baseline);
  return file;
}
