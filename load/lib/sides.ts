// The two sides of a paired mutation run (`npm run candidate -- --latency --writes`): every write of
// the profile goes to the current and to the candidate as one pair, and each side must get the same
// work on its own resources. The manifests pair by position (gates[i] with gates[i], as the contract
// compare's aliases do, candidate/run.ts), only where both manifests allow the write; a body sent to
// the current names the current's ids and the candidate's copy names the candidate's. Pure: the
// command plans the run with it (load/command/prepare.ts), the workers translate bodies with it.
import type { Budget, Manifest, RunManifest } from '../../core/manifest.ts';

export interface SidePlan {
  current: RunManifest;
  candidate: RunManifest;
  /** One line per manifest id left out because the other side has nothing at its place or does not give it. */
  notes: string[];
}

const DEFAULT_GROUPS = ['control', 'test'];

function ownerOf(m: Manifest): RunManifest['metricOwner'] {
  const o = m.metricOwner as { email?: unknown; ownerID?: unknown } | undefined;
  return o && typeof o.email === 'string' && typeof o.ownerID === 'string' ? { email: o.email, ownerID: o.ownerID } : undefined;
}

const groupsOf = (m: Manifest) => (Array.isArray(m.overrideGroupIDs) && m.overrideGroupIDs.length ? (m.overrideGroupIDs as string[]) : DEFAULT_GROUPS);

/**
 * Pairs the two manifests by position: gates[i], experiments[i] (only when both give its overrides to
 * the suite), triggers[i] with their phases up to the shorter list, overrideGroupIDs[i]. What one side
 * has beyond the other, or does not give, is left out of the run on both sides, with a note.
 */
export function sidePlan(cur: Manifest, cand: Manifest): SidePlan {
  const notes: string[] = [];
  const current: RunManifest = { gates: [], experiments: [], triggers: [], metricPrefix: cur.metricPrefix, overrideGroupIDs: [], metricOwner: ownerOf(cur) };
  const candidate: RunManifest = {
    gates: [],
    experiments: [],
    triggers: [],
    metricPrefix: cand.metricPrefix,
    overrideGroupIDs: [],
    metricOwner: ownerOf(cand),
  };
  const unmatched = (kind: string, ids: string[], from: number, side: string, other: string) => {
    for (const id of ids.slice(from)) notes.push(`${side} ${kind} ${id} is left out: the ${other}'s manifest has no ${kind} at its place`);
  };
  const n = Math.min(cur.gates.length, cand.gates.length);
  current.gates = cur.gates.slice(0, n);
  candidate.gates = cand.gates.slice(0, n);
  unmatched('gate', cur.gates, n, 'current', 'candidate');
  unmatched('gate', cand.gates, n, 'candidate', 'current');

  const e = Math.min(cur.experiments.length, cand.experiments.length);
  for (let i = 0; i < e; i++) {
    const [a, b] = [cur.experiments[i], cand.experiments[i]];
    const owned = [cur.overridesOwned.includes(a), cand.overridesOwned.includes(b)];
    if (owned[0] && owned[1]) {
      current.experiments.push(a);
      candidate.experiments.push(b);
    } else if (owned[0] || owned[1])
      notes.push(
        `experiments ${a} (current) and ${b} (candidate) are left out: only the ${owned[0] ? 'current' : 'candidate'}'s manifest gives its overrides to the suite`,
      );
  }
  unmatched('experiment', cur.experiments, e, 'current', 'candidate');
  unmatched('experiment', cand.experiments, e, 'candidate', 'current');

  const t = Math.min(cur.triggers.length, cand.triggers.length);
  for (let i = 0; i < t; i++) {
    const [a, b] = [cur.triggers[i], cand.triggers[i]];
    const p = Math.min(a.phaseIDs.length, b.phaseIDs.length);
    if (p === 0) {
      notes.push(`triggers ${a.id} (current) and ${b.id} (candidate) are left out: one of them lists no phase`);
      continue;
    }
    if (a.phaseIDs.length !== b.phaseIDs.length)
      notes.push(`trigger ${a.id} (current) and ${b.id} (candidate): only their first ${p} phases are used (the other side lists no more)`);
    current.triggers.push({ id: a.id, releasePipelineID: a.releasePipelineID, phaseIDs: a.phaseIDs.slice(0, p) });
    candidate.triggers.push({ id: b.id, releasePipelineID: b.releasePipelineID, phaseIDs: b.phaseIDs.slice(0, p) });
  }
  unmatched(
    'trigger',
    cur.triggers.map((x) => x.id),
    t,
    'current',
    'candidate',
  );
  unmatched(
    'trigger',
    cand.triggers.map((x) => x.id),
    t,
    'candidate',
    'current',
  );

  const g = Math.min(groupsOf(cur).length, groupsOf(cand).length);
  current.overrideGroupIDs = groupsOf(cur).slice(0, g);
  candidate.overrideGroupIDs = groupsOf(cand).slice(0, g);
  return { current, candidate, notes };
}

/** Each current id of the plan to the candidate's id at its place. */
export function candidateIds(plan: SidePlan): Map<string, string> {
  const map = new Map<string, string>();
  const { current: a, candidate: b } = plan;
  a.gates.forEach((id, i) => map.set(id, b.gates[i]));
  a.experiments.forEach((id, i) => map.set(id, b.experiments[i]));
  a.overrideGroupIDs.forEach((id, i) => map.set(id, b.overrideGroupIDs[i]));
  a.triggers.forEach((x, i) => {
    map.set(x.id, b.triggers[i].id);
    map.set(x.releasePipelineID, b.triggers[i].releasePipelineID);
    x.phaseIDs.forEach((p, j) => map.set(p, b.triggers[i].phaseIDs[j]));
  });
  return map;
}

const sameOwner = (x: unknown, o: RunManifest['metricOwner']) =>
  o !== undefined && typeof x === 'object' && x !== null && (x as { email?: unknown }).email === o.email && (x as { ownerID?: unknown }).ownerID === o.ownerID;

/**
 * The candidate's copy of a body made for the current: every string that is a current manifest id of
 * the plan becomes the candidate's at its place, what the run names (`<metricPrefix><runId>...`) takes
 * the candidate's prefix, and the current's metricOwner becomes the candidate's (or is left out when
 * the candidate's manifest names none).
 */
export function candidateBody<T>(body: T, plan: SidePlan, runId: string, ids: Map<string, string> = candidateIds(plan)): T {
  const made = `${plan.current.metricPrefix}${runId}`;
  const madeThere = `${plan.candidate.metricPrefix}${runId}`;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return ids.get(v) ?? (v.startsWith(made) ? madeThere + v.slice(made.length) : v);
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'owner' && sameOwner(x, plan.current.metricOwner)) {
        if (plan.candidate.metricOwner) out[k] = { ...(x as object), ...plan.candidate.metricOwner };
        continue;
      }
      out[k] = walk(x);
    }
    return out;
  };
  return walk(body) as T;
}

/**
 * The budget both sides keep: per key the smaller, `null` (a reference server started for the side,
 * thrown away after) bounding nothing. With it, iteration i decides the same on both sides, and
 * neither side is written beyond its own manifest's budget.
 */
export function pairedBudget(a: Budget | null, b: Budget | null): Budget | null {
  if (a === null) return b;
  if (b === null) return a;
  return {
    triggerPhasesPerRun: Math.min(a.triggerPhasesPerRun, b.triggerPhasesPerRun),
    metricsPerRun: Math.min(a.metricsPerRun, b.metricsPerRun),
    rulesPerGatePerRun: Math.min(a.rulesPerGatePerRun, b.rulesPerGatePerRun),
  };
}
