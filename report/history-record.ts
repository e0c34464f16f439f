// What verify adds to the run history (core/history.ts) about the run it just wrote to reports/:
// read from the same files the report page reads (verify.json, conformance.json, load/), so the
// history holds what the page showed.
import { endpointRows, historyTarget, type HistoryRun } from '../core/history.ts';

export { histogramMedian, loadHistoryRun } from '../core/history.ts';
import type { ReportInputs } from './inputs.ts';

/** The run in `inputs` as a history row; undefined when verify.json is missing (nothing says what ran). */
export function historyRunOf(inputs: ReportInputs): HistoryRun | undefined {
  const v = inputs.verify;
  if (!v) return undefined;
  const summary = inputs.conformance?.summary;
  const endpoints = endpointRows(inputs.load.map((run) => ({ ...run, scale: inputs.compare?.profiles[run.script]?.calibration.scale ?? null })));
  return {
    startedAt: v.startedAt,
    target: historyTarget(v.target, v.manifest),
    version: v.versions['console-conformance'] ?? null,
    exitCode: v.exitCode,
    verdict: summary?.verdict ?? null,
    strict: v.options.strict,
    profile: v.options.skipLoad ? null : v.options.profile,
    partial: Boolean(v.options.grep) || Boolean(summary?.partial),
    clauses: summary?.byLevel ?? null,
    coverage: summary?.coverage ?? null,
    footprint: inputs.ledger ? { totals: inputs.ledger.totals, state: inputs.ledger.state } : null,
    endpoints,
  };
}
