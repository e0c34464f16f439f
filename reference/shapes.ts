// Vendor-shaped legal variants: a success response reshaped the way real servers of this API send it
// (docs/vendor-shapes.md has the research each rule comes from). Each variant is an entry of the
// response layer (layers/response.ts), applied to the response object just before it is serialized,
// only when it is on; the clean reference never runs this code. Nothing here changes stored state:
// every response is shaped from a copy.
//
// Each rule keeps what the spec's words say is present:
//   - the envelope's message, data and pagination (2.1);
//   - the six fields of every rule in an add-rules response, environments null included (2.3, 4.1),
//     and `environments` of any gate rule ("Null in responses when no environment restriction is set", 2.3);
//   - `owner` and `monitoringMetrics` of the gate in enable/disable responses (2.2);
//   - the overrides and userIDOverrides arrays of the overrides response (4.11, its example).
// Closed enums (experiment status, metric type, directionality) are never given other values.

import type { Json, JsonObject } from '../core/json.ts';
type Doc = JsonObject;

/** The vendor-shaped variants, in the order they apply when several are on. */
export type ShapeVariant = 'enum-values-beyond-seen' | 'vendor-extra-fields' | 'vendor-optional-absent' | 'omit-when-empty';

const GATE_OPERATIONS = new Set(['addGateRules', 'enableGate', 'disableGate']);
const RULE_FIELDS = ['id', 'baseID', 'name', 'passPercentage', 'conditions', 'environments'];

/** Paths (from the body's `data`, `[]` for array items) that the spec states are present, per operation. */
function statedPresent(operationId: string): Set<string> {
  const paths: string[] = [];
  if (GATE_OPERATIONS.has(operationId)) paths.push('rules', 'rules[].environments');
  if (operationId === 'addGateRules') paths.push(...RULE_FIELDS.map((f) => `rules[].${f}`));
  if (operationId === 'enableGate' || operationId === 'disableGate') paths.push('owner', 'monitoringMetrics');
  if (operationId === 'patchExperimentOverrides') paths.push('overrides', 'userIDOverrides');
  return new Set(paths);
}

const isEmpty = (v: unknown) => v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** Go omitempty / Jackson NON_EMPTY: null, "" and [] fields left out, except the stated-present paths. */
function omitEmpty(value: unknown, keep: Set<string>, path = ''): void {
  if (Array.isArray(value)) {
    for (const item of value) omitEmpty(item, keep, `${path}[]`);
  } else if (value && typeof value === 'object') {
    const o = value as Doc;
    for (const key of Object.keys(o)) {
      const child = path ? `${path}.${key}` : key;
      if (isEmpty(o[key]) && !keep.has(child)) delete o[key];
      else omitEmpty(o[key], keep, child);
    }
  }
}

// ---------------------------------------------------------------- vendor-optional-absent
// Fields the vendor's OpenAPI marks optional (not in its `required`) and the spec lists.

const GATE_OPTIONAL = ['name', 'idType', 'creatorID', 'creatorEmail', 'tags', 'targetApps', 'holdoutIDs', 'team', 'measureMetricLifts', 'reviewSettings'];
const EXPERIMENT_OPTIONAL = [
  'name',
  'creatorID',
  'creatorEmail',
  'targetApps',
  'holdoutIDs',
  'launchedGroupID',
  'primaryMetricTags',
  'secondaryMetricTags',
  'duration',
  'healthChecks',
  'owner',
  'inlineTargetingRulesJSON',
];
const GROUP_OPTIONAL = ['id', 'description'];
const TRIGGER_OPTIONAL = ['description', 'gateID', 'dynamicConfigID'];
/** Metric fields the server fills itself; optional in the vendor's model. */
const METRIC_SERVER_OPTIONAL = ['isHidden', 'creatorName', 'creatorEmail', 'createdTime'];
/** Metric fields a request sets; optional in the vendor's model, absent when never set. */
const METRIC_INPUT_DEFAULTS: Record<string, unknown> = {
  isVerified: false,
  isReadOnly: false,
  unitTypes: [],
  metricEvents: [],
  description: '',
  tags: [],
  isPermanent: false,
  team: '',
};

const drop = (o: Doc, keys: string[]) => keys.forEach((k) => delete o[k]);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function optionalAbsent(operationId: string, data: Json, request: Doc): void {
  if (GATE_OPERATIONS.has(operationId)) {
    drop(data, GATE_OPTIONAL);
    // owner and monitoringMetrics are stated present only in enable/disable responses (2.2).
    if (operationId === 'addGateRules') drop(data, ['owner', 'monitoringMetrics']);
  } else if (operationId === 'listExperiments') {
    for (const e of data) {
      drop(e, EXPERIMENT_OPTIONAL);
      for (const g of e.groups ?? []) drop(g, GROUP_OPTIONAL);
    }
  } else if (operationId === 'listReleasePipelines') {
    // Phases and their ids stay: a pipeline without them has nothing to release (the vendor marks
    // `phases` optional on the one model it shares with pipeline creation).
    for (const p of data) for (const ph of p.phases ?? []) for (const r of ph.rules ?? []) drop(r, ['id', 'environments']);
  } else if (operationId === 'skipTriggerPhase' || operationId === 'unpauseTrigger') {
    drop(data, TRIGGER_OPTIONAL);
    // actorID is optional on an action: a phase the pipeline starts by itself has no actor.
    for (const a of data.actions ?? []) if (a.type === 'STARTED') delete a.actorID;
  } else if (operationId === 'createMetric' || operationId === 'updateMetric') {
    drop(data, METRIC_SERVER_OPTIONAL);
    if (!('owner' in request)) delete data.owner;
    // What the request set is answered; what was never set is left out. An update answers the
    // stored metric, so a field it does not send is absent only while it holds the create default.
    for (const [key, unset] of Object.entries(METRIC_INPUT_DEFAULTS)) {
      if (key in request) continue;
      if (operationId === 'createMetric' || same(data[key], unset)) delete data[key];
    }
  }
}

// ---------------------------------------------------------------- vendor-extra-fields
// Fields the vendor's models carry that the spec does not list; values as a fresh vendor object has them.

function extraFields(operationId: string, body: Doc, data: Json): void {
  if (GATE_OPERATIONS.has(operationId)) {
    Object.assign(data, { version: 1, teamID: null, isTemplate: false, store0100Exposures: false, releasePipelineID: null });
  } else if (operationId === 'listExperiments') {
    for (const e of data) {
      Object.assign(e, {
        version: 1,
        team: null,
        teamID: null,
        experimentType: 'BASE',
        isStale: false,
        controlGroupID: e.groups?.[0]?.id ?? '',
        otherMetrics: [],
        sequentialTesting: false,
      });
      for (const g of e.groups ?? []) g.disabled = false;
    }
  } else if (operationId === 'listReleasePipelines') {
    for (const p of data) Object.assign(p, { lastModifiedTime: p.createdTime, triggerNotice: '' });
  } else if (operationId === 'skipTriggerPhase' || operationId === 'unpauseTrigger') {
    data.configSnapshotID = `${data.id}_snapshot`;
  } else if (operationId === 'createMetric' || operationId === 'updateMetric') {
    Object.assign(data, {
      lastModifierID: data.owner?.ownerID ?? null,
      lastModifiedTime: data.createdTime ?? null,
      lastModifierName: data.creatorName ?? null,
      lastModifierEmail: data.creatorEmail ?? null,
    });
  }
  // The vendor's pagination metadata carries `all` (a string, "" in its examples); pagination fields are not shown (2.1).
  if (body.pagination && typeof body.pagination === 'object') body.pagination.all = '';
}

// ---------------------------------------------------------------- enum-values-beyond-seen
// Values of open enums beyond those the spec shows ("values seen", "beyond ...: not shown").

const TRIGGER_STATUS: Record<string, string> = { IN_PROGRESS: 'ROLLING_OUT', PAUSED: 'AWAITING_APPROVAL', COMPLETED: 'DONE' };

function beyondSeen(operationId: string, data: Json, request: Doc): void {
  if (GATE_OPERATIONS.has(operationId)) {
    if (data.isEnabled === false) data.status = 'Disabled';
    if (data.type === 'TEMPORARY') {
      data.type = 'STALE';
      data.typeReason = data.rules?.length ? 'STALE_PROBABLY_LAUNCHED' : 'STALE_NO_RULES';
    }
    // The vendor documents ownerType as a free string ("e.g., SDK_KEY or USER"); TEAM is no vendor value.
    if (data.owner?.ownerType === 'USER') data.owner.ownerType = 'TEAM';
  } else if (operationId === 'listExperiments') {
    for (const e of data) {
      // spec-literal: the vendor's health status of an unstarted and of an abandoned experiment.
      if (e.healthCheckStatus === 'PASSED') e.healthCheckStatus = e.status === 'setup' ? 'NOT_APPLIED' : e.status === 'abandoned' ? 'FAILED' : 'WARNING';
      for (const h of e.healthChecks ?? []) if (h.status === 'WAITING') h.status = 'WARNING';
      for (const m of e.primaryMetrics ?? []) if (m.type === 'user') m.type = 'ratio';
      if (e.owner?.ownerType === 'USER') e.owner.ownerType = 'SDK_KEY';
    }
  } else if (operationId === 'listReleasePipelines') {
    for (const p of data) {
      for (const ph of p.phases ?? []) {
        for (const r of ph.rules ?? []) {
          r.conditions = (r.conditions ?? []).map((c: Doc) => ({ ...c, type: 'environment_tier', targetValue: ['production'], operator: 'none' }));
        }
      }
    }
  } else if (operationId === 'skipTriggerPhase' || operationId === 'unpauseTrigger') {
    // The vendor's action types include APPROVED_FOR: the approval that lets a phase waiting for review go on.
    for (const a of data.actions ?? []) if (a.type === 'UNPAUSED') a.type = 'APPROVED_FOR';
    // Trigger status: neither the spec nor the vendor shows a value (a free string): other names for
    // the reference's own states, so that nothing may depend on IN_PROGRESS, PAUSED or COMPLETED.
    data.status = TRIGGER_STATUS[data.status] ?? data.status;
  } else if (operationId === 'createMetric') {
    // An event sent without a type gets a type the spec does not show (vendor: count, count_distinct, value, metadata).
    const sent: Doc[] = Array.isArray(request.metricEvents) ? request.metricEvents : [];
    (data.metricEvents ?? []).forEach((e: Doc, i: number) => {
      if (sent[i] && sent[i].type === undefined) e.type = 'count';
    });
  }
}

/**
 * The success body of `operationId` as reshaped by one vendor-shaped variant, and the request body it
 * answers (some rules depend on what was sent). Returns a new object; `body` is untouched.
 */
export function shapeResponse(variant: ShapeVariant, operationId: string, body: unknown, request: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out = structuredClone(body) as Doc;
  const req: Doc = request && typeof request === 'object' && !Array.isArray(request) ? (request as Doc) : {};
  // The overrides response may carry its arrays at the top level (variant overrides-toplevel-response).
  const enveloped = 'data' in out;
  const data = enveloped ? out.data : out;
  if (!data || typeof data !== 'object') return out;
  if (variant === 'enum-values-beyond-seen') beyondSeen(operationId, data, req);
  else if (variant === 'vendor-extra-fields') extraFields(operationId, out, data);
  else if (variant === 'vendor-optional-absent') optionalAbsent(operationId, data, req);
  else {
    omitEmpty(data, statedPresent(operationId));
    if (enveloped && out.pagination && typeof out.pagination === 'object') omitEmpty(out.pagination, new Set());
  }
  return out;
}
