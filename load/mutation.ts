// k6 mutation profile : creates and updates metrics (a share with dryRun), adds gate rules,
// disables and enables gates, patches overrides (some with 1000 items, the spec's limit), skips and
// unpauses triggers, touching only what the target manifest names (docs/architecture.md, "Target manifest").
// Run it with `npm run load:mutation -- --profile smoke|baseline|stress`.
import { sleep } from 'k6';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import type { Options, Scenario } from 'k6/options';
import type { Envelope, Gate, Metric, OverridesBody, Override, TriggerBody } from './lib/bodies.ts';
import { CALIBRATION, calibrationScenario } from './lib/calibration.ts';
import { checkSuccess, checkThat, parse } from './lib/checks.ts';
import { DATA_DIR, type ProfileName } from './lib/env.ts';
import { call, SUCCESS_OR_CONFLICT } from './lib/http.ts';
import { arrival, byProfile, SHARED, type Shape } from './lib/profiles.ts';
import { makeHandleSummary } from './lib/summary.ts';
import { abort, checkTarget } from './lib/target.ts';
import { endpointThresholds, type Limits, TREND_STATS } from './lib/thresholds.ts';

export { calibration } from './lib/calibration.ts';

// Written by fixtures/generate.ts (seeded faker bodies, checked against the request schemas).
interface Trigger {
  id: string;
  releasePipelineID: string;
  phaseIDs: string[];
}
interface Manifest {
  gates: string[];
  experiments: string[];
  triggers: Trigger[];
  metricPrefix: string;
}
interface MetricCreate {
  name: string;
  type: string;
  [field: string]: unknown;
}
interface MetricUpdate {
  description: string;
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
  creates: MetricCreate[];
  updates: MetricUpdate[];
  rules: RulesBody[];
  overrides: OverridesPatch[];
  overrides1000: OverridesPatch[];
}
type Bodies = Omit<Run, 'runId' | 'manifest'>;
// The manifest and run id are small and read once; the bodies are shared between VUs (SharedArray).
const RUN = JSON.parse(open(`${DATA_DIR}/mutation.json`)) as Pick<Run, 'runId' | 'manifest'>;
const M = RUN.manifest;
const shared = <K extends keyof Bodies>(key: K): Bodies[K][number][] =>
  new SharedArray<Bodies[K][number]>(key, () => (JSON.parse(open(`${DATA_DIR}/mutation.json`)) as Bodies)[key]);
const CREATES = shared('creates');
const UPDATES = shared('updates');
const RULES = shared('rules');
const OVERRIDES = shared('overrides');
const OVERRIDES_1000 = shared('overrides1000');

const triggersCompleted = new Counter('mutation_triggers_completed');
const triggersUnusable = new Counter('mutation_triggers_unusable');
const triggerConflicts = new Counter('mutation_trigger_conflicts');
const metricsCreated = new Counter('mutation_metrics_created');

const PHASES = M.triggers.reduce((n, t) => n + t.phaseIDs.length, 0);
// Each phase takes a skip and perhaps an unpause, plus the 409 probes of an unknown start phase.
const TRIGGER_OPS = Math.max(1, PHASES * 3);

interface MutationProfile {
  metrics: Shape;
  gates: Shape;
  overrides: Shape;
  /** Multiplies every latency limit (ms) written below as the smoke figure. */
  latencyScale: number;
}

const PROFILE_TABLE: Record<ProfileName, MutationProfile> = {
  smoke: { metrics: { rate: 4, maxVUs: 4 }, gates: { rate: 2, maxVUs: 3 }, overrides: { rate: 2, maxVUs: 3 }, latencyScale: 1 },
  baseline: { metrics: { rate: 5, maxVUs: 10 }, gates: { rate: 2, maxVUs: 6 }, overrides: { rate: 3, maxVUs: 6 }, latencyScale: 0.6 },
  stress: { metrics: { rate: 5, maxVUs: 40 }, gates: { rate: 2, maxVUs: 30 }, overrides: { rate: 3, maxVUs: 30 }, latencyScale: 3 },
};
const P = byProfile(PROFILE_TABLE);
const limits = (p95: number, p99: number): Limits => ({ p95: p95 * P.latencyScale, p99: p99 * P.latencyScale });

// A manifest without gates, experiments or triggers leaves that scenario out (k6 wants it absent, not undefined).
const scenarios: Record<string, Scenario> = { metrics: arrival('metrics', P.metrics) };
if (M.gates.length) scenarios.gates = arrival('gates', P.gates);
if (M.experiments.length) scenarios.overrides = arrival('overrides', P.overrides);
// One VU owns every trigger: trigger state is tracked from responses, and two VUs racing on one
// trigger would only turn its skips into 409s.
if (M.triggers.length)
  scenarios.triggers = { executor: 'per-vu-iterations', exec: 'triggers', vus: 1, iterations: TRIGGER_OPS, maxDuration: `${SHARED.seconds + 5}s` };
scenarios[CALIBRATION] = calibrationScenario();

export const options: Options = {
  scenarios,
  thresholds: {
    http_req_failed: ['rate<0.01'],
    checks: [SHARED.checks],
    ...endpointThresholds(
      {
        createMetric: limits(500, 1000),
        'createMetric.dryRun': limits(500, 1000),
        updateMetric: limits(500, 1000),
        'updateMetric.dryRun': limits(500, 1000),
        addGateRules: limits(500, 1000),
        disableGate: limits(500, 1000),
        enableGate: limits(500, 1000),
        patchExperimentOverrides: limits(500, 1000),
        'patchExperimentOverrides.1000': limits(1000, 2000),
        skipTriggerPhase: limits(500, 1000),
        unpauseTrigger: limits(500, 1000),
        [CALIBRATION]: limits(300, 600),
      },
      SHARED.maxEndpointErrorRate,
    ),
  },
  summaryTrendStats: TREND_STATS,
  setupTimeout: '30s',
  teardownTimeout: '10s',
};

export function setup(): void {
  checkTarget();
  const longest = `${M.metricPrefix}${RUN.runId}_${9999}_${999999}`;
  if (longest.length > 200) abort(`metric names would exceed 200 characters (spec 8): ${longest.length}`);
}

let created = 0;
const copy = <T>(o: T): T => JSON.parse(JSON.stringify(o));

export function metrics(): void {
  const i = exec.scenario.iterationInTest;
  // <metricPrefix><runId>_<vu>_<n>: the prefix marks what the suite made; the run id keeps two runs apart.
  const name = `${M.metricPrefix}${RUN.runId}_${exec.vu.idInTest}_${created++}`;
  const body = copy(CREATES[i % CREATES.length]);
  body.name = name;
  const sampled = i % 5 === 0;
  if (sampled) {
    // A dry run first: the real create of the same name that follows must succeed (nothing persisted).
    const dry = checkSuccess<Envelope<Metric>>(
      'createMetric',
      'createMetric.dryRun',
      call('POST', '/console/v1/metrics', { endpoint: 'createMetric.dryRun', body: { ...body, dryRun: true } }),
    );
    if (dry) checkThat('createMetric.dryRun', 'dry run answers the metric as it would be', dry.data.name === name);
  }
  const res = checkSuccess<Envelope<Metric>>('createMetric', 'createMetric', call('POST', '/console/v1/metrics', { endpoint: 'createMetric', body }));
  if (sampled) checkThat('createMetric.dryRun', 'a dry run persisted nothing: the real create of its name succeeds', res !== undefined);
  if (!res) return;
  metricsCreated.add(1);
  checkThat('createMetric', 'id is the name and the type joined by a double colon (spec 2.8)', res.data.id === `${name}::${body.type}`);
  const id = encodeURIComponent(res.data.id);
  const update = UPDATES[i % UPDATES.length];
  const upd = checkSuccess<Envelope<Metric>>(
    'updateMetric',
    'updateMetric',
    call('POST', `/console/v1/metrics/${id}`, { endpoint: 'updateMetric', body: update }),
  );
  if (upd) checkThat('updateMetric', 'update answers the new description', upd.data.description === update.description);
  if (!upd || i % 2 !== 0) return;
  // Read-back: a dry run with another description answers it, and a later dry run still shows the
  // persisted one: the update took, the dry run did not (spec 4.7).
  const other = `${update.description} (dry run)`;
  const dry = checkSuccess<Envelope<Metric>>(
    'updateMetric',
    'updateMetric.dryRun',
    call('POST', `/console/v1/metrics/${id}`, { endpoint: 'updateMetric.dryRun', body: { description: other, dryRun: true } }),
  );
  if (dry) checkThat('updateMetric.dryRun', 'dry run answers the metric as it would be', dry.data.description === other);
  const after = checkSuccess<Envelope<Metric>>(
    'updateMetric',
    'updateMetric.dryRun',
    call('POST', `/console/v1/metrics/${id}`, { endpoint: 'updateMetric.dryRun', body: { dryRun: true } }),
  );
  if (after) checkThat('updateMetric.dryRun', 'the update persisted and the dry run did not', after.data.description === update.description);
}

export function gates(): void {
  const i = exec.scenario.iterationInTest;
  const gate = M.gates[i % M.gates.length];
  const path = `/console/v1/gates/${encodeURIComponent(gate)}`;
  const body = RULES[i % RULES.length];
  const added = checkSuccess<Envelope<Gate>>('addGateRules', 'addGateRules', call('POST', `${path}/rules`, { endpoint: 'addGateRules', body }));
  if (added) {
    const names: Record<string, true> = {};
    for (const r of added.data.rules ?? []) names[r.name] = true;
    checkThat(
      'addGateRules',
      'the gate returned holds every rule sent',
      body.rules.every((r) => names[r.name]),
    );
  }
  const off = checkSuccess<Envelope<Gate>>('disableGate', 'disableGate', call('PUT', `${path}/disable`, { endpoint: 'disableGate' }));
  if (off) checkThat('disableGate', 'the gate returned has isEnabled false (spec 4.2)', off.data.isEnabled === false && off.data.id === gate);
  // The state after enable is not shown (spec 3): the response is checked against its schema only.
  const on = checkSuccess<Envelope<Gate>>('enableGate', 'enableGate', call('PUT', `${path}/enable`, { endpoint: 'enableGate' }));
  if (on) checkThat('enableGate', 'the gate returned is the one enabled', on.data.id === gate);
}

export function overrides(): void {
  const i = exec.scenario.iterationInTest;
  const big = i % 4 === 3;
  const endpoint = big ? 'patchExperimentOverrides.1000' : 'patchExperimentOverrides';
  const body = big ? OVERRIDES_1000[i % OVERRIDES_1000.length] : OVERRIDES[i % OVERRIDES.length];
  const exp = M.experiments[i % M.experiments.length];
  const res = checkSuccess<OverridesBody>(
    'patchExperimentOverrides',
    endpoint,
    call('PATCH', `/console/v1/experiments/${encodeURIComponent(exp)}/overrides`, { endpoint, body }),
  );
  if (!res) return;
  // The envelope or the spec example's top-level arrays (4.11); merge or replace is not shown, so the
  // items sent must be the last ones of the result either way.
  const result = 'data' in res ? res.data : res;
  const got: Override[] = result?.overrides ?? [];
  const tail = got.slice(got.length - body.overrides.length);
  checkThat(
    endpoint,
    'the overrides returned end with the items sent',
    tail.length === body.overrides.length && tail.every((o, k) => o.id === body.overrides[k].id && o.groupID === body.overrides[k].groupID),
  );
}

// Trigger state as last observed (reference: docs/development.md, "triggers"); an unknown start
// phase is found by trying the manifest's phases in order, a 409 meaning "not the current one".
interface TriggerState {
  idx: number;
  paused: boolean;
  done: boolean;
}
const states: TriggerState[] = M.triggers.map(() => ({ idx: 0, paused: false, done: false }));
let turn = 0;

export function triggers(): void {
  const open = states.map((_, k) => k).filter((k) => !states[k].done);
  if (open.length === 0) return; // every trigger completed: the remaining iterations end at once
  const k = open[turn++ % open.length];
  const t = M.triggers[k];
  const s = states[k];
  const phaseID = t.phaseIDs[s.idx];
  const op = s.paused ? 'unpauseTrigger' : 'skipTriggerPhase';
  const res = call('PUT', `/console/v1/release_pipeline_triggers/${encodeURIComponent(t.id)}/${s.paused ? 'unpause' : 'skip'}`, {
    endpoint: op,
    body: { phaseID },
    expected: SUCCESS_OR_CONFLICT,
  });
  if (res.status === 409) {
    triggerConflicts.add(1);
    checkThat(op, 'a conflict carries a JSON body', parse(res) !== undefined);
    if (s.paused) {
      s.paused = false; // someone else unpaused it: try skipping the same phase
    } else if (++s.idx >= t.phaseIDs.length) {
      // Completed before this run, or in a phase the manifest does not list: move on, and count it.
      s.done = true;
      triggersUnusable.add(1);
    }
  } else {
    const body = checkSuccess<Envelope<TriggerBody>>(op, op, res);
    if (body) {
      const d = body.data;
      checkThat(op, 'the trigger returned is the one named', d.id === t.id && d.releasePipelineID === t.releasePipelineID);
      const completed = d.status === 'COMPLETED';
      if (op === 'skipTriggerPhase') checkThat(op, 'skip moved the trigger on from the skipped phase', d.currentPhaseID !== phaseID || completed);
      if (completed) {
        s.done = true;
        triggersCompleted.add(1);
      } else {
        const at = t.phaseIDs.indexOf(d.currentPhaseID);
        if (at >= 0) s.idx = at;
        s.paused = d.status === 'PAUSED';
      }
    } else {
      s.done = true; // an unexpected answer: stop touching this trigger (the failed check is counted)
    }
  }
  // Spread the trigger work over the run instead of finishing every trigger in its first second.
  sleep(SHARED.seconds / TRIGGER_OPS);
}

export const handleSummary = makeHandleSummary('mutation');
