// What a mutation run wrote to a target, per resource, as typed records: the workers record them
// beside their metrics (load/lib/runtime.ts, `wrote`), the run merges them, summary.json keeps the
// current side's (`writes`), and load/command/prepare.ts turns them into reports/ledger.json.
import type { LedgerWrite, LoadWrites, Side } from '../../core/formats.ts';

export type { LoadWrites } from '../../core/formats.ts';

/** The writes counted per resource id (a gate, an experiment, a trigger). */
export type PerResource = 'ruleWrites' | 'rulesAdded' | 'gateToggles' | 'overridePatches' | 'phasesSkipped' | 'unpaused';

export const emptyWrites = (): LoadWrites => ({
  ruleWrites: {},
  rulesAdded: {},
  gateRules: {},
  gateToggles: {},
  overridePatches: {},
  phasesSkipped: {},
  unpaused: {},
  metricsCreated: 0,
  metricsUpdated: 0,
});

export const PER_RESOURCE: PerResource[] = ['ruleWrites', 'rulesAdded', 'gateToggles', 'overridePatches', 'phasesSkipped', 'unpaused'];

/** The writes `records` holds for `side`, made empty there when it has none. */
export function sideWrites(records: { writes?: Partial<Record<Side, LoadWrites>> }, side: Side): LoadWrites {
  const all = records.writes ?? {};
  const w = all[side] ?? emptyWrites();
  all[side] = w;
  records.writes = all;
  return w;
}

/** Adds `part` into `into`: counts add; the rules a gate held are the largest seen (workers' last answers are not ordered in time). */
export function addWrites(into: LoadWrites, part: LoadWrites): LoadWrites {
  for (const what of PER_RESOURCE) for (const [id, n] of Object.entries(part[what])) into[what][id] = (into[what][id] ?? 0) + n;
  for (const [gate, n] of Object.entries(part.gateRules)) into.gateRules[gate] = Math.max(into.gateRules[gate] ?? 0, n);
  into.metricsCreated += part.metricsCreated;
  into.metricsUpdated += part.metricsUpdated;
  return into;
}

/**
 * Summaries written before the writes were typed kept them as always-passing thresholds' figures,
 * `ledger_<what>{<kind>:<id>}` to a count (`ledger_gate_rules`: rules held); read here so that they still merge.
 */
export function writesFromFigures(figures: Record<string, number>): LoadWrites {
  const w = emptyWrites();
  const names: Record<string, PerResource | 'gateRules'> = {
    ledger_rule_writes: 'ruleWrites',
    ledger_rules_added: 'rulesAdded',
    ledger_gate_rules: 'gateRules',
    ledger_gate_toggles: 'gateToggles',
    ledger_override_patches: 'overridePatches',
    ledger_phases_skipped: 'phasesSkipped',
    ledger_unpaused: 'unpaused',
  };
  for (const [key, n] of Object.entries(figures)) {
    if (key === 'ledger_metrics_created') w.metricsCreated += n;
    else if (key === 'ledger_metrics_updated') w.metricsUpdated += n;
    const m = /^(ledger_\w+)\{\w+:(.+)\}$/.exec(key);
    const what = m ? names[m[1]] : undefined;
    if (m && what && n > 0) w[what][m[2]] = n;
  }
  return w;
}

/** A summary's writes: `writes`, or the figures of one written before they were typed (`ledger`). */
export function summaryWrites(s: { writes?: LoadWrites; ledger?: Record<string, number> }): LoadWrites | undefined {
  return s.writes ?? (s.ledger ? writesFromFigures(s.ledger) : undefined);
}

/** The entries of reports/ledger.json for `w`; metrics are named by the manifest's prefix (the run creates its own). */
export function ledgerWrites(w: LoadWrites, metricPrefix: string): LedgerWrite[] {
  const out: LedgerWrite[] = [];
  const each = (what: PerResource) => Object.entries(w[what]).filter(([, n]) => n > 0);
  for (const [gate, n] of each('ruleWrites')) {
    const added = w.rulesAdded[gate] ?? 0;
    out.push({
      operation: 'addGateRules',
      resource: `gates/${gate}`,
      change: `added ${added} rules in ${n} requests`,
      count: n,
      undo: added ? 'cannot be undone' : 'nothing to undo',
      added,
    });
  }
  for (const [gate, n] of each('gateToggles'))
    out.push({ operation: 'disableGate', resource: `gates/${gate}`, change: 'disabled and enabled in turn', count: n, undo: 'not restored' });
  for (const [exp, n] of each('overridePatches'))
    out.push({ operation: 'patchExperimentOverrides', resource: `experiments/${exp}`, change: 'patched overrides', count: n, undo: 'not restored' });
  for (const [trigger, n] of each('phasesSkipped'))
    out.push({ operation: 'skipTriggerPhase', resource: `release_pipeline_triggers/${trigger}`, change: 'skipped phases', count: n, undo: 'cannot be undone' });
  for (const [trigger, n] of each('unpaused'))
    out.push({ operation: 'unpauseTrigger', resource: `release_pipeline_triggers/${trigger}`, change: 'unpaused', count: n, undo: 'cannot be undone' });
  if (w.metricsCreated)
    out.push({ operation: 'createMetric', resource: `metrics/${metricPrefix}*`, change: 'created', count: w.metricsCreated, undo: 'cannot be undone' });
  if (w.metricsUpdated)
    out.push({
      operation: 'updateMetric',
      resource: `metrics/${metricPrefix}*`,
      change: 'updated (the metrics this run created)',
      count: w.metricsUpdated,
      undo: 'cannot be undone',
    });
  return out;
}
