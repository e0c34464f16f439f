// manifest:check: the manifest read against the target without writing anything, and how long it lasts.
// The lists show experiments, pipelines and their phases (spec 4.4, 4.5); the spec has no gate or
// trigger read, so a gate's rules and a trigger's current phase are taken from the last run that saw
// them (the run history's footprint, core/history.ts). Consumption is measured over the last runs
// against the same target and manifest; before there are any, the suite's design is assumed.
import type { Manifest } from '../core/config.ts';
import type { ManifestState } from '../core/formats.ts';
import { KEY_HEADER } from '../core/keys.ts';
import type { HistoryRun } from '../core/history.ts';
import type { JsonObject as Json } from '../core/json.ts';

export const TARGET_CHECK_FILE = 'target-check.json';

/** What one night of the conformance suite takes by design: at most 2 phase skips and the 1 pause that its unpause check needs. */
export const DESIGN_PHASES_PER_NIGHT = 2;
/** verify warns when the manifest lasts this many nights or fewer (this night included): from 5 nights before it runs out. */
export const WARN_NIGHTS = 5;
/** Runs of the history the consumption is averaged over. */
const MEASURED_RUNS = 7;
const MAX_PAGES = 200;
const LIMIT = 100;

export interface TriggerCheck {
  id: string;
  releasePipelineID: string;
  /** Manifest phase ids the pipeline does not have (all of them when the pipeline is not listed). */
  unknownPhases: string[];
  pipelineFound: boolean;
  /** The current phase and status as the last run saw them; null before any run. */
  current: string | null;
  status: string | null;
  /** Manifest phases still to skip, the current one included. */
  phasesLeft: number;
  /** Pauses still to come (phases ahead that require review, and a trigger paused now); null when the pipeline does not say. */
  pausesLeft: number | null;
}

export interface GateCheck {
  id: string;
  /** Rules the gate held at the last answer a run saw, and when. */
  rules: number | null;
  seenAt: string | null;
  /** Rules added per night, over the measured runs. */
  addedPerNight: number | null;
}

/** What manifest:check finds and writes (target-check.json): whether the manifest works on the target, and for how long. */
export interface ManifestCheck {
  format: 'console-conformance.target-check/1';
  target: string;
  manifest: string;
  checkedAt: string;
  /** Why the manifest cannot work on this target: ids the target does not know. Exit 3 when any. */
  problems: string[];
  warnings: string[];
  /** `overrides`: "suite" when the manifest gives the experiment's overrides to the suite to overwrite, else "not written". */
  experiments: { id: string; found: boolean; overrides?: 'suite' | 'not written' }[];
  /** True when the experiment list was walked to its end (else a missing id may be further on). */
  experimentsComplete: boolean;
  triggers: TriggerCheck[];
  gates: GateCheck[];
  metrics: { createdPerNight: number | null; owner: string };
  consumption: { runs: number; phasesPerNight: number; source: 'history' | 'design' };
  /** Nights the manifest's triggers last at that consumption; null when nothing consumes them. */
  nightsLeft: number | null;
}

interface Connection {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

async function get(c: Connection, path: string): Promise<{ status: number; body: Json | undefined }> {
  const r = await fetch(`${c.baseUrl}${path}`, { headers: { [KEY_HEADER]: c.apiKey }, redirect: 'manual', signal: AbortSignal.timeout(c.timeoutMs) });
  const text = await r.text();
  try {
    return { status: r.status, body: JSON.parse(text) };
  } catch {
    return { status: r.status, body: undefined };
  }
}

/**
 * Every item of a list, by page number (0 and 1 both asked: where the first page is, is not shown),
 * until an empty page, a refused one, or a page of items seen before; `complete` false past MAX_PAGES.
 */
async function listAll(c: Connection, path: string): Promise<{ items: Json[]; complete: boolean }> {
  const byId = new Map<string, Json>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await get(c, `${path}?limit=${LIMIT}&page=${page}`);
    const data: Json[] = r.status >= 200 && r.status < 300 && Array.isArray(r.body?.data) ? r.body.data : [];
    const fresh = data.filter((x) => typeof x?.id === 'string' && !byId.has(x.id));
    for (const x of fresh) byId.set(x.id, x);
    // Page 0 may be refused, empty or the first page, and page 1 then the same again: the walk ends
    // at an empty page from 1 on, or a page of nothing new from 2 on.
    if ((page === 1 && data.length === 0) || (page > 1 && fresh.length === 0)) return { items: [...byId.values()], complete: true };
  }
  return { items: [...byId.values()], complete: false };
}

/** The newest state the history knows of each manifest resource, with the time of the run that saw it. */
function lastSeen(runs: HistoryRun[]): {
  gates: Record<string, ManifestState['gates'][string] & { at: string }>;
  triggers: Record<string, ManifestState['triggers'][string] & { at: string }>;
} {
  const out: ReturnType<typeof lastSeen> = { gates: {}, triggers: {} };
  for (const run of runs) {
    for (const [id, g] of Object.entries(run.footprint?.state.gates ?? {})) if (g.rules !== null) out.gates[id] = { ...g, at: run.startedAt };
    for (const [id, t] of Object.entries(run.footprint?.state.triggers ?? {})) out.triggers[id] = { ...t, at: run.startedAt };
  }
  return out;
}

const average = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * The manifest against the target: `runs` are the history's runs against the same target and manifest,
 * oldest first. Sends only reads.
 */
export async function checkManifest(c: Connection, manifest: Manifest, manifestPath: string, runs: HistoryRun[]): Promise<ManifestCheck> {
  const problems: string[] = [];
  const warnings: string[] = [];

  const experiments = await listAll(c, '/console/v1/experiments');
  const experimentIds = new Set(experiments.items.map((x) => x.id));
  const expChecks = manifest.experiments.map((id) => ({
    id,
    found: experimentIds.has(id),
    overrides: (manifest.overridesOwned ?? []).includes(id) ? ('suite' as const) : ('not written' as const),
  }));
  // No read of overrides and merge-or-replace not shown (4.11): without the key, their checks are left unchecked.
  if (!expChecks.some((e) => e.overrides === 'suite'))
    warnings.push(
      'no manifest experiment gives its overrides to the suite ({"id": "...", "overrides": "suite"}): the overrides checks will be left unchecked (INCOMPLETE), since a patch may replace what the owners set',
    );
  for (const e of expChecks.filter((x) => !x.found))
    (experiments.complete ? problems : warnings).push(
      `experiment ${e.id} is not in the experiment list${experiments.complete ? '' : ` (its first ${MAX_PAGES} pages)`}: fix or replace it in the manifest`,
    );

  const pipelines = await listAll(c, '/console/v1/release_pipelines');
  const byPipeline = new Map(pipelines.items.map((p) => [p.id as string, p]));
  const seen = lastSeen(runs);
  const measured = runs.filter((r) => r.footprint && !r.partial).slice(-MEASURED_RUNS);

  const triggers: TriggerCheck[] = manifest.triggers.map((t) => {
    const pipeline = byPipeline.get(t.releasePipelineID);
    const phases: Json[] = Array.isArray(pipeline?.phases) ? pipeline.phases : [];
    const phaseIds = phases.map((p) => p?.id);
    const unknownPhases = t.phaseIDs.filter((p) => !phaseIds.includes(p));
    if (!pipeline) problems.push(`trigger ${t.id}: release pipeline ${t.releasePipelineID} is not in the pipeline list: fix or replace it in the manifest`);
    else if (unknownPhases.length)
      problems.push(`trigger ${t.id}: phases ${unknownPhases.join(', ')} are not phases of pipeline ${t.releasePipelineID}: fix the manifest's phaseIDs`);
    const last = seen.triggers[t.id];
    const done = last?.status === 'COMPLETED';
    const at = last?.currentPhaseID ? t.phaseIDs.indexOf(last.currentPhaseID) : 0;
    const ahead = done ? [] : t.phaseIDs.slice(Math.max(0, at));
    const reviews = ahead.slice(1).map((id) => phases.find((p) => p?.id === id)?.requiredReview);
    const pausesLeft = reviews.some((r) => typeof r !== 'boolean') ? null : reviews.filter(Boolean).length + (last?.status === 'PAUSED' ? 1 : 0);
    return {
      id: t.id,
      releasePipelineID: t.releasePipelineID,
      unknownPhases,
      pipelineFound: Boolean(pipeline),
      current: last?.currentPhaseID ?? null,
      status: last?.status ?? null,
      phasesLeft: pipeline ? ahead.filter((id) => phaseIds.includes(id)).length : 0,
      pausesLeft: pipeline ? pausesLeft : 0,
    };
  });

  const skipsPerRun = measured.map((r) => Object.values(r.footprint!.totals.phasesSkipped).reduce((a, b) => a + b, 0));
  const measuredPhases = average(skipsPerRun);
  const consumption =
    measuredPhases === null
      ? { runs: 0, phasesPerNight: DESIGN_PHASES_PER_NIGHT, source: 'design' as const }
      : { runs: measured.length, phasesPerNight: Math.round(measuredPhases * 10) / 10, source: 'history' as const };
  const phasesLeft = triggers.reduce((n, t) => n + t.phasesLeft, 0);
  const pauses = triggers.every((t) => t.pausesLeft !== null) ? triggers.reduce((n, t) => n + (t.pausesLeft ?? 0), 0) : null;
  const byPhases = consumption.phasesPerNight > 0 ? Math.floor(phasesLeft / consumption.phasesPerNight) : null;
  // A night's unpause check needs a trigger that is paused, or becomes so as a phase is skipped.
  const nightsLeft = byPhases === null ? null : pauses === null ? byPhases : Math.min(byPhases, pauses);
  if (manifest.triggers.length && nightsLeft !== null && nightsLeft <= WARN_NIGHTS)
    warnings.push(
      nightsLeft === 0
        ? 'the manifest has run out of trigger phases: the next run cannot check skip and unpause (INCOMPLETE); add triggers with phases to the manifest'
        : `the manifest's triggers last about ${nightsLeft} more night${nightsLeft === 1 ? '' : 's'}, this one included (${phasesLeft} phases and ${pauses ?? '?'} pauses left, ${consumption.phasesPerNight} phases a night): add triggers with phases to the manifest`,
    );

  const gates: GateCheck[] = manifest.gates.map((id) => {
    const last = seen.gates[id];
    const added = measured.map((r) => r.footprint!.totals.rulesAdded[id] ?? 0);
    return { id, rules: last?.rules ?? null, seenAt: last?.at ?? null, addedPerNight: average(added) };
  });
  const created = average(measured.map((r) => r.footprint!.totals.metricsCreated));
  const owner = manifest.metricOwner
    ? 'named in the manifest (metricOwner): not checkable without a write (the spec has no user read)'
    : 'not named: updates send the owner the target gave each metric';

  return {
    format: 'console-conformance.target-check/1',
    target: c.baseUrl,
    manifest: manifestPath,
    checkedAt: new Date().toISOString(),
    problems,
    warnings,
    experiments: expChecks,
    experimentsComplete: experiments.complete,
    triggers,
    gates,
    metrics: { createdPerNight: created, owner },
    consumption,
    nightsLeft,
  };
}

/** The check as lines for a terminal: resources, what is left, and how many nights that is. */
export function describeCheck(r: ManifestCheck): string[] {
  const out = [`manifest:check ${r.target} with ${r.manifest}`];
  out.push(`  experiments: ${r.experiments.filter((e) => e.found).length} of ${r.experiments.length} in the list`);
  for (const e of r.experiments)
    out.push(
      `  experiment ${e.id}: overrides ${e.overrides === 'suite' ? "the suite's to overwrite (manifest): checked, never given back" : 'not written: the overrides checks that need it are left unchecked'}`,
    );
  for (const t of r.triggers)
    out.push(
      `  trigger ${t.id}: ${t.pipelineFound ? `${t.phasesLeft} phases left, ${t.pausesLeft ?? '?'} pauses` : 'pipeline not listed'}${t.current ? ` (last seen at ${t.current}, ${t.status ?? 'status not shown'})` : ' (no run seen it yet: counted from its first phase)'}`,
    );
  for (const g of r.gates)
    out.push(
      `  gate ${g.id}: ${g.rules === null ? 'rules not known yet (the spec has no gate read: the first run tells)' : `${g.rules} rules at its last answer (${g.seenAt})`}${g.addedPerNight !== null ? `, about ${g.addedPerNight.toFixed(1)} added a night` : ''}`,
    );
  out.push(
    `  metrics: ${r.metrics.createdPerNight !== null ? `about ${r.metrics.createdPerNight.toFixed(1)} created a night` : 'none created yet'}; owner ${r.metrics.owner}`,
  );
  out.push(
    `  consumption: ${r.consumption.phasesPerNight} trigger phases a night (${r.consumption.source === 'history' ? `measured over the last ${r.consumption.runs} runs` : "the suite's design: no run in the history yet"})`,
  );
  out.push(`  nights left: ${r.nightsLeft === null ? 'not bounded (nothing consumes the triggers)' : r.nightsLeft}`);
  for (const p of r.problems) out.push(`PROBLEM ${p}`);
  for (const w of r.warnings) out.push(`WARNING ${w}`);
  return out;
}
