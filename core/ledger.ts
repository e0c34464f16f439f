// reports/ledger.json (shapes in core/formats.ts): every write a run made to the target, what each
// command put back at its end, the totals the history keeps, and the manifest's resources as the last
// answers showed them. One file per run: verify clears it first, then each command adds its part (the
// conformance suite's, the snapshot and restore around it, each load script's), replacing an earlier
// part of its own name. Read and written only here.
import {
  readLedgerFile,
  RUN_FILES,
  writeLedgerFile,
  type Exchange,
  type FootprintTotals,
  type Ledger,
  type LedgerPart,
  type LedgerWrite,
  type OwedRestore,
  type ManifestState,
} from './formats.ts';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from './json.ts';
import { OPERATIONS } from '../contracts/index.ts';

export const LEDGER_FILE = RUN_FILES.ledger;
const FORMAT = 'console-conformance.ledger/1' as const;

type Json = JsonObject;

/**
 * Every write of the contract (each operation but a read), its path as a pattern whose group is the
 * resource's id, and the kind of resource (the path's first part under /console/v1/): an operation a
 * revision of the spec adds is a write the ledger records from the day the contract has it.
 */
const ROUTES: { operation: string; method: string; path: RegExp; kind: string }[] = Object.entries(OPERATIONS)
  .filter(([, op]) => op.method !== 'GET')
  .map(([operation, op]) => {
    const [head, ...params] = op.path.split(/\{[^}]+\}/);
    const literal = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    return {
      operation,
      method: op.method,
      path: new RegExp(`^${[literal(head), ...params.map(literal)].join('([^/?]+)')}$`),
      kind: op.path.replace(/^\/console\/v1\//, '').split('/')[0],
    };
  });

/** What the API lets a run undo of each operation: a gate's enabled state and an experiment's overrides can be written back. */
export const RESTORABLE = new Set(['disableGate', 'enableGate', 'patchExperimentOverrides']);

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The answer's data, in the envelope or (the overrides example of spec 4.11) at the top level. */
const dataOf = (body: unknown): Json | undefined => {
  const b = body as Json | undefined;
  if (!b || typeof b !== 'object') return undefined;
  return b.data && typeof b.data === 'object' && !Array.isArray(b.data) ? b.data : b;
};

/**
 * The write an exchange made, or undefined when it made none: a read, a dry run, or a write the target
 * refused (a 3xx to 5xx changes nothing a client can tell). A write that got no answer may have taken.
 */
export function writeOf(e: Pick<Exchange, 'method' | 'path' | 'requestBody' | 'status' | 'responseBody'>): LedgerWrite | undefined {
  const method = e.method.toUpperCase();
  if (method === 'GET') return undefined;
  const path = e.path.split('?')[0];
  const route = ROUTES.find((r) => r.method === method && r.path.test(path));
  if (!route) return undefined;
  const sent = (e.requestBody ?? {}) as Json;
  if (sent && typeof sent === 'object' && sent.dryRun === true) return undefined;
  const answered = e.status >= 200 && e.status < 300;
  if (!answered && e.status !== 0) return undefined;
  const data = answered ? dataOf(e.responseBody) : undefined;
  const id = decode(route.path.exec(path)?.[1] ?? '');
  let resource = `${route.kind}/${id}`;
  let change: string;
  switch (route.operation) {
    case 'addGateRules': {
      const rules = Array.isArray(sent.rules) ? sent.rules : [];
      change =
        rules.length === 0
          ? 'no rule added'
          : `added ${rules.length} rule${rules.length > 1 ? 's' : ''}: ${rules.map((r: Json) => JSON.stringify(r?.name ?? null)).join(', ')}`;
      break;
    }
    case 'disableGate':
      change = 'isEnabled false';
      break;
    case 'enableGate':
      change = 'isEnabled true (as the target enables)';
      break;
    case 'patchExperimentOverrides': {
      const n = (k: string) => (Array.isArray(sent[k]) ? sent[k].length : 0);
      change = `patched overrides: ${n('overrides')} overrides, ${n('userIDOverrides')} userIDOverrides`;
      break;
    }
    case 'skipTriggerPhase':
      change = `skipped phase ${JSON.stringify(sent.phaseID ?? null)}`;
      break;
    case 'unpauseTrigger':
      change = `unpaused at phase ${JSON.stringify(sent.phaseID ?? null)}`;
      break;
    case 'createMetric': {
      const created = typeof data?.id === 'string' ? data.id : `${sent.name}::${sent.type}`;
      resource = `metrics/${created}`;
      change = 'created';
      break;
    }
    default:
      change = `updated ${
        Object.keys(sent)
          .filter((k) => k !== 'dryRun')
          .join(', ') || 'nothing (a write that changes nothing)'
      }`;
  }
  const undo =
    route.operation === 'addGateRules' && change === 'no rule added'
      ? 'nothing to undo'
      : RESTORABLE.has(route.operation)
        ? 'not restored'
        : 'cannot be undone';
  const added = route.operation === 'addGateRules' ? (Array.isArray(sent.rules) ? sent.rules.length : 0) : undefined;
  return {
    operation: route.operation,
    resource,
    change,
    count: 1,
    ...(added !== undefined ? { added } : {}),
    undo,
    ...(answered ? {} : { uncertain: true as const }),
  };
}

/** What an exchange's answer shows of a manifest resource's state (rules held, enabled, current phase); folded into `state`. */
export function noteState(state: ManifestState, e: Pick<Exchange, 'method' | 'path' | 'status' | 'responseBody'>): void {
  if (e.status < 200 || e.status >= 300) return;
  const path = e.path.split('?')[0];
  const data = dataOf(e.responseBody);
  if (!data) return;
  const gate = /^\/console\/v1\/gates\/([^/?]+)\/(rules|enable|disable)$/.exec(path);
  if (gate) {
    const id = decode(gate[1]);
    const was = state.gates[id] ?? { rules: null, isEnabled: null };
    state.gates[id] = {
      rules: Array.isArray(data.rules) ? data.rules.length : was.rules,
      isEnabled: typeof data.isEnabled === 'boolean' ? data.isEnabled : was.isEnabled,
    };
    return;
  }
  const trigger = /^\/console\/v1\/release_pipeline_triggers\/([^/?]+)\/(skip|unpause)$/.exec(path);
  if (trigger)
    state.triggers[decode(trigger[1])] = {
      currentPhaseID: typeof data.currentPhaseID === 'string' ? data.currentPhaseID : null,
      status: typeof data.status === 'string' ? data.status : null,
    };
}

/** Writes alike (operation, resource, change, undo) as one entry with their count, in the order first made. */
export function tally(writes: LedgerWrite[]): LedgerWrite[] {
  const out = new Map<string, LedgerWrite>();
  for (const w of writes) {
    const key = JSON.stringify([w.operation, w.resource, w.change, w.undo, w.uncertain ?? false]);
    const had = out.get(key);
    if (had) {
      had.count += w.count;
      if (w.added !== undefined) had.added = (had.added ?? 0) + w.added;
    } else out.set(key, { ...w });
  }
  return [...out.values()];
}

export function totalsOf(parts: LedgerPart[]): FootprintTotals {
  const t: FootprintTotals = {
    writes: 0,
    rulesAdded: {},
    metricsCreated: 0,
    metricsUpdated: 0,
    phasesSkipped: {},
    unpaused: 0,
    gateToggles: 0,
    overridePatches: 0,
    notRestored: 0,
  };
  const id = (resource: string) => resource.slice(resource.indexOf('/') + 1);
  const created = new Set<string>();
  for (const w of parts.flatMap((p) => p.writes)) {
    t.writes += w.count;
    if (w.undo === 'not restored') t.notRestored += w.count;
    switch (w.operation) {
      case 'addGateRules':
        if (w.added) t.rulesAdded[id(w.resource)] = (t.rulesAdded[id(w.resource)] ?? 0) + w.added;
        break;
      case 'createMetric':
        // A create of an id already created (a duplicate the target answered with the same metric) makes no second metric.
        if (w.resource.endsWith('*')) t.metricsCreated += w.count;
        else if (!created.has(w.resource)) {
          created.add(w.resource);
          t.metricsCreated += 1;
        }
        break;
      case 'updateMetric':
        t.metricsUpdated += w.count;
        break;
      case 'skipTriggerPhase':
        t.phasesSkipped[id(w.resource)] = (t.phasesSkipped[id(w.resource)] ?? 0) + w.count;
        break;
      case 'unpauseTrigger':
        t.unpaused += w.count;
        break;
      case 'patchExperimentOverrides':
        t.overridePatches += w.count;
        break;
      default:
        t.gateToggles += w.count;
    }
  }
  return t;
}

export const emptyState = (): ManifestState => ({ gates: {}, triggers: {} });

/** The ledger of the run in `dir`, or undefined when there is none (or it is not one). */
export function readLedger(dir: string): Ledger | undefined {
  try {
    return readLedgerFile(dir);
  } catch {
    return undefined;
  }
}

/**
 * Adds `part` to the run's ledger in `dir` (replacing an earlier part of the same name), folds `state`
 * into what the ledger knows, and recomputes the totals. `fresh` starts a new ledger: the first command of a run.
 */
export function addLedgerPart(
  dir: string,
  part: LedgerPart,
  opts: { target: string; manifest: string; readOnly: boolean; state?: ManifestState; fresh?: boolean },
): Ledger {
  const file = readLedger(dir);
  const had = opts.fresh ? undefined : file;
  const parts = [...(had?.parts.filter((p) => p.by !== part.by) ?? []), part];
  // A restore settles the writes it undid, in every part of the run so far.
  for (const r of part.restores)
    for (const w of parts.flatMap((p) => p.writes))
      if (w.resource === r.resource && RESTORABLE.has(w.operation) && w.undo !== 'nothing to undo') w.undo = r.ok ? 'restored' : 'not restored';
  const state = had?.state ?? emptyState();
  for (const [id, g] of Object.entries(opts.state?.gates ?? {}))
    state.gates[id] = { rules: g.rules ?? state.gates[id]?.rules ?? null, isEnabled: g.isEnabled ?? state.gates[id]?.isEnabled ?? null };
  Object.assign(state.triggers, opts.state?.triggers ?? {});
  const ledger: Ledger = {
    format: FORMAT,
    target: opts.target,
    manifest: opts.manifest,
    readOnly: opts.readOnly || Boolean(had?.readOnly),
    parts,
    totals: totalsOf(parts),
    state,
    // A fresh ledger too: what an earlier run owes stays the owners' until a run gives it back.
    ...(file?.owed?.length ? { owed: file.owed } : {}),
  };
  writeLedgerFile(dir, ledger);
  return ledger;
}
/** The restores owed in `dir`'s ledger: none when there is no ledger. */
export function owedRestores(dir: string): OwedRestore[] {
  return readLedger(dir)?.owed ?? [];
}

/** Clears the ledger of an earlier run (verify's first act) but for what it still owes, which outlives it. */
export function clearLedger(dir: string): void {
  const owed = owedRestores(dir);
  if (!owed.length) {
    rmSync(join(dir, LEDGER_FILE), { force: true });
    return;
  }
  writeLedgerFile(dir, { format: FORMAT, target: owed[0].target, manifest: '', readOnly: false, parts: [], totals: totalsOf([]), state: emptyState(), owed });
}

function writeOwed(dir: string, owed: OwedRestore[], target: string): void {
  const base: Ledger = readLedger(dir) ?? { format: FORMAT, target, manifest: '', readOnly: false, parts: [], totals: totalsOf([]), state: emptyState() };
  const { owed: _was, ...rest } = base;
  writeLedgerFile(dir, owed.length ? { ...rest, owed } : rest);
}

/**
 * Records what the run will owe `target`'s owners, before its first write that can change it: each
 * gate's isEnabled as found. A gate already owed (an earlier command of this run, or an earlier run whose
 * restore is unfinished) keeps the state recorded first, so a state a cut left is never taken for the
 * owner's. Returns every gate owed on the target, with the state to give back.
 */
export function owe(dir: string, entry: { target: string; by: string; gates: Record<string, boolean> }): Record<string, boolean> {
  const owed = owedRestores(dir);
  const had = owed.find((o) => o.target === entry.target);
  const gates = { ...entry.gates, ...had?.gates };
  const next: OwedRestore = had ? { ...had, gates } : { target: entry.target, by: entry.by, since: new Date().toISOString(), gates };
  writeOwed(dir, [...owed.filter((o) => o !== had), next], entry.target);
  return gates;
}

/** Takes off what a restore gave back; the target's entry goes when nothing is left. Returns what is still owed there. */
export function settleOwed(dir: string, target: string, given: string[]): Record<string, boolean> {
  const owed = owedRestores(dir);
  const had = owed.find((o) => o.target === target);
  if (!had) return {};
  const gates = Object.fromEntries(Object.entries(had.gates).filter(([id]) => !given.includes(id)));
  const left = Object.keys(gates).length ? [{ ...had, gates }] : [];
  writeOwed(dir, [...owed.filter((o) => o !== had), ...left], target);
  return gates;
}

/** One line of what the run in `dir` gave back to `target`'s owners, and what it still owes them (the exit of a cut run says it). */
export function restoredLine(dir: string, target: string): string {
  const l = readLedger(dir);
  const given = new Map<string, string>();
  for (const p of l?.parts ?? [])
    for (const r of p.restores) if (r.ok && r.field === 'isEnabled') given.set(r.resource.slice(r.resource.indexOf('/') + 1), `isEnabled ${r.to}`);
  const owed = Object.entries(l?.owed?.find((o) => o.target === target)?.gates ?? {});
  const gave = given.size ? `gave back ${[...given].map(([id, what]) => `${id} ${what}`).join(', ')}` : 'nothing to give back';
  return owed.length
    ? `${gave}; still owed: ${owed.map(([id, was]) => `${id} isEnabled ${was}`).join(', ')} (in ${LEDGER_FILE}: the next run in this reports folder finishes it first)`
    : `${gave}; nothing left owed`;
}

/** Puts `owed` back into the ledger of `dir` after its folder was cleared: what a run still owes outlives its reports. */
export function keepOwed(dir: string, owed: OwedRestore[]): void {
  if (!owed.length) return;
  mkdirSync(dir, { recursive: true });
  writeOwed(dir, owed, owed[0].target);
}

/** Forgets what is owed to `target`: a reference server started for the run, whose database went with it. */
export function forgetOwed(dir: string, target: string): void {
  settleOwed(dir, target, Object.keys(owedRestores(dir).find((o) => o.target === target)?.gates ?? {}));
}
