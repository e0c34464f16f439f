// The writes a mutation run records as typed records: kept per side apart from the metrics and
// thresholds, merged across workers (the rules a gate held: the largest seen), carried through
// Artillery's counters for cloud runs, turned into reports/ledger.json's entries, and read from
// summaries written before they were typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromCounters, toCounters } from '../artillery/counters.ts';
import { mergeRecords, newRecords, takeRecords, gateHeld, wrote, wroteMetric } from './runtime.ts';
import { summaryData } from './summary-data.ts';
import { ledgerWrites, summaryWrites, writesFromFigures } from './writes.ts';

/** One worker's arrival: rules added to gate g twice on the current, toggled on the candidate under its own id. */
function worker(held: number) {
  takeRecords();
  wrote('current', 'ruleWrites', 'g');
  wrote('current', 'rulesAdded', 'g', 3);
  gateHeld('current', 'g', held);
  wrote('current', 'ruleWrites', 'g');
  wroteMetric('current', 'metricsCreated');
  wrote('candidate', 'gateToggles', 'g-theirs');
  wrote('current', 'phasesSkipped', 'trg 1');
  return takeRecords();
}

test('workers record writes per side; merged, counts add and the rules a gate held are the largest seen', () => {
  const all = mergeRecords(mergeRecords(newRecords(), worker(7)), worker(5));
  assert.deepEqual(all.writes?.current?.ruleWrites, { g: 4 });
  assert.deepEqual(all.writes?.current?.rulesAdded, { g: 6 });
  assert.deepEqual(all.writes?.current?.gateRules, { g: 7 });
  assert.equal(all.writes?.current?.metricsCreated, 2);
  assert.deepEqual(all.writes?.current?.gateToggles, {});
  assert.deepEqual(all.writes?.candidate?.gateToggles, { 'g-theirs': 2 });
  // Nothing of the writes is a metric or a threshold any more.
  assert.deepEqual(Object.keys(all.endpoints), []);
  assert.deepEqual(Object.keys(all.counters), []);
  assert.deepEqual(
    Object.keys(summaryData(all, {}, 1000).metrics).filter((name) => name.includes('ledger')),
    [],
  );
});

test('writes through Artillery counters and back: counts exact, ids with spaces kept, the rules held left out', () => {
  const one = worker(7);
  const back = fromCounters(Object.fromEntries(toCounters(one)));
  assert.deepEqual(back.writes?.current, { ...one.writes?.current, gateRules: {} });
  assert.deepEqual(back.writes?.candidate, one.writes?.candidate);
});

test('the ledger entries of a run: one per resource and operation, metrics under the manifest prefix', () => {
  const w = worker(7).writes?.current;
  assert.ok(w);
  assert.deepEqual(ledgerWrites(w, 'cc_'), [
    { operation: 'addGateRules', resource: 'gates/g', change: 'added 3 rules in 2 requests', count: 2, undo: 'cannot be undone', added: 3 },
    { operation: 'skipTriggerPhase', resource: 'release_pipeline_triggers/trg 1', change: 'skipped phases', count: 1, undo: 'cannot be undone' },
    { operation: 'createMetric', resource: 'metrics/cc_*', change: 'created', count: 1, undo: 'cannot be undone' },
  ]);
  assert.deepEqual(ledgerWrites({ ...w, ruleWrites: { g: 1 }, rulesAdded: {} }, 'cc_')[0].undo, 'nothing to undo');
});

test('a summary written before the writes were typed (ledger_* figures) still reads, and a typed one wins', () => {
  const old = {
    'ledger_rule_writes{gate:g}': 2,
    'ledger_rules_added{gate:g}': 3,
    'ledger_gate_rules{gate:g}': 7,
    'ledger_gate_toggles{gate:h}': 0,
    'ledger_phases_skipped{trigger:trg 1}': 1,
    ledger_metrics_created: 1,
    ledger_metrics_updated: 0,
  };
  const w = writesFromFigures(old);
  assert.deepEqual(w.ruleWrites, { g: 2 });
  assert.deepEqual(w.gateRules, { g: 7 });
  assert.deepEqual(w.gateToggles, {});
  assert.deepEqual(ledgerWrites(w, 'cc_'), ledgerWrites(worker(7).writes?.current ?? w, 'cc_'));
  assert.deepEqual(summaryWrites({ ledger: old }), w);
  const typed = { ...w, metricsUpdated: 4 };
  assert.equal(summaryWrites({ writes: typed, ledger: old }), typed);
  assert.equal(summaryWrites({}), undefined);
});
