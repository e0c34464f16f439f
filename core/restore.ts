// A run leaves a manifest gate's enabled state as it found it: the API lets a client write it back,
// unlike rules, metrics and skipped phases (the spec has no delete). The spec has no gate read, so "as
// found" is what the first answer of the run shows: an add-rules that adds nothing answers the gate (4.1).
// Overrides have no read either, and whether a patch merges or replaces is not shown (4.11): on a target
// that replaces, the only way to see an experiment's overrides (a patch) destroys them. So the snapshot
// writes no overrides: the suite patches only the experiments the manifest gives it to overwrite
// ("overrides": "suite", core/config.ts), and the ledger says their overrides were not restored, since
// their state before the run was never known (docs/nightly.md).
import type { Manifest } from './config.ts';
import type { LedgerPart, LedgerWrite, ManifestState } from './formats.ts';
import { KEY_HEADER } from './keys.ts';
import { addLedgerPart, noteState, owedRestores, settleOwed, tally, writeOf } from './ledger.ts';
import type { JsonObject } from './json.ts';

export interface Connection {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/**
 * One phase's requests (the snapshot, the restore): once one of them gets no answer in time, the
 * rest are not sent and answer at once with why, so that a target that stopped answering costs one
 * request timeout per phase, not one per resource.
 */
export class Phase {
  private gaveUp: string | undefined;
  readonly c: Connection;
  constructor(c: Connection) {
    this.c = c;
  }
  async send(method: string, path: string, body: unknown): Promise<Answer> {
    if (this.gaveUp) return { status: 0, body: undefined, error: `not sent: ${this.gaveUp}` };
    const a = await send(this.c, method, path, body);
    if (a.error === NO_ANSWER) this.gaveUp = `an earlier request of this phase got no answer within ${this.c.timeoutMs / 1000} s`;
    return a;
  }
}

const NO_ANSWER = 'no answer in time';

type Json = JsonObject;
type Overrides = { overrides: unknown[]; userIDOverrides: unknown[] };

export interface Snapshot {
  /** isEnabled of each manifest gate as found; absent when the answer did not say. */
  gates: Record<string, boolean>;
  /** The overrides of a manifest experiment as known before the run's first write to them: never, today (no read in the API). */
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
    return { status: 0, body: undefined, error: e.name === 'TimeoutError' ? NO_ANSWER : (e.cause?.code ?? e.message ?? String(err)) };
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
  state: ManifestState;
  /** One line per resource that could not be read: the restore leaves it as the run leaves it. */
  notes: string[];
  /** The HTTP status each manifest gate and experiment answered (0: no answer). */
  statuses: { gates: Record<string, number>; experiments: Record<string, number> };
}

/** The state to restore, of the manifest's gates and experiments (only those `which` names, all by default). */
export async function takeSnapshot(c: Connection, manifest: Manifest, which?: { gates: string[]; experiments: string[] }): Promise<SnapshotResult> {
  const snapshot: Snapshot = { gates: {}, experiments: {} };
  const writes: LedgerWrite[] = [];
  const state: ManifestState = { gates: {}, triggers: {} };
  const notes: string[] = [];
  const statuses: SnapshotResult['statuses'] = { gates: {}, experiments: {} };
  const phase = new Phase(c);
  for (const id of which?.gates ?? manifest.gates) {
    const body = { rules: [] };
    const a = await phase.send('POST', `${gatePath(id)}/rules`, body);
    const exchange = { method: 'POST', path: `${gatePath(id)}/rules`, requestBody: body, status: a.status, responseBody: a.body };
    const w = writeOf(exchange);
    if (w) writes.push(w);
    noteState(state, exchange);
    statuses.gates[id] = a.status;
    const enabled = dataOf(a.body)?.isEnabled;
    if (a.status >= 200 && a.status < 300 && typeof enabled === 'boolean') snapshot.gates[id] = enabled;
    else notes.push(`gate ${id}: its enabled state could not be read (${a.error ?? `HTTP ${a.status}`}): it is left as the run leaves it`);
  }
  // No overrides are read: the one way (a patch) destroys them on a target that replaces (see above).
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
): Promise<{ restores: LedgerPart['restores']; writes: LedgerWrite[]; state: ManifestState }> {
  const restores: LedgerPart['restores'] = [];
  const writes: LedgerWrite[] = [];
  const state: ManifestState = { gates: {}, triggers: {} };
  const phase = new Phase(c);
  for (const id of changed.gates) {
    const resource = `gates/${id}`;
    const was = snapshot.gates[id];
    if (was === undefined) {
      restores.push({ resource, field: 'isEnabled', to: null, ok: false, detail: 'the state before the run is not known (the first answer did not show it)' });
      continue;
    }
    const path = `${gatePath(id)}/${was ? 'enable' : 'disable'}`;
    const a = await phase.send('PUT', path, undefined);
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
      restores.push({
        resource,
        field: 'overrides',
        to: null,
        ok: false,
        detail: 'the overrides before the run are not known (the API has no read of them): the manifest gives them to the suite to overwrite',
      });
      continue;
    }
    const a = await phase.send('PATCH', overridesPath(id), was);
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

/** What a restore of an earlier run's debt did: one phrase per gate given back, one line per gate still owed. */
export interface Finished {
  by: string;
  since: string;
  gaveBack: string[];
  left: string[];
}

/**
 * Finishes what an earlier run in the reports folder `dir` owes this target: it was cut before its
 * restore was answered (SIGKILL, a lost machine). Each gate is written back to the state the first run
 * that touched it found, which the ledger kept (core/ledger.ts owe); a gate the target no longer knows
 * (404) has nothing left to give back. Undefined when nothing is owed here. The restore's writes go into
 * the ledger as a part of their own.
 */
export async function finishOwed(dir: string, c: Connection, manifest: string): Promise<Finished | undefined> {
  const had = owedRestores(dir).find((o) => o.target === c.baseUrl);
  if (!had) return undefined;
  const startedAt = new Date().toISOString();
  const ids = Object.keys(had.gates);
  const r = await restore(c, { gates: had.gates, experiments: {} }, { gates: ids, experiments: [] });
  const gone = (x: LedgerPart['restores'][number]) => x.detail === 'HTTP 404';
  const given = r.restores.filter((x) => x.ok || gone(x)).map((x) => x.resource.slice('gates/'.length));
  settleOwed(dir, c.baseUrl, given);
  addLedgerPart(
    dir,
    { by: 'restore owed by an earlier run', startedAt, writes: tally(r.writes), restores: r.restores },
    { target: c.baseUrl, manifest, readOnly: false, state: r.state },
  );
  return {
    by: had.by,
    since: had.since,
    gaveBack: r.restores.filter((x) => x.ok).map((x) => `${x.resource.slice('gates/'.length)} isEnabled ${x.to}`),
    left: r.restores.filter((x) => !x.ok && !gone(x)).map((x) => `${x.resource} isEnabled ${x.to}: ${x.detail}`),
  };
}

/** The one line that says what `finishOwed` did, for the command that ran it. */
export function finishedLine(f: Finished): string {
  const what = `an earlier run (${f.by}, ${f.since}) was cut before its restore`;
  if (f.left.length) return `${what}, and it could not be finished: ${f.left.join('; ')}; the run stops here`;
  return `${what}: finished first, gave back ${f.gaveBack.length ? f.gaveBack.join(', ') : 'nothing (nothing was left to give back)'}`;
}

/** How long a cut run waits, after its restore, for writes its killed processes had in flight to land. */
export const IN_FLIGHT_MS = 300;

/**
 * The restore of a run that was cut: its processes were killed, but a request one of them had sent may
 * reach the target after the restore. So each gate given back is read again once those have landed (an
 * add of no rule answers the gate, 4.1) and written back once more where one did.
 */
export async function restoreAfterCut(c: Connection, snapshot: Snapshot, changed: { gates: string[]; experiments: string[] }): ReturnType<typeof restore> {
  const first = await restore(c, snapshot, changed);
  await new Promise((done) => setTimeout(done, IN_FLIGHT_MS));
  const phase = new Phase(c);
  const again: string[] = [];
  for (const x of first.restores) {
    if (!x.ok || x.field !== 'isEnabled') continue;
    const id = x.resource.slice('gates/'.length);
    const body = { rules: [] };
    const a = await phase.send('POST', `${gatePath(id)}/rules`, body);
    const exchange = { method: 'POST', path: `${gatePath(id)}/rules`, requestBody: body, status: a.status, responseBody: a.body };
    const w = writeOf(exchange);
    if (w) first.writes.push(w);
    noteState(first.state, exchange);
    const now = dataOf(a.body)?.isEnabled;
    if (typeof now === 'boolean' && now !== snapshot.gates[id]) again.push(id);
  }
  if (!again.length) return first;
  const second = await restore(c, snapshot, { gates: again, experiments: [] });
  const restores = [...first.restores.filter((x) => !again.includes(x.resource.slice('gates/'.length))), ...second.restores];
  return { restores, writes: [...first.writes, ...second.writes], state: { gates: { ...first.state.gates, ...second.state.gates }, triggers: {} } };
}
