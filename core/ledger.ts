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
  type TargetState,
} from './formats.ts';
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
export function noteState(state: TargetState, e: Pick<Exchange, 'method' | 'path' | 'status' | 'responseBody'>): void {
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

export const emptyState = (): TargetState => ({ gates: {}, triggers: {} });

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
  opts: { target: string; manifest: string; readOnly: boolean; state?: TargetState; fresh?: boolean },
): Ledger {
  const had = opts.fresh ? undefined : readLedger(dir);
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
  };
  writeLedgerFile(dir, ledger);
  return ledger;
}
