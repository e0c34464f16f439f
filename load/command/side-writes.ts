// The snapshot, restore and ledger of what the mutation profile writes to each side given by URL, for
// every run of the load runner (load/command/run-plan.ts): each side snapshotted before the run (what an
// earlier run cut short still owes it given back first), and afterwards restored as the snapshot found
// it and ledgered with the writes the run recorded (load/lib/writes.ts); a pair's sides each on their own.
import { join, relative } from 'node:path';
import { ConfigError, type Manifest, ROOT } from '../../core/config.ts';
import type { LedgerWrite, Side, ManifestState } from '../../core/formats.ts';
import { addLedgerPart, owe, settleOwed, tally } from '../../core/ledger.ts';
import { type Connection, finishedLine, finishOwed, restore, restoreAfterCut, takeSnapshot } from '../../core/restore.ts';
import type { Records } from '../lib/runtime.ts';
import type { RunManifest } from '../../core/manifest.ts';
import type { SidePlan } from '../lib/sides.ts';
import { emptyWrites, ledgerWrites } from '../lib/writes.ts';
import type { KeyedSide } from './prepare.ts';

/** A side as the writes see it: where it is, its key and manifest. */
type SideOf = Pick<KeyedSide, 'baseUrl' | 'apiKey' | 'manifestPath' | 'manifest'>;

/** One side whose writes are snapshotted before the mutation profile and written back after it, with its ledger in `reportsDir`. */
export type WriteSide = SideOf & { side: Side; reportsDir: string; requestTimeoutMs: number };

/** The side's manifest narrowed to what a pair's plan pairs: what the snapshot, the restore and the ledger cover. */
const narrowed = (m: Manifest, p: RunManifest): Manifest => ({
  ...m,
  gates: p.gates,
  experiments: p.experiments,
  overridesOwned: p.experiments,
  triggers: p.triggers,
});

/** What withSnapshots writes back: the sides, who wrote (the ledger's `by`), each side's label in lines, the root `ledgers` are relative to. */
export interface Writes {
  sides: WriteSide[];
  by: string;
  label: (s: Side) => string;
  reportsRoot: string;
  /** Whether the run was cut short (its records then miss the writes in flight). */
  cut?: () => boolean;
}

/** A pair's writes: its sides given by URL, each ledgered in `<reportDir>/<side>/`, its manifest narrowed to the plan. */
export function pairWrites(
  o: Record<Side, SideOf & { external: boolean }> & { reportDir: string; reportsRoot: string; requestTimeoutMs: number },
  plan: SidePlan,
): Writes {
  const sides = (['current', 'candidate'] as const)
    .filter((s) => o[s].external)
    .map(
      (s): WriteSide => ({
        ...o[s],
        side: s,
        manifest: narrowed(o[s].manifest, plan[s]),
        reportsDir: join(o.reportDir, s),
        requestTimeoutMs: o.requestTimeoutMs,
      }),
    );
  return { sides, by: 'candidate:latency', label: (s) => `candidate: latency: ${s}`, reportsRoot: o.reportsRoot };
}

/** A side as its snapshot found it: what recordWrites writes back, and the rules each gate held. */
type Before = Awaited<ReturnType<typeof snapshotFor>>;

/**
 * `run` between each side's snapshot and its restore: every side is snapshotted first (what an earlier
 * run cut short still owes it given back before), and afterwards each is restored and ledgered on its
 * own (one side's failure does not skip the other's; a one-sided run's failure is the run's). `ledgers`
 * gets each ledger written, relative to `reportsRoot`. Without records (the run threw, or wrote no
 * summary), or after a cut, every gate the snapshot found is written back.
 */
export async function withSnapshots<T extends { records?: Records }>(
  o: Writes,
  ledgers: Partial<Record<Side, string>>,
  run: (currentGateRules: Record<string, number> | undefined) => Promise<T>,
): Promise<T> {
  const { sides } = o;
  const before: Partial<Record<Side, Before>> = {};
  let result: T | undefined;
  let thrown: { err: unknown } | undefined;
  try {
    for (const s of sides) before[s.side] = await snapshotFor(s, o.label(s.side));
    result = await run(before.current?.gateRules);
  } catch (err) {
    thrown = { err };
  }
  const errors: unknown[] = [];
  for (const s of sides) {
    const b = before[s.side];
    if (!b) continue;
    try {
      await recordWrites(s, b, result?.records ? (result.records.writes?.[s.side] ?? emptyWrites()) : undefined, o.by, o.cut?.() ?? false);
      ledgers[s.side] = relative(o.reportsRoot, join(s.reportsDir, 'ledger.json'));
    } catch (err) {
      errors.push(err);
      console.error(`${o.label(s.side)}: the ${s.side}'s restore or ledger failed: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (thrown) throw thrown.err;
  if (sides.length === 1 && errors.length) throw errors[0];
  return result as T;
}

/** The manifest's gates and experiments as the mutation profile finds them on a side, to be written back after it. */
async function snapshotFor(s: WriteSide, label: string) {
  const conn: Connection = { baseUrl: s.baseUrl, apiKey: s.apiKey, timeoutMs: s.requestTimeoutMs };
  // What an earlier run cut short still owes this side comes first: its snapshot is the owners' state.
  const f = await finishOwed(s.reportsDir, conn, relative(ROOT, s.manifestPath));
  if (f) console.error(`${label}: ${finishedLine(f)}`);
  if (f?.left.length) throw new ConfigError(finishedLine(f));
  const snap = await takeSnapshot(conn, s.manifest);
  for (const note of snap.notes) console.error(`${label}: note: ${note}`);
  // Before the profile's first write: a gate already owed keeps the state recorded first (core/ledger.ts owe).
  snap.snapshot.gates = owe(s.reportsDir, { target: s.baseUrl, by: label, gates: snap.snapshot.gates });
  const gateRules: Record<string, number> = Object.fromEntries(Object.entries(snap.state.gates).flatMap(([g, v]) => (v.rules === null ? [] : [[g, v.rules]])));
  return { startedAt: new Date().toISOString(), snapshot: snap.snapshot, writes: snap.writes, gateRules };
}

/**
 * The mutation profile's writes in the side's ledger (the typed writes its run recorded, load/lib/writes.ts),
 * after the gates it toggled and the experiments it patched are written back as the snapshot found them.
 */
async function recordWrites(s: WriteSide, before: Before, written: ReturnType<typeof emptyWrites> | undefined, by: string, cut: boolean): Promise<void> {
  const w = written ?? emptyWrites();
  const writes: LedgerWrite[] = [...before.writes, ...ledgerWrites(w, s.manifest.metricPrefix)];
  const state: ManifestState = { gates: {}, triggers: {} };
  for (const [gate, n] of Object.entries(w.gateRules)) if (n > 0) state.gates[gate] = { rules: n, isEnabled: null };
  const conn: Connection = { baseUrl: s.baseUrl, apiKey: s.apiKey, timeoutMs: s.requestTimeoutMs };
  // Without the records, or after a cut (its count misses the writes in flight), nothing says which were
  // touched: all the snapshot found are written back.
  const toggled = written && !cut ? Object.keys(w.gateToggles).filter((g) => (w.gateToggles[g] ?? 0) > 0) : Object.keys(before.snapshot.gates);
  const r = await (cut ? restoreAfterCut : restore)(conn, before.snapshot, {
    gates: toggled.filter((g) => g in before.snapshot.gates),
    experiments: Object.keys(before.snapshot.experiments),
  });
  for (const x of r.restores.filter((y) => !y.ok)) console.error(`${by}: note: ${x.resource} ${x.field} not restored: ${x.detail}`);
  Object.assign(
    state.gates,
    Object.fromEntries(Object.entries(r.state.gates).map(([g, v]) => [g, { rules: state.gates[g]?.rules ?? v.rules, isEnabled: v.isEnabled }])),
  );
  addLedgerPart(
    s.reportsDir,
    { by, startedAt: before.startedAt, writes: [...tally(writes), ...tally(r.writes)], restores: r.restores },
    { target: s.baseUrl, manifest: relative(ROOT, s.manifestPath), readOnly: false, state },
  );
  // What was given back, or needed none, is no longer owed; a failed restore stays for the next run.
  const failed = new Set(r.restores.filter((x) => !x.ok && x.resource.startsWith('gates/')).map((x) => x.resource.slice('gates/'.length)));
  settleOwed(
    s.reportsDir,
    s.baseUrl,
    Object.keys(before.snapshot.gates).filter((g) => !failed.has(g)),
  );
}
