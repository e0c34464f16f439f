// Mutation load profile: creates and updates metrics (a share with dryRun), adds gate rules,
// disables and enables gates, patches overrides (some with 1000 items, the spec's limit), skips and
// unpauses triggers, touching only what the target manifest names (docs/architecture.md, "Target manifest").
// Run it with `npm run load:mutation -- --profile smoke|baseline|stress`.
import { readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import type { Envelope, Gate, Metric, OverridesBody, Override, TriggerBody } from './lib/bodies.ts';
import { CALIBRATION_ENDPOINT as CALIBRATION } from '../core/formats.ts';
import { calibrationScenario } from './lib/calibration.ts';
import { answered, checkSuccess, checkThat, succeeded, transportReason } from './lib/checks.ts';
import { DATA_DIR, GATE_RULES_AT_START, type ProfileName, STRICT } from './lib/env.ts';
import { ANY_STATUS, callCandidate, callPair, type Expected, parsedBody, type Response, type SideRequest, SUCCESS_OR_REFUSED } from './lib/http.ts';
import { calibration } from './lib/calibration.ts';
import type { Profile } from './lib/profile.ts';
import { byProfile, ownArrivals, type ProfileScenario, SHARED } from './lib/profiles.ts';
import { count, gateHeld, wrote, wroteMetric } from './lib/runtime.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { candidateBody, candidateIds, type SidePlan } from './lib/sides.ts';
import type { Side } from '../core/formats.ts';
import type { Budget, RunManifest, ManifestTrigger } from '../core/manifest.ts';
import { abort, checkTarget } from './lib/reachability.ts';
import { endpointThresholds, type Limits, type Thresholds, verdictThresholds } from './lib/thresholds.ts';

// Written by fixtures/generate.ts (seeded faker bodies, checked against the request schemas).
/** What the profile may touch (core/manifest.ts), as fixtures/generate.ts writes it into mutation.json. */
type Manifest = Pick<RunManifest, 'gates' | 'experiments' | 'triggers' | 'metricPrefix'>;
interface MetricCreate {
  name: string;
  type: string;
  [field: string]: unknown;
}
interface MetricUpdate {
  description: string;
  directionality: string;
  [field: string]: unknown;
}
interface RulesBody {
  rules: { name: string }[];
}
interface OverridesPatch {
  overrides: Override[];
  userIDOverrides: unknown[];
}
interface Run {
  runId: string;
  manifest: Manifest;
  budget: Budget | null;
  /** The longest metric name the contract allows (4.6, 8), written by fixtures/generate.ts from it. */
  nameMaxLength: number;
  creates: MetricCreate[];
  updates: MetricUpdate[];
  rules: RulesBody[];
  overrides: OverridesPatch[];
  overrides1000: OverridesPatch[];
  /**
   * A paired run (`candidate --latency --writes`): both sides' manifests paired by position
   * (load/lib/sides.ts); `manifest` is then the current's part of the plan, and every write goes to
   * the candidate too, with the candidate's ids, names and owner.
   */
  pair?: SidePlan;
}
type Bodies = Omit<Run, 'runId' | 'manifest' | 'budget' | 'nameMaxLength'>;
// Read once per worker, when the profile is first loaded.
const RUN = JSON.parse(readFileSync(`${DATA_DIR}/mutation.json`, 'utf8')) as Run;
const M = RUN.manifest;
const BUDGET = RUN.budget;
const CREATES: Bodies['creates'] = RUN.creates;
const UPDATES: Bodies['updates'] = RUN.updates;
const RULES: Bodies['rules'] = RUN.rules;
const OVERRIDES: Bodies['overrides'] = RUN.overrides;
const OVERRIDES_1000: Bodies['overrides1000'] = RUN.overrides1000;
const PAIR = RUN.pair;
const IDS = PAIR ? candidateIds(PAIR) : new Map<string, string>();
/** The candidate's copy of a body made for the current (its ids, its metric prefix, its owner). */
const forCandidate = <T>(body: T): T => (PAIR ? candidateBody(body, PAIR, RUN.runId, IDS) : body);
// Translated once per worker: the 1000-item patches are the largest bodies of the run.
const CANDIDATE_BODIES: Pick<Bodies, 'creates' | 'updates' | 'overrides' | 'overrides1000'> | undefined = PAIR
  ? {
      creates: CREATES.map(forCandidate),
      updates: UPDATES.map(forCandidate),
      overrides: OVERRIDES.map(forCandidate),
      overrides1000: OVERRIDES_1000.map(forCandidate),
    }
  : undefined;
/** The candidate's id at the place of a current manifest id. */
const candidateId = (id: string) => IDS.get(id) ?? id;
/** The candidate's request beside the current's: none when the run is not paired, or the candidate has no counterpart (`path` undefined). */
const onCandidate = (path: string | undefined, body?: unknown): SideRequest | null => (PAIR && path !== undefined ? { path, body } : null);
const is2xx = (r: Response | undefined) => r !== undefined && r.status >= 200 && r.status < 300;
/** The `data` of an answer the profile does not check (the candidate's): undefined when it is not JSON. */
function dataOf<T>(r: Response | undefined): T | undefined {
  try {
    return r ? (parsedBody(r) as Envelope<T> | undefined)?.data : undefined;
  } catch {
    return undefined;
  }
}

const triggersCompleted = 'mutation_triggers_completed';
const triggersUnusable = 'mutation_triggers_unusable';
// A phase refused with a 4xx: not the trigger's current one (the reference answers 409, hence the name).
const triggerConflicts = 'mutation_trigger_conflicts';
const overridesNotTested = 'mutation_overrides_not_tested';
const metricsCreated = 'mutation_metrics_created';
// A gate holding this many rules may refuse more: real servers cap a gate's rules (a resource the
// target refuses, not a contract violation: load/command/outcome.ts makes it exit 3, never 1).
const FULL_AT = 20;
const gatesRefusingRules = 'mutation_gates_refusing_rules';
/** Rules each gate held at its last answer: the snapshot before the run (load/command/prepare.ts), then this VU's answers. */
const heldRules: Record<string, number> = { ...GATE_RULES_AT_START };
const refusing: Record<string, true> = {};

// The candidate's unexpected answers beside the profile's own counters (its answers are never checked:
// the contract compare judges its behaviour).
const candidateTriggerConflicts = 'mutation_candidate_trigger_conflicts';
const PHASES = M.triggers.reduce((n, t) => n + t.phaseIDs.length, 0);
// Each phase takes a skip and perhaps an unpause, plus the refused probes of an unknown start phase.
const TRIGGER_OPS = Math.max(1, PHASES * 3);

interface MutationProfile {
  /** The mix of jobs, by weight, at the rate of the profile's shape file (load/shapes/mutation.<profile>.yml). */
  mix: { metrics: number; gates: number; overrides: number };
  /** Multiplies every latency limit (ms) written below as the smoke figure. */
  latencyScale: number;
}

const PROFILE_TABLE: Record<ProfileName, MutationProfile> = {
  smoke: { mix: { metrics: 2, gates: 1, overrides: 1 }, latencyScale: 1 },
  baseline: { mix: { metrics: 5, gates: 2, overrides: 3 }, latencyScale: 0.6 },
  stress: { mix: { metrics: 5, gates: 2, overrides: 3 }, latencyScale: 3 },
};
const P = byProfile(PROFILE_TABLE);
const limits = (p95: number, p99: number): Limits => ({ p95: p95 * P.latencyScale, p99: p99 * P.latencyScale });

// A manifest without gates, experiments or triggers leaves that scenario out, and so does a budget of no trigger phases.
// The shape file's rate is the whole mix's: a scenario left out takes its share with it.
const own = ownArrivals('mutation', Object.fromEntries(Object.entries(P.mix).map(([exec, weight]) => [exec, { exec, weight }])), 1);
const scenarios: Record<string, ProfileScenario> = { metrics: own.scenarios.metrics };
if (M.gates.length) scenarios.gates = own.scenarios.gates;
if (M.experiments.length) scenarios.overrides = own.scenarios.overrides;
// One VU owns every trigger: trigger state is tracked from responses, and two VUs racing on one
// trigger would only turn its skips into 409s.
if (M.triggers.length && (BUDGET === null || BUDGET.triggerPhasesPerRun > 0))
  scenarios.triggers = { kind: 'sequence', exec: 'triggers', iterations: TRIGGER_OPS };
scenarios[CALIBRATION] = calibrationScenario(own.seconds);

/** The latency limits (ms) of each endpoint the profile times: every one is in the summary, with its count (0 when none ran). */
const endpointLimits: Record<string, Limits> = {
  createMetric: limits(500, 1000),
  'createMetric.dryRun': limits(500, 1000),
  updateMetric: limits(500, 1000),
  'updateMetric.dryRun': limits(500, 1000),
  'updateMetric.readBack': limits(500, 1000),
  addGateRules: limits(500, 1000),
  disableGate: limits(500, 1000),
  enableGate: limits(500, 1000),
  patchExperimentOverrides: limits(500, 1000),
  'patchExperimentOverrides.1000': limits(1000, 2000),
  skipTriggerPhase: limits(500, 1000),
  unpauseTrigger: limits(500, 1000),
  [CALIBRATION]: limits(300, 600),
};

const thresholds: Thresholds = {
  http_req_failed: [{ stat: 'rate', op: '<', value: 0.01 }],
  ...verdictThresholds(SHARED.checks, STRICT, SHARED.maxEndpointErrorRate),
  ...endpointThresholds(endpointLimits, SHARED.maxEndpointErrorRate),
};

interface Setup {
  /** False when the target refuses the suite's override patch (then overrides are left alone, with a note). */
  overrides: boolean;
}

async function setup(): Promise<Setup> {
  await checkTarget();
  // The longer prefix of the two sides bounds the names (a paired run names each side's metrics with its own).
  const prefix = [M.metricPrefix, PAIR?.candidate.metricPrefix ?? ''].reduce((a, b) => (b.length > a.length ? b : a));
  const longest = `${prefix}${RUN.runId}_${9_999_999}t${999}_${999999}`;
  if (longest.length > RUN.nameMaxLength) abort(`metric names would exceed ${RUN.nameMaxLength} characters (spec 8): ${longest.length}`);
  return { overrides: M.experiments.length > 0 && (await overridesTaken()) };
}

/**
 * One override patch of the run's bodies, to the first manifest experiment: a target may refuse
 * groupIDs that are not groups of its experiment (spec 4.11: which item values are taken is not
 * shown), and then the overrides load would measure refusals. The conformance suite says "not
 * verifiable" for the same reason; here the overrides scenario is left out, with a note. In a paired
 * run both sides are asked, and a refusal by either leaves it out on both: a pair must be the same work.
 */
async function overridesTaken(): Promise<boolean> {
  const exp = M.experiments[0];
  const path = (id: string) => `/console/v1/experiments/${encodeURIComponent(id)}/overrides`;
  const res = (await callPair('PATCH', { path: path(exp), body: OVERRIDES[0] }, null, { endpoint: 'setup', expected: ANY_STATUS })).current;
  const network = transportReason(res);
  if (network) abort(`patch overrides of ${exp}: no usable answer: ${network}`);
  const there = CANDIDATE_BODIES
    ? await callCandidate('PATCH', { path: path(candidateId(exp)), body: CANDIDATE_BODIES.overrides[0] }, { endpoint: 'setup', expected: ANY_STATUS })
    : undefined;
  const refused = (r: Response) => r.status >= 400 && r.status < 500;
  // The probe is a write like any other: each side's ledger counts it.
  if (is2xx(res)) wrote('current', 'overridePatches', exp);
  if (is2xx(there)) wrote('candidate', 'overridePatches', candidateId(exp));
  if (!refused(res) && !(there && (refused(there) || transportReason(there)))) return true;
  count(overridesNotTested, 1);
  const who = refused(res)
    ? `the target refuses the suite's override patch of ${exp} (HTTP ${res.status})`
    : `the candidate refuses the suite's override patch of ${candidateId(exp)} (${there?.status ? `HTTP ${there.status}` : transportReason(there as Response)})`;
  console.warn(
    `setup: ${who}: overrides are not load-tested${PAIR ? ' on either side' : ''}; ` +
      "name groups of the manifest's experiments in its overrideGroupIDs (default control, test)",
  );
  return false;
}

let created = 0;
/** Metrics this VU created (the current's id, and the candidate's when its create took), for the iterations past the budget to update. */
const mine: { id: string; candidateId?: string }[] = [];
const copy = <T>(o: T): T => JSON.parse(JSON.stringify(o));

/** This worker, among every worker of every runner on this machine: its process and thread. */
const WORKER = `${process.pid}t${threadId}`;
const METRICS = '/console/v1/metrics';

async function metrics(_s: Setup, i: number): Promise<void> {
  // <metricPrefix><runId>_<worker>_<n>: the prefix marks what the suite made; the run id keeps two runs apart.
  const n = created++;
  const name = `${M.metricPrefix}${RUN.runId}_${WORKER}_${n}`;
  const body = copy(CREATES[i % CREATES.length]);
  body.name = name;
  const candidateName = PAIR ? `${PAIR.candidate.metricPrefix}${RUN.runId}_${WORKER}_${n}` : '';
  const there = CANDIDATE_BODIES ? { ...copy(CANDIDATE_BODIES.creates[i % CREATES.length]), name: candidateName } : undefined;
  const dryRun = () =>
    callPair('POST', { path: METRICS, body: { ...body, dryRun: true } }, onCandidate(there && METRICS, { ...there, dryRun: true }), {
      endpoint: 'createMetric.dryRun',
    });
  // Past the run's budget of metrics (a target's metrics stay: there is no delete), an iteration creates
  // nothing: a dry run of the create, then the update path on a metric this VU created before, if any.
  if (BUDGET !== null && i >= BUDGET.metricsPerRun) {
    checkSuccess<Envelope<Metric>>('createMetric', 'createMetric.dryRun', (await dryRun()).current);
    if (mine.length > 0) await updatePath(i, mine[i % mine.length]);
    return;
  }
  const sampled = i % 5 === 0;
  // A dry run first (what it answers is not shown, 4.6: only its status, envelope and types are checked).
  if (sampled) checkSuccess<Envelope<Metric>>('createMetric', 'createMetric.dryRun', (await dryRun()).current);
  const answers = await callPair('POST', { path: METRICS, body }, onCandidate(there && METRICS, there), { endpoint: 'createMetric' });
  const sent = answers.current;
  const res = checkSuccess<Envelope<Metric>>('createMetric', 'createMetric', sent);
  // The real create of the dry run's name succeeds: the dry run left nothing behind (as the suite's writes.dryRunNoChange).
  if (sampled && answered('createMetric', sent))
    checkThat(
      'createMetric.dryRun',
      'a dry run persisted nothing: the real create of its name succeeds',
      succeeded('createMetric', sent.status),
      'writes.dryRunNoChange',
    );
  if (is2xx(sent)) wroteMetric('current', 'metricsCreated');
  // The candidate's metric is known by its own answer (its id shape is the contract compare's to judge);
  // one it refused is not updated there: those updates go to the current alone.
  const theirs = is2xx(answers.candidate) ? (dataOf<Metric>(answers.candidate)?.id ?? `${candidateName}::${body.type}`) : undefined;
  if (theirs !== undefined) wroteMetric('candidate', 'metricsCreated');
  if (!res) return;
  count(metricsCreated, 1);
  const expectedId = `${name}::${body.type}`;
  if (res.data.id !== undefined)
    checkThat('createMetric', 'id is the name and the type joined by a double colon (spec 2.8)', res.data.id === expectedId, 'metric.id.shape');
  const made = { id: res.data.id ?? expectedId, candidateId: theirs };
  mine.push(made);
  await updatePath(i, made);
}

/**
 * The description writes (not dry runs) this worker sent to each metric, in the order of one clock
 * (the worker's events, which its single thread orders): what a read-back may show. Past the run's
 * budget several arrivals of a worker update the same metric at once, and another arrival's update can
 * land between this arrival's update and its read-back; a check that expected this arrival's own
 * description would then fail a correct server for the generator's own race. A metric is only ever
 * written by the worker that created it (its name carries the worker), so this history is all of it.
 */
interface DescriptionWrite {
  description: string;
  sent: number;
  answered?: number;
}
const descriptionWrites = new Map<string, { writes: DescriptionWrite[]; open: number }>();
let clock = 0;

/**
 * The descriptions a read-back answered at `answeredAt` may show after an update of this arrival sent
 * at `ownSent`: its own, and any other write to the metric not finished before it was sent (the server
 * may have applied it after this arrival's) and sent before the read-back answered. Dry runs are in none.
 */
export function possibleDescriptions(writes: DescriptionWrite[], ownSent: number, answeredAt: number): Set<string> {
  return new Set(writes.filter((w) => w.sent < answeredAt && (w.answered === undefined || w.answered > ownSent)).map((w) => w.description));
}

/** Update, and every other time the read-back: a dry run, then a write that changes nothing, which answers the metric as stored. */
async function updatePath(i: number, metric: { id: string; candidateId?: string }): Promise<void> {
  const path = `${METRICS}/${encodeURIComponent(metric.id)}`;
  const theirPath = metric.candidateId === undefined ? undefined : `${METRICS}/${encodeURIComponent(metric.candidateId)}`;
  const update = UPDATES[i % UPDATES.length];
  const theirUpdate = CANDIDATE_BODIES?.updates[i % UPDATES.length];
  /** One update sent to both sides (the candidate's body given, or the current's as it is), each side's writes counted. */
  const post = async (endpoint: string, body: object, theirBody: object = body, counted = false) => {
    const a = await callPair('POST', { path, body }, onCandidate(theirPath, theirBody), { endpoint });
    if (counted && is2xx(a.current)) wroteMetric('current', 'metricsUpdated');
    if (counted && is2xx(a.candidate)) wroteMetric('candidate', 'metricsUpdated');
    return a.current;
  };
  let history = descriptionWrites.get(metric.id);
  if (!history) {
    history = { writes: [], open: 0 };
    descriptionWrites.set(metric.id, history);
  }
  // Written down before it is sent, and kept whatever it answers: an update whose answer was lost may have taken.
  const own: DescriptionWrite = { description: update.description, sent: ++clock };
  history.writes.push(own);
  history.open++;
  try {
    const updateRes = await post('updateMetric', update, theirUpdate, true);
    own.answered = ++clock;
    const upd = checkSuccess<Envelope<Metric>>('updateMetric', 'updateMetric', updateRes);
    if (upd && upd.data.description !== undefined)
      checkThat('updateMetric', 'update answers the new description (spec 4.7)', upd.data.description === update.description, 'metrics.update.applies');
    if (!upd || i % 2 !== 0) return;
    // Read-back: a dry run with another description, then a write that changes nothing (the directionality
    // the update set), which answers the metric as stored (there is no read, spec 4): the update took, the
    // dry run did not (4.7). A second dry run with no change stays between them, unjudged (what a dry run
    // answers is not shown), so that the request mix, and the baselines recorded with it, stay as before.
    const dry = await post('updateMetric.dryRun', { description: `${update.description} (dry run)`, dryRun: true });
    if (!checkSuccess<Envelope<Metric>>('updateMetric', 'updateMetric.dryRun', dry)) return;
    checkSuccess<Envelope<Metric>>('updateMetric', 'updateMetric.dryRun', await post('updateMetric.dryRun', { dryRun: true }));
    const readBack = await post('updateMetric.readBack', { directionality: update.directionality }, undefined, true);
    const answeredAt = ++clock;
    const after = checkSuccess<Envelope<Metric>>('updateMetric', 'updateMetric.readBack', readBack);
    // This arrival's description, or one of a concurrent update of the same metric: never a dry run's, never one this arrival's update replaced.
    if (after && after.data.description !== undefined)
      checkThat(
        'updateMetric.readBack',
        'the update persisted and the dry run did not (spec 4.7)',
        possibleDescriptions(history.writes, own.sent, answeredAt).has(after.data.description),
        'metrics.update.dryRun',
      );
  } finally {
    // With no update of the metric under way, every write so far is replaced by the next one's: forget them.
    if (--history.open === 0) history.writes = [];
  }
}

async function gates(_s: Setup, i: number): Promise<void> {
  const gate = M.gates[i % M.gates.length];
  const theirs = candidateId(gate);
  const path = `/console/v1/gates/${encodeURIComponent(gate)}`;
  const theirPath = `/console/v1/gates/${encodeURIComponent(theirs)}`;
  // Within the budget (rules stay: there is no delete) one rule per add, past it an add of none: the
  // same request to the same endpoint, which answers the gate as well (4.1).
  const round = Math.floor(i / M.gates.length);
  const body: RulesBody =
    BUDGET === null ? RULES[i % RULES.length] : { rules: round < BUDGET.rulesPerGatePerRun ? RULES[i % RULES.length].rules.slice(0, 1) : [] };
  const add = await callPair('POST', { path: `${path}/rules`, body }, onCandidate(`${theirPath}/rules`, forCandidate(body)), { endpoint: 'addGateRules' });
  const addRes = add.current;
  const added = checkSuccess<Envelope<Gate>>('addGateRules', 'addGateRules', addRes);
  for (const [side, r, id] of [
    ['current', addRes, gate],
    ['candidate', add.candidate, theirs],
  ] as const) {
    if (!is2xx(r)) continue;
    wrote(side, 'ruleWrites', id);
    wrote(side, 'rulesAdded', id, body.rules.length);
    const held = dataOf<Gate>(r)?.rules;
    if (Array.isArray(held)) gateHeld(side, id, held.length);
  }
  if (added) {
    // "data is the Gate including its rules" (4.1); kept or replaced is not shown, the rules sent are there either way.
    const names: Record<string, true> = {};
    for (const r of added.data.rules ?? []) names[r.name] = true;
    checkThat(
      'addGateRules',
      'the gate returned holds every rule sent (spec 4.1)',
      body.rules.every((r) => names[r.name]),
      'gates.addRules.response.gate',
    );
  }
  // The gate's id is a listed field (its presence only inferred, docs/presence.md): compared when present.
  const isGate = (g: Gate) => g.id === undefined || g.id === gate;
  const toggle = async (to: 'disable' | 'enable') => {
    const a = await callPair('PUT', { path: `${path}/${to}` }, onCandidate(`${theirPath}/${to}`), { endpoint: `${to}Gate` });
    if (is2xx(a.current)) wrote('current', 'gateToggles', gate);
    if (is2xx(a.candidate)) wrote('candidate', 'gateToggles', theirs);
    return a.current;
  };
  const off = checkSuccess<Envelope<Gate>>('disableGate', 'disableGate', await toggle('disable'));
  if (off)
    checkThat(
      'disableGate',
      'the gate returned has isEnabled false (spec 4.2)',
      off.data.isEnabled === false && isGate(off.data),
      'gates.disable.response.isEnabled',
    );
  // The state after enable is not shown (spec 3): the response is checked against its schema only.
  const on = checkSuccess<Envelope<Gate>>('enableGate', 'enableGate', await toggle('enable'));
  if (on) checkThat('enableGate', 'the gate returned is the one enabled (spec 4.3)', isGate(on.data), 'gates.enableDisable.rules');
}

async function overrides(s: Setup, i: number): Promise<void> {
  if (!s.overrides) return;
  const big = i % 4 === 3;
  const endpoint = big ? 'patchExperimentOverrides.1000' : 'patchExperimentOverrides';
  const k = big ? i % OVERRIDES_1000.length : i % OVERRIDES.length;
  const body = big ? OVERRIDES_1000[k] : OVERRIDES[k];
  const theirBody = CANDIDATE_BODIES && (big ? CANDIDATE_BODIES.overrides1000[k] : CANDIDATE_BODIES.overrides[k]);
  const exp = M.experiments[i % M.experiments.length];
  const path = (id: string) => `/console/v1/experiments/${encodeURIComponent(id)}/overrides`;
  const answers = await callPair('PATCH', { path: path(exp), body }, onCandidate(path(candidateId(exp)), theirBody), { endpoint });
  const patched = answers.current;
  if (is2xx(patched)) wrote('current', 'overridePatches', exp);
  if (is2xx(answers.candidate)) wrote('candidate', 'overridePatches', candidateId(exp));
  const res = checkSuccess<OverridesBody>('patchExperimentOverrides', endpoint, patched);
  if (!res) return;
  // The envelope or the spec example's top-level arrays (4.11). Merged or replaced, in what order, and
  // whether one override is kept per target (type, id, environment) are not shown: for each target
  // sent, the last item sent for it is among the resulting overrides under any of them.
  const result = 'data' in res ? res.data : res;
  const held: Record<string, true> = {};
  for (const o of result?.overrides ?? []) held[JSON.stringify([o?.type, o?.id, o?.environment ?? null, o?.groupID])] = true;
  const last: Record<string, string> = {};
  for (const o of body.overrides)
    last[JSON.stringify([o.type, o.id, o.environment ?? null])] = JSON.stringify([o.type, o.id, o.environment ?? null, o.groupID]);
  checkThat(
    endpoint,
    'the resulting overrides hold the last item sent for each target (spec 4.11)',
    Object.keys(last).every((target) => held[last[target]]),
    'overrides.patch.persisted',
  );
}

// Trigger state as last observed (reference: docs/development.md, "triggers"); an unknown start
// phase is found by trying the manifest's phases in order, a 4xx meaning "not the current one". A
// paired run keeps each side's state apart: each side's triggers move by that side's answers.
interface TriggerState {
  idx: number;
  paused: boolean;
  done: boolean;
  /** Phases this run skipped. */
  skips: number;
}
const TRIGGERS: Record<Side, ManifestTrigger[]> = { current: M.triggers, candidate: PAIR?.candidate.triggers ?? [] };
const newStates = (ts: ManifestTrigger[]): TriggerState[] => ts.map(() => ({ idx: 0, paused: false, done: false, skips: 0 }));
const states: Record<Side, TriggerState[]> = { current: newStates(TRIGGERS.current), candidate: newStates(TRIGGERS.candidate) };
// Phases are finite on a real target (there is no operation to reset a trigger): against one, a run
// skips at most the budget's phases in all (the manifest's budget.triggerPhasesPerRun, default none),
// so that the conformance suite and the next nights still find phases to skip. A reference server
// started for the run is new each time: no bound. In a paired run each side keeps the (paired) budget.
const PHASE_BUDGET = BUDGET === null ? Number.POSITIVE_INFINITY : BUDGET.triggerPhasesPerRun;
const skipped: Record<Side, number> = { current: 0, candidate: 0 };
let turn = 0;

/** Whether a side still has work on trigger k: not done, and its budget not spent. */
const live = (side: Side, k: number) => k < states[side].length && !states[side][k].done && skipped[side] < PHASE_BUDGET;

type TriggerOp = 'skipTriggerPhase' | 'unpauseTrigger';

/** The clause an answer of each trigger operation is held to: `data` is the trigger (4.9, 4.10). */
const TRIGGER_RESPONSE: Record<TriggerOp, string> = { skipTriggerPhase: 'triggers.skip.response', unpauseTrigger: 'triggers.unpause.response' };

/** The request a side sends next for trigger k: unpause a paused trigger, else skip its current phase. */
function nextRequest(side: Side, k: number): { op: TriggerOp; req: SideRequest } {
  const t = TRIGGERS[side][k];
  const s = states[side][k];
  const op = s.paused ? 'unpauseTrigger' : 'skipTriggerPhase';
  return {
    op,
    req: { path: `/console/v1/release_pipeline_triggers/${encodeURIComponent(t.id)}/${s.paused ? 'unpause' : 'skip'}`, body: { phaseID: t.phaseIDs[s.idx] } },
  };
}

async function triggers(): Promise<void> {
  const open = TRIGGERS.current.map((_, k) => k).filter((k) => live('current', k) || live('candidate', k));
  if (open.length === 0) return; // every trigger completed, or the budget spent: the remaining iterations end at once
  const k = open[turn++ % open.length];
  const mineNext = live('current', k) ? nextRequest('current', k) : undefined;
  const theirNext = PAIR && live('candidate', k) ? nextRequest('candidate', k) : undefined;
  const expected: Expected = SUCCESS_OR_REFUSED;
  // A pair only when both sides send the same operation: an unpause beside a skip is not the same work.
  if (mineNext && theirNext && mineNext.op === theirNext.op) {
    const a = await callPair('PUT', mineNext.req, theirNext.req, { endpoint: mineNext.op, expected });
    followTrigger('current', k, mineNext.op, a.current);
    if (a.candidate) followTrigger('candidate', k, theirNext.op, a.candidate);
  } else {
    if (mineNext) followTrigger('current', k, mineNext.op, (await callPair('PUT', mineNext.req, null, { endpoint: mineNext.op, expected })).current);
    if (theirNext) followTrigger('candidate', k, theirNext.op, await callCandidate('PUT', theirNext.req, { endpoint: theirNext.op, expected }));
  }
  // Spread the trigger work over the run instead of finishing every trigger in its first second.
  await sleep((own.seconds / TRIGGER_OPS) * 1000);
}

/** Moves one side's trigger k by its answer; only the current's answers are checked. */
function followTrigger(side: Side, k: number, op: TriggerOp, res: Response): void {
  const t = TRIGGERS[side][k];
  const s = states[side][k];
  const checked = side === 'current';
  if (checked ? !answered(op, res) : transportReason(res) !== undefined) {
    // The answer was lost: the trigger may have moved on. Leave it, rather than guess its phase.
    s.done = true;
  } else if (res.status >= 400 && res.status < 500) {
    // Not the current phase, or a trigger that is done. Error bodies and codes are not shown (spec 7).
    count(checked ? triggerConflicts : candidateTriggerConflicts, 1);
    if (s.paused) {
      s.paused = false; // someone else unpaused it: try skipping the same phase
    } else if (++s.idx >= t.phaseIDs.length) {
      // Completed before this run, or in a phase the manifest does not list: move on, and count it.
      s.done = true;
      if (checked) count(triggersUnusable, 1);
    }
  } else {
    const d = checked ? checkSuccess<Envelope<TriggerBody>>(op, op, res)?.data : res.status < 300 ? dataOf<TriggerBody>(res) : undefined;
    if (!d) {
      s.done = true; // an unexpected answer: stop touching this trigger (the current's failed check is counted)
      return;
    }
    // id and releasePipelineID are listed fields (presence inferred, docs/presence.md): compared when present.
    if (checked)
      checkThat(
        op,
        'the trigger returned is the one named (spec 4.9, 4.10)',
        (d.id === undefined || d.id === t.id) && (d.releasePipelineID === undefined || d.releasePipelineID === t.releasePipelineID),
        TRIGGER_RESPONSE[op],
      );
    // Status names and the effect of skip and unpause are not shown (spec 2.7, 3): they only steer
    // which phase to try next, as the reference names them; another target's triggers simply end
    // sooner (a 4xx on every phase).
    if (op === 'skipTriggerPhase') {
      skipped[side]++;
      s.skips++;
      wrote(side, 'phasesSkipped', t.id);
    } else wrote(side, 'unpaused', t.id);
    if (d.status === 'COMPLETED') {
      s.done = true;
      if (checked) count(triggersCompleted, 1);
    } else {
      const at = typeof d.currentPhaseID === 'string' ? t.phaseIDs.indexOf(d.currentPhaseID) : -1;
      if (at >= 0) s.idx = at;
      s.paused = d.status === 'PAUSED';
    }
  }
}

export const mutation: Profile<Setup> = {
  name: 'mutation',
  scenarios,
  thresholds,
  endpoints: Object.keys(endpointLimits),
  setup,
  jobs: { metrics, gates, overrides, triggers, calibration },
};
