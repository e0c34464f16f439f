// The verdict screen verify prints last: a line per stage, the clause matrix and coverage, the load
// compare, the target's nights left, the trends of the history, where the report is and the verdict.
import { type Level, STATUSES, statusCount, type VerifyRun } from '../../../core/formats.ts';
import type { ConformanceSummary } from '../../../contracts/support/reporter.ts';
import type { CompareResult } from '../../../load/compare/baseline.ts';
import type { ReportInputs } from '../../../report/inputs.ts';
import { describeChange, trendsOf } from '../../../report/trend.ts';
import type { ManifestCheck } from '../../../manifest-check/check.ts';
import { shortPath } from './run.ts';

const LEVEL_NAMES: Level[] = ['stated', 'inferred', 'open'];

export function printVerdict(
  run: VerifyRun,
  conf: ConformanceSummary | undefined,
  compare: CompareResult | undefined,
  page: string | undefined,
  inputs: ReportInputs | undefined,
  check?: ManifestCheck,
): void {
  const word = run.exitCode === 3 && conf?.verdict === 'incomplete' ? 'INCOMPLETE' : (['PASS', 'FAIL', 'REGRESSION', 'NOT RUN'][run.exitCode] ?? 'NOT RUN');
  const out = ['', '================================ verdict ================================'];
  for (const s of run.stages) out.push(`${s.status.toUpperCase().padEnd(10)} ${s.name.padEnd(12)} ${`${s.seconds.toFixed(1)} s`.padStart(7)}  ${s.detail}`);
  if (conf) {
    const st = STATUSES.filter((s) => LEVEL_NAMES.some((l) => statusCount(conf.byLevel[l], s) > 0) || ['pass', 'fail', 'warn'].includes(s));
    out.push('', `clauses   ${'level'.padEnd(9)}${'total'.padStart(6)}${st.map((s) => s.padStart(13)).join('')}`);
    for (const l of LEVEL_NAMES) {
      const row = conf.byLevel[l];
      out.push(
        `          ${l.padEnd(9)}${String(STATUSES.reduce((n, s) => n + statusCount(row, s), 0)).padStart(6)}${st.map((s) => String(statusCount(row, s)).padStart(13)).join('')}`,
      );
    }
    const cov = conf.coverage;
    if (cov)
      out.push(
        `coverage  ${cov.checked} of ${cov.total} stated clauses checked${cov.unverifiable ? `, ${cov.unverifiable} not verifiable on this target` : ''}${cov.unreached ? `, ${cov.unreached} not reached (their tests stopped at a failure)` : ''}${cov.waived ? `, ${cov.waived} waived` : ''}${cov.excluded ? `, ${cov.excluded} excluded${conf.readOnly ? ' (read-only: they need a write)' : ''}` : ''}`,
      );
    for (const g of conf.incomplete ?? [])
      out.push(`          INCOMPLETE ${g.clauses.length} stated clause${g.clauses.length > 1 ? 's' : ''} unchecked: ${g.reason}`);
    if (conf.drift) out.push(`          drift against the previous run: ${conf.drift} (see the report)`);
  }
  if (compare) {
    out.push('');
    for (const p of Object.values(compare.profiles)) {
      const withBase = p.endpoints.filter((e) => e.ratio);
      const slowest = withBase.slice().sort((a, b) => b.ratio!.p95 - a.ratio!.p95)[0];
      const scale = p.calibration.scale !== null ? `calibration ${p.calibration.scale}x` : p.reason;
      const few =
        slowest && Math.min(slowest.count, slowest.baseline?.count ?? 0) < compare.tolerance.minP95Count ? ` (${slowest.count} samples: p95 not judged)` : '';
      out.push(
        `load      ${p.script.padEnd(9)} ${p.verdict.padEnd(12)} ${scale}${slowest ? `; slowest vs baseline: ${slowest.endpoint} p95 ${slowest.p95} ms, ${slowest.ratio!.p95}x expected${few}` : ''}`,
      );
      for (const e of p.endpoints.filter((x) => x.regression)) out.push(`          REGRESSION ${e.endpoint}: ${e.reason}`);
    }
  }
  if (check) {
    out.push(
      '',
      `target    ${check.nightsLeft === null ? 'the triggers are not consumed' : `the manifest lasts about ${check.nightsLeft} more night${check.nightsLeft === 1 ? '' : 's'}`} (${check.consumption.phasesPerNight} trigger phases a night, ${check.consumption.source === 'history' ? `measured over ${check.consumption.runs} runs` : 'by design'})`,
    );
    for (const w of check.warnings) out.push(`          WARNING ${w}`);
  }
  out.push(...trendLines(inputs));
  out.push('', `report    ${page ? shortPath(page) : '(not written: no conformance results)'}`);
  out.push(`verdict   ${word} (exit ${run.exitCode}) in ${(run.durationMs / 1000).toFixed(1)} s`);
  console.log(out.join('\n'));
}

/** The verdict's trend lines: for each series that shifted, the change that started its present level. */
function trendLines(inputs: ReportInputs | undefined): string[] {
  if (!inputs || inputs.history.error || inputs.history.runs.length === 0) return [];
  const trends = trendsOf(inputs.history.runs);
  const shifted = [trends.passRate, trends.coverage, ...trends.latency].filter((t) => t.changes.length);
  const head = `trend     ${trends.runs} run${trends.runs === 1 ? '' : 's'} in the history against this target: ${shifted.length ? `${shifted.length} shifted (see the report)` : 'no shift'}`;
  return ['', head, ...shifted.map((t) => `          ${describeChange(t, t.changes.at(-1)!)}`)];
}
