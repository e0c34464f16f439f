// A run leaves a manifest gate's enabled state and a manifest experiment's overrides as it found them:
// the API lets a client write those back, unlike rules, metrics and skipped phases (the spec has no
// delete). The spec has no gate read and no overrides read, so "as found" is what the first answer of
// the run shows: an add-rules that adds nothing answers the gate (4.1), an empty overrides patch answers
// the resulting overrides (4.11). A target that replaces overrides on every patch shows them only by
// replacing them, and one that merges them cannot have the suite's items taken back: both are said in
// the ledger (docs/nightly.md).
import type { Manifest } from './config.ts';
import type { LedgerPart, LedgerWrite, TargetState } from './formats.ts';
import { KEY_HEADER } from './keys.ts';
import { noteState, writeOf } from './ledger.ts';
import type { JsonObject } from './json.ts';

export interface Connection {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

type Json = JsonObject;
type Overrides = { overrides: unknown[]; userIDOverrides: unknown[] };

export interface Snapshot {
  /** isEnabled of each manifest gate as found; absent when the answer did not say. */
  gates: Record<string, boolean>;
  /** The overrides of each manifest experiment as the empty patch answered them. */
  experiments: Record<string, Overrides>;
}

interface Answer {
  status: number;
  body: unknown;
  error?: string;
}

async function send(c: Connection, method: string, path: string, body: unknown): Promise<Answer> {
  try {
    const r = await fetch(`${c.baseUrl}${path}`, {
      method,
      headers: { [KEY_HEADER]: c.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(c.timeoutMs),
    });
    const text = await r.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: r.status, body: parsed };
  } catch (err) {
    const e = err as { name?: string; cause?: { code?: string }; message?: string };
    return { status: 0, body: undefined, error: e.name === 'TimeoutError' ? 'no answer in time' : (e.cause?.code ?? e.message ?? String(err)) };
  }
}

const dataOf = (body: unknown): Json | undefined => {
  const b = body as Json | undefined;
  if (!b || typeof b !== 'object') return undefined;
  return b.data && typeof b.data === 'object' && !Array.isArray(b.data) ? b.data : b;
};
const overridesOf = (body: unknown): Overrides | undefined => {
  const d = dataOf(body);
  return d && Array.isArray(d.overrides) ? { overrides: d.overrides, userIDOverrides: Array.isArray(d.userIDOverrides) ? d.userIDOverrides : [] } : undefined;
};
const gatePath = (id: string) => `/console/v1/gates/${encodeURIComponent(id)}`;
const overridesPath = (id: string) => `/console/v1/experiments/${encodeURIComponent(id)}/overrides`;

export interface SnapshotResult {
  snapshot: Snapshot;
  /** The snapshot's own writes (an add of no rule, an empty patch) for the ledger. */
  writes: LedgerWrite[];
  state: TargetState;
  /** One line per resource that could not be read: the restore leaves it as the run leaves it. */
  notes: string[];
  /** The HTTP status each manifest gate and experiment answered (0: no answer). */
  statuses: { gates: Record<string, number>; experiments: Record<string, number> };
}

/** The state to restore, of the manifest's gates and experiments (only those `which` names, all by default). */
export async function takeSnapshot(c: Connection, manifest: Manifest, which?: { gates: string[]; experiments: string[] }): Promise<SnapshotResult> {
  const snapshot: Snapshot = { gates: {}, experiments: {} };
  const writes: LedgerWrite[] = [];
  const state: TargetState = { gates: {}, triggers: {} };
  const notes: string[] = [];
  const statuses: SnapshotResult['statuses'] = { gates: {}, experiments: {} };
  for (const id of which?.gates ?? manifest.gates) {
    const body = { rules: [] };
    const a = await send(c, 'POST', `${gatePath(id)}/rules`, body);
    const exchange = { method: 'POST', path: `${gatePath(id)}/rules`, requestBody: body, status: a.status, responseBody: a.body };
    const w = writeOf(exchange);
    if (w) writes.push(w);
    noteState(state, exchange);
    statuses.gates[id] = a.status;
    const enabled = dataOf(a.body)?.isEnabled;
    if (a.status >= 200 && a.status < 300 && typeof enabled === 'boolean') snapshot.gates[id] = enabled;
    else notes.push(`gate ${id}: its enabled state could not be read (${a.error ?? `HTTP ${a.status}`}): it is left as the run leaves it`);
  }
  for (const id of which?.experiments ?? manifest.experiments) {
    const body = { overrides: [], userIDOverrides: [] };
    const a = await send(c, 'PATCH', overridesPath(id), body);
    const w = writeOf({ method: 'PATCH', path: overridesPath(id), requestBody: body, status: a.status, responseBody: a.body });
    if (w) writes.push(w);
    statuses.experiments[id] = a.status;
    const found = a.status >= 200 && a.status < 300 ? overridesOf(a.body) : undefined;
    if (found) snapshot.experiments[id] = found;
    else notes.push(`experiment ${id}: its overrides could not be read (${a.error ?? `HTTP ${a.status}`}): they are left as the run leaves them`);
  }
  return { snapshot, writes, state, notes, statuses };
}

/**
 * Manifest ids the target does not know, as far as the snapshot can tell without a read: a gate or
 * experiment answered 404 where another of its kind answered 2xx (a route that is broken answers 404 for
 * all of them, and that is the target's answer, for the suite to judge). One line each, with the fix.
 */
export function unknownIds(statuses: SnapshotResult['statuses']): string[] {
  const out: string[] = [];
  for (const [kind, byId] of [
    ['gate', statuses.gates],
    ['experiment', statuses.experiments],
  ] as const) {
    const ids = Object.entries(byId);
    if (!ids.some(([, s]) => s >= 200 && s < 300)) continue;
    for (const [id, s] of ids)
      if (s === 404) out.push(`manifest ${kind} ${id} is not known to the target (HTTP 404, where other ${kind}s answered): fix or replace it in the manifest`);
  }
  return out;
}

/** Writes back what the snapshot found, for the gates and experiments the run changed; one entry per resource, and the restore's own writes. */
export async function restore(
  c: Connection,
  snapshot: Snapshot,
  changed: { gates: string[]; experiments: string[] },
): Promise<{ restores: LedgerPart['restores']; writes: LedgerWrite[]; state: TargetState }> {
  const restores: LedgerPart['restores'] = [];
  const writes: LedgerWrite[] = [];
  const state: TargetState = { gates: {}, triggers: {} };
  for (const id of changed.gates) {
    const resource = `gates/${id}`;
    const was = snapshot.gates[id];
    if (was === undefined) {
      restores.push({ resource, field: 'isEnabled', to: null, ok: false, detail: 'the state before the run is not known (the first answer did not show it)' });
      continue;
    }
    const path = `${gatePath(id)}/${was ? 'enable' : 'disable'}`;
    const a = await send(c, 'PUT', path, undefined);
    const exchange = { method: 'PUT', path, status: a.status, responseBody: a.body };
    const w = writeOf(exchange);
    if (w) writes.push({ ...w, undo: 'nothing to undo' });
    noteState(state, exchange);
    const ok = a.status >= 200 && a.status < 300;
    restores.push({ resource, field: 'isEnabled', to: was, ok, ...(ok ? {} : { detail: a.error ?? `HTTP ${a.status}` }) });
  }
  for (const id of changed.experiments) {
    const resource = `experiments/${id}`;
    const was = snapshot.experiments[id];
    if (!was) {
      restores.push({ resource, field: 'overrides', to: null, ok: false, detail: 'the overrides before the run are not known' });
      continue;
    }
    const a = await send(c, 'PATCH', overridesPath(id), was);
    const w = writeOf({ method: 'PATCH', path: overridesPath(id), requestBody: was, status: a.status, responseBody: a.body });
    if (w) writes.push({ ...w, undo: 'nothing to undo' });
    const now = a.status >= 200 && a.status < 300 ? overridesOf(a.body) : undefined;
    // A target that merges keeps the run's items whatever is sent: then the overrides cannot be given back.
    const merges = now !== undefined && now.overrides.length + now.userIDOverrides.length > was.overrides.length + was.userIDOverrides.length;
    const ok = now !== undefined && !merges;
    restores.push({
      resource,
      field: 'overrides',
      to: { overrides: was.overrides.length, userIDOverrides: was.userIDOverrides.length },
      ok,
      ...(ok
        ? {}
        : {
            detail: merges
              ? "the target merges overrides: the run's items stay (the API has no way to remove them)"
              : (a.error ?? `HTTP ${a.status}${now === undefined && a.status < 300 ? ' without the overrides' : ''}`),
          }),
    });
  }
  return { restores, writes, state };
}

/** The manifest gates and experiments whose state `writes` changed: what the restore must write back. */
export function changedBy(writes: LedgerWrite[]): { gates: string[]; experiments: string[] } {
  const ids = (op: string[], kind: string) => [
    ...new Set(writes.filter((w) => op.includes(w.operation) && w.resource.startsWith(`${kind}/`)).map((w) => w.resource.slice(kind.length + 1))),
  ];
  return { gates: ids(['enableGate', 'disableGate'], 'gates'), experiments: ids(['patchExperimentOverrides'], 'experiments') };
}
