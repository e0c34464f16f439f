// The request layer: switches that change how a request is let in and read, before its handler runs.
// The key check (auth), the contract's request schema (schema), what was sent as the handler sees it
// (rewrite), refusals (check), arrivals refused before anything else (arrive), and writes held in
// flight (hold). Applied by plugins/request-layer.ts and plugins/auth.ts.
import { SPEC_DEFAULTS, SPEC_ALLOWED, SPEC_LIMITS } from '../../contracts/index.ts';
import { badRequest, errorBody, HttpError } from '../errors.ts';
import { MAX_LIMIT } from '../paging.ts';
import { dropRequired, retypeRequestField, setBound } from './edits.ts';
import type { Doc, Overrides, Store } from '../store/store.ts';
import type { RequestSwitch, RequestView } from './types.ts';
import type { Json, JsonObject } from '../../core/json.ts';

const LISTS = ['listExperiments', 'listReleasePipelines'];
const TRIGGER_WRITES = ['skipTriggerPhase', 'unpauseTrigger'];
/** Every operation that writes (spec part 4), with the kind of resource its path id names. */
const WRITES: Record<string, string> = {
  addGateRules: 'gate',
  enableGate: 'gate',
  disableGate: 'gate',
  patchExperimentOverrides: 'experiment',
  skipTriggerPhase: 'trigger',
  unpauseTrigger: 'trigger',
  createMetric: 'metric',
  updateMetric: 'metric',
};
/** The fields an update of a metric sets as sent (spec 4.7), but owner. */
const METRIC_UPDATE_FIELDS = [
  'name',
  'description',
  'tags',
  'isVerified',
  'isReadOnly',
  'isPermanent',
  'warehouseNative',
  'unitTypes',
  'teamID',
  'directionality',
];
// The bounds the spec states (4.6, 4.11, 8), from the contract: each fault below moves one of them
// relative to the stated value, so it still breaks the clause after a revision of the spec moves the bound.
const NAME = SPEC_LIMITS.createMetric.name;
const DESCRIPTION = SPEC_LIMITS.createMetric.description;
const OVERRIDES = SPEC_LIMITS.patchExperimentOverrides.overrides;
/** The directionality a create without one is given (4.6), and the other value the spec allows: what a wrong default picks. */
const DEFAULT_DIRECTIONALITY = SPEC_DEFAULTS.createMetric.directionality;
const OTHER_DIRECTIONALITY = SPEC_ALLOWED.createMetric.directionality.find((d) => d !== DEFAULT_DIRECTIONALITY) as string;
/**
 * How far past the longest name a metric id may run before metric-id-length-limit refuses it: room
 * for `::` and a short type (ratio), not for a long one (event_count_custom).
 */
const ID_SLACK = 10;

/** The filters of list experiments (spec 4.4). */
const EXPERIMENT_FILTERS = ['layerID', 'idType', 'teamID', 'status', 'targetAppID', 'createdStartDate', 'createdEndDate', 'creatorName', 'creatorID', 'tags'];

/**
 * What an add of rules read when it arrived, by its body (the same object reaches the answer): the rules
 * gate-rules-lost-on-overlap writes back after its gap, and the store it writes them to.
 */
const readAtArrival = new WeakMap<object, { store: Store; rules: Doc[] }>();
/** The same for overrides-merge-lost-on-overlap: the overrides a patch read when it arrived. */
const overridesAtArrival = new WeakMap<object, { store: Store; id: string; held: Overrides }>();

const bytes = (s: unknown) => (typeof s === 'string' ? Buffer.byteLength(s) : 0);
const isObject = (v: unknown): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);

/** The resource a write changes: its kind and id (a created metric's id is `<name>::<type>`, spec 2.8). */
const writtenResource = (r: RequestView) =>
  r.operationId === 'createMetric' ? `metric ${r.body?.name}::${r.body?.type}` : `${WRITES[r.operationId]} ${r.params.id}`;

/** `<every>:<seconds>` of steady-429 (default every 4th request, Retry-After 1), or the reason it is not. */
export function parseSteady429(text: string | undefined): { every: number; seconds: number } | string {
  if (text === undefined) return { every: 4, seconds: 1 };
  const m = /^(\d+):(\d+)$/.exec(text);
  const every = Number(m?.[1]);
  const seconds = Number(m?.[2]);
  if (!m || every < 2 || every > 1_000_000 || seconds > 3600)
    return `variant "steady-429:${text}" must be steady-429:<every>:<seconds>, every an integer from 2 to 1000000 and seconds from 0 to 3600`;
  return { every, seconds };
}

export const REQUEST_SWITCHES = [
  // ------------------------------------------------------------------ the key (spec 5)
  {
    name: 'auth-any-key',
    kind: 'fault',
    layer: 'request',
    description: 'any SERVICE-API-KEY value is accepted',
    clause: 'auth.key.required',
    level: 'stated',
    change: { auth: { anyKey: true } },
  },
  {
    name: 'auth-missing-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'a request without SERVICE-API-KEY is served',
    clause: 'auth.key.required',
    level: 'stated',
    change: { auth: { withoutKey: true } },
  },
  {
    name: 'auth-query-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'the key is accepted from the query string',
    clause: 'auth.key.headerOnly.query',
    level: 'stated',
    change: { auth: { queryKeys: ['SERVICE-API-KEY'] } },
  },
  {
    name: 'auth-query-api-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'the key is accepted from the query string as api_key or key',
    clause: 'auth.key.headerOnly.query',
    level: 'stated',
    change: { auth: { queryKeys: ['api_key', 'key'] } },
  },
  {
    name: 'auth-body-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'the key is accepted from the JSON body field apiKey',
    clause: 'auth.key.headerOnly.body',
    level: 'stated',
    change: { auth: { bodyKey: true } },
  },
  {
    name: 'auth-bearer-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'the key is accepted from Authorization: Bearer <key> (a server behind a gateway that maps bearer tokens)',
    clause: 'auth.key.headerOnly.authorization',
    level: 'stated',
    change: { auth: { authorization: ['Bearer'] } },
  },
  {
    name: 'auth-basic-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'the key is accepted from Authorization: Basic, as the user name or the password of the pair',
    clause: 'auth.key.headerOnly.authorization',
    level: 'stated',
    change: { auth: { authorization: ['Basic'] } },
  },
  {
    name: 'auth-plain-authorization-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'the key is accepted as the bare value of Authorization (no scheme)',
    clause: 'auth.key.headerOnly.authorization',
    level: 'stated',
    change: { auth: { authorization: ['plain'] } },
  },
  {
    name: 'auth-cookie-key-ok',
    kind: 'fault',
    layer: 'request',
    description: 'the key is accepted from a cookie named SERVICE-API-KEY or apiKey (a session cookie taken for the key)',
    clause: 'auth.key.headerOnly.cookie',
    level: 'stated',
    change: { auth: { cookieNames: ['SERVICE-API-KEY', 'apiKey'] } },
  },
  {
    name: 'auth-skip-no-key',
    kind: 'fault',
    layer: 'request',
    description: 'skip (only) is served without a key',
    clause: 'auth.key.required',
    level: 'stated',
    change: { auth: { openOperations: ['skipTriggerPhase'] } },
  },
  {
    name: 'auth-unpause-no-key',
    kind: 'fault',
    layer: 'request',
    description: 'unpause (only) is served without a key',
    clause: 'auth.key.required',
    level: 'stated',
    change: { auth: { openOperations: ['unpauseTrigger'] } },
  },
  {
    name: 'auth-update-metric-no-key',
    kind: 'fault',
    layer: 'request',
    description: 'update metric (only) is served without a key',
    clause: 'auth.key.required',
    level: 'stated',
    change: { auth: { openOperations: ['updateMetric'] } },
  },

  // Header names are case-insensitive (RFC 9110 5.1; HTTP/2 sends them lower-cased): Node lower-cases
  // them, so a server that matches the spelling must look at the names as sent.
  {
    name: 'auth-key-header-exact-case',
    kind: 'fault',
    layer: 'request',
    description:
      'the key is read only from a header spelt SERVICE-API-KEY exactly: sent as service-api-key (as HTTP/2 sends it) or Service-Api-Key it is missing (401)',
    clause: 'auth.key.headerNameCase',
    level: 'inferred',
    change: { auth: { headerSpelling: 'SERVICE-API-KEY' } },
  },
  // Wrong keys derived from the real one are sent only with --auth-probes derived (a throwaway key):
  // without it these two are not caught, on purpose (docs/checks.md).
  {
    name: 'auth-key-case-insensitive',
    kind: 'fault',
    layer: 'request',
    description: 'the key is compared ignoring case: the key upper-cased is accepted (caught with --auth-probes derived only)',
    clause: 'auth.key.required',
    level: 'stated',
    change: { auth: { ignoreCase: true } },
  },
  {
    name: 'auth-key-prefix-only',
    kind: 'fault',
    layer: 'request',
    description:
      'only the first 8 characters of the key are compared (a key looked up by its prefix, the rest never checked): the key cut short is accepted (caught with --auth-probes derived only)',
    clause: 'auth.key.required',
    level: 'stated',
    change: { auth: { prefixLength: 8 } },
  },

  // ------------------------------------------------------------------ the path (spec 9)
  {
    name: 'pipelines-not-under-v1',
    kind: 'fault',
    layer: 'request',
    description: 'list pipelines is not found under /console/v1/ (its route lost the version prefix)',
    clause: 'versioning.path',
    level: 'stated',
    change: {
      operations: ['listReleasePipelines'],
      check: () => {
        throw new HttpError(404, 'Route GET:/console/v1/release_pipelines not found');
      },
    },
  },

  // ------------------------------------------------------------------ the request schema (spec 4, 8)
  {
    name: 'metric-name-3-accepted',
    kind: 'fault',
    layer: 'request',
    description: `a metric name of ${NAME.minLength - 1} characters (one short of the minimum) is accepted`,
    clause: 'metrics.create.name.length',
    level: 'stated',
    change: { operations: ['createMetric'], schema: setBound('CreateMetricRequest', 'name', 'minLength', NAME.minLength - 1) },
  },
  {
    name: 'metric-name-201-accepted',
    kind: 'fault',
    layer: 'request',
    description: `a metric name of ${NAME.maxLength + 1} characters (one past the maximum) is accepted`,
    clause: 'metrics.create.name.length',
    level: 'stated',
    change: { operations: ['createMetric'], schema: setBound('CreateMetricRequest', 'name', 'maxLength', NAME.maxLength + 1) },
  },
  {
    name: 'metric-name-4-rejected',
    kind: 'fault',
    layer: 'request',
    description: `a metric name of ${NAME.minLength} characters (the minimum) is rejected`,
    clause: 'metrics.create.name.length',
    level: 'stated',
    change: { operations: ['createMetric'], schema: setBound('CreateMetricRequest', 'name', 'minLength', NAME.minLength + 1) },
  },
  {
    name: 'metric-description-1001-accepted',
    kind: 'fault',
    layer: 'request',
    description: `a description of ${DESCRIPTION.maxLength + 1} characters (one past the maximum) is accepted`,
    clause: 'metrics.create.description.maxLength',
    level: 'stated',
    change: { operations: ['createMetric'], schema: setBound('CreateMetricRequest', 'description', 'maxLength', DESCRIPTION.maxLength + 1) },
  },
  {
    name: 'overrides-1001-accepted',
    kind: 'fault',
    layer: 'request',
    description: `${OVERRIDES.maxItems + 1} overrides (one past the maximum) are accepted`,
    clause: 'overrides.patch.overrides.maxItems',
    level: 'stated',
    change: { operations: ['patchExperimentOverrides'], schema: setBound('OverridesPatchRequest', 'overrides', 'maxItems', OVERRIDES.maxItems + 1) },
  },
  {
    name: 'overrides-1000-rejected',
    kind: 'fault',
    layer: 'request',
    description: `${OVERRIDES.maxItems} overrides (the maximum) are rejected`,
    clause: 'overrides.patch.overrides.maxItems',
    level: 'stated',
    change: { operations: ['patchExperimentOverrides'], schema: setBound('OverridesPatchRequest', 'overrides', 'maxItems', OVERRIDES.maxItems - 1) },
  },
  {
    name: 'metric-type-unknown-accepted',
    kind: 'fault',
    layer: 'request',
    description: 'an unknown metric type is accepted',
    clause: 'metrics.create.type.enum',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      schema: (s, part) => {
        if (part === 'body') delete s.$defs.MetricTypeName.enum;
      },
    },
  },
  {
    name: 'metric-type-optional',
    kind: 'fault',
    layer: 'request',
    description: 'a metric without type is accepted',
    clause: 'metrics.create.type.required',
    level: 'stated',
    change: { operations: ['createMetric'], schema: dropRequired('CreateMetricRequest', 'type') },
  },
  {
    name: 'phaseid-optional',
    kind: 'fault',
    layer: 'request',
    description: 'skip and unpause without phaseID act on the current phase',
    clause: 'triggers.skip.phaseID.required',
    level: 'stated',
    change: {
      operations: TRIGGER_WRITES,
      schema: dropRequired('TriggerPhaseRequest', 'phaseID'),
      rewrite: (r, store) => {
        if (isObject(r.body) && r.body.phaseID === undefined) r.body.phaseID = store.getTrigger(r.params.id)?.currentPhaseID;
      },
    },
  },
  {
    name: 'userid-overrides-optional',
    kind: 'fault',
    layer: 'request',
    description: 'overrides without userIDOverrides are accepted',
    clause: 'overrides.patch.userIDOverrides.required',
    level: 'stated',
    change: {
      operations: ['patchExperimentOverrides'],
      schema: dropRequired('OverridesPatchRequest', 'userIDOverrides'),
      rewrite: (r) => {
        r.body.userIDOverrides ??= [];
      },
    },
  },
  // Lengths counted in UTF-8 bytes instead of the contract's characters.
  {
    name: 'metric-name-counts-bytes',
    kind: 'fault',
    layer: 'request',
    description: `metric name length ${NAME.minLength} to ${NAME.maxLength} is counted in UTF-8 bytes, not characters`,
    clause: 'metrics.create.name.length',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      schema: (s, part) => {
        setBound('CreateMetricRequest', 'name', 'minLength', undefined)(s, part);
        setBound('CreateMetricRequest', 'name', 'maxLength', undefined)(s, part);
      },
      check: (r) => {
        if (bytes(r.body.name) < NAME.minLength || bytes(r.body.name) > NAME.maxLength)
          throw badRequest(`name must be ${NAME.minLength} to ${NAME.maxLength} bytes`);
      },
    },
  },
  {
    name: 'metric-description-counts-bytes',
    kind: 'fault',
    layer: 'request',
    description: `description length up to ${DESCRIPTION.maxLength} is counted in UTF-8 bytes, not characters`,
    clause: 'metrics.create.description.maxLength',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      schema: setBound('CreateMetricRequest', 'description', 'maxLength', undefined),
      check: (r) => {
        if (bytes(r.body.description) > DESCRIPTION.maxLength) throw badRequest(`description must be at most ${DESCRIPTION.maxLength} bytes`);
      },
    },
  },
  {
    name: 'metric-id-length-limit',
    kind: 'fault',
    layer: 'request',
    description: `a create whose id <name>::<type> would exceed ${NAME.maxLength + ID_SLACK} characters is refused (a ${NAME.maxLength}-character name, the maximum, with a long type)`,
    clause: 'metrics.create.name.length',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      check: (r) => {
        if (`${r.body.name}::${r.body.type}`.length > NAME.maxLength + ID_SLACK)
          throw badRequest(`metric id must be at most ${NAME.maxLength + ID_SLACK} characters`);
      },
    },
  },
  {
    name: 'add-rules-fraction-refused',
    kind: 'fault',
    layer: 'request',
    description: 'add rules refuses a rule whose passPercentage is not a whole number (12.5), where the body holds Gate rules of 2.3 (passPercentage a number)',
    clause: 'gates.addRules.body',
    level: 'stated',
    change: { operations: ['addGateRules'], schema: retypeRequestField('GateRuleInput', 'passPercentage', 'integer') },
  },

  // ------------------------------------------------------------------ what was sent, read wrongly
  {
    name: 'metric-create-ignores-flags',
    kind: 'fault',
    layer: 'request',
    description: 'create ignores isVerified, isReadOnly and isPermanent (always false)',
    clause: 'metrics.create.echoesInput',
    level: 'inferred',
    change: {
      operations: ['createMetric'],
      rewrite: (r) => {
        for (const k of ['isVerified', 'isReadOnly', 'isPermanent']) delete r.body[k];
      },
    },
  },
  {
    name: 'metric-create-ignores-unittypes',
    kind: 'fault',
    layer: 'request',
    description: 'create ignores unitTypes (always empty)',
    clause: 'metrics.create.echoesInput',
    level: 'inferred',
    change: {
      operations: ['createMetric'],
      rewrite: (r) => {
        delete r.body.unitTypes;
      },
    },
  },
  {
    name: 'directionality-default-decrease',
    kind: 'fault',
    layer: 'request',
    description: `directionality defaults to ${OTHER_DIRECTIONALITY}, not the ${DEFAULT_DIRECTIONALITY} the spec states`,
    clause: 'metrics.create.directionality.default',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      rewrite: (r) => {
        r.body.directionality ??= OTHER_DIRECTIONALITY;
      },
    },
  },
  {
    name: 'metric-update-ignores-description',
    kind: 'fault',
    layer: 'request',
    description: 'update does not apply description',
    clause: 'metrics.update.applies',
    level: 'stated',
    change: {
      operations: ['updateMetric'],
      rewrite: (r) => {
        delete r.body.description;
      },
    },
  },
  {
    name: 'metric-update-ignores-ispermanent',
    kind: 'fault',
    layer: 'request',
    description: 'update does not apply isPermanent',
    clause: 'metrics.update.applies',
    level: 'stated',
    change: {
      operations: ['updateMetric'],
      rewrite: (r) => {
        delete r.body.isPermanent;
      },
    },
  },
  {
    name: 'metric-update-tags-append',
    kind: 'fault',
    layer: 'request',
    description: 'update appends the tags sent to the ones stored instead of setting them',
    clause: 'metrics.update.applies',
    level: 'stated',
    change: {
      operations: ['updateMetric'],
      rewrite: (r, store) => {
        const stored = store.getMetric(r.params.id);
        if (stored && Array.isArray(r.body.tags)) r.body.tags = [...(stored.tags ?? []), ...r.body.tags];
      },
    },
  },
  {
    name: 'metric-dryrun-false-not-persisted',
    kind: 'fault',
    layer: 'request',
    description: 'a create sending dryRun false is treated as a dry run (not stored)',
    clause: 'metrics.create.dryRun',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      rewrite: (r) => {
        if (r.body.dryRun === false) r.body.dryRun = true;
      },
    },
  },
  {
    name: 'metric-update-dryrun-false-not-persisted',
    kind: 'fault',
    layer: 'request',
    description: 'an update sending dryRun false is treated as a dry run (not stored)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: {
      operations: ['updateMetric'],
      rewrite: (r) => {
        if (r.body.dryRun === false) r.body.dryRun = true;
      },
    },
  },
  {
    name: 'overrides-duplicated',
    kind: 'fault',
    layer: 'request',
    description: 'the first patched override is stored twice and the last not at all (as many items as sent), and each user id twice',
    clause: 'overrides.patch.persisted',
    level: 'stated',
    change: {
      operations: ['patchExperimentOverrides'],
      rewrite: (r) => {
        const o = r.body.overrides as unknown[];
        if (o.length > 1) r.body.overrides = [o[0], ...o.slice(0, -1)];
        r.body.userIDOverrides = (r.body.userIDOverrides ?? []).map((u: Record<string, unknown>) =>
          Array.isArray(u.ids) ? { ...u, ids: [...u.ids, ...u.ids] } : u,
        );
      },
    },
  },
  {
    name: 'filter-status-ignored',
    kind: 'fault',
    layer: 'request',
    description: 'the status filter is ignored',
    clause: 'experiments.list.filters',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      rewrite: (r) => {
        delete r.query.status;
      },
    },
  },
  {
    name: 'filter-idtype-ignored',
    kind: 'fault',
    layer: 'request',
    description: 'the idType filter is ignored',
    clause: 'experiments.list.filters',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      rewrite: (r) => {
        delete r.query.idType;
      },
    },
  },
  {
    name: 'filter-tags-ignored',
    kind: 'fault',
    layer: 'request',
    description: 'the tags filter is ignored',
    clause: 'experiments.list.filters',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      rewrite: (r) => {
        delete r.query.tags;
        delete r.query['tags[]'];
      },
    },
  },
  {
    name: 'filtered-page-ignored',
    kind: 'fault',
    layer: 'request',
    description: 'when a filter is given, page is ignored: every page is the first',
    clause: 'paging.disjointUnion',
    level: 'inferred',
    change: {
      operations: ['listExperiments'],
      rewrite: (r) => {
        if (EXPERIMENT_FILTERS.some((k) => r.query[k] !== undefined && r.query[k] !== '')) delete r.query.page;
      },
    },
  },
  {
    // A target may ignore teamID ("Enterprise only", 4.4): ignoring it is legal, failing on it is not.
    name: 'teamid-500',
    kind: 'fault',
    layer: 'request',
    description: 'list experiments with a teamID answers 500: the server looks the team up in an enterprise directory it does not have',
    clause: 'experiments.list.filter.teamID',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      check: (r) => {
        if (r.query.teamID !== undefined) throw new HttpError(500, 'team directory unavailable');
      },
    },
  },

  // ------------------------------------------------------------------ inferred: what any user would call a defect
  {
    name: 'metric-rejected-create-stored',
    kind: 'fault',
    files: ['metrics'],
    layer: 'request',
    description: 'a create whose description is not text is stored, then refused with 400 (checked after the write)',
    clause: 'writes.rejectedPersistNothing',
    level: 'inferred',
    change: {
      operations: ['createMetric'],
      schema: (s, part) => {
        // Any description gets as far as the handler: the check is made after the write (answer).
        if (part === 'body') s.$defs.CreateMetricRequest.properties.description = {};
      },
      answer: (r) => {
        const d = r.request.body?.description;
        if (d === undefined || typeof d === 'string') return;
        r.status = 400;
        r.body = errorBody(400, 'body/description must be string');
      },
    },
  },
  {
    name: 'update-ignores-unknown-fields',
    kind: 'fault',
    layer: 'request',
    description: 'update metric ignores a body field the spec does not name, where every other write rejects it',
    clause: 'requests.unknownFields.consistent',
    level: 'inferred',
    change: {
      operations: ['updateMetric'],
      schema: (s, part) => {
        if (part === 'body') delete s.$defs.UpdateMetricRequest.additionalProperties;
      },
    },
  },
  {
    name: 'concurrent-write-500',
    kind: 'fault',
    layer: 'request',
    description: 'a write to a gate or metric while another write to it is in flight answers 500 (a lock wait surfaced as an internal error)',
    clause: 'writes.concurrentSafe',
    level: 'inferred',
    change: {
      operations: ['addGateRules', 'updateMetric'],
      hold: { key: writtenResource, ms: 40, refuse: (key) => new HttpError(500, `${key}: lock wait timeout exceeded`) },
    },
  },
  {
    name: 'unknown-phase-skips-current',
    kind: 'fault',
    layer: 'request',
    description: "skip and unpause with a phaseID that is no phase of the trigger's pipeline act on the current phase instead of refusing",
    clause: 'triggers.phaseID.unknown',
    level: 'inferred',
    change: {
      operations: TRIGGER_WRITES,
      rewrite: (r, store) => {
        const trigger = store.getTrigger(r.params.id);
        const phases = trigger ? (store.getPipeline(trigger.releasePipelineID)?.phases ?? []) : [];
        if (trigger && isObject(r.body) && !phases.some((p: { id: string }) => p.id === r.body.phaseID)) r.body.phaseID = trigger.currentPhaseID;
      },
    },
  },

  // ------------------------------------------------------------------ optional headers and overlapping writes (spec 4.0, 4.7)
  {
    name: 'review-header-500',
    kind: 'fault',
    layer: 'request',
    description: 'a write carrying x-respect-review-settings (any value) answers 500: the server fails to load the review settings it was asked to respect',
    clause: 'reviewSettings.header.no5xx',
    level: 'inferred',
    change: {
      operations: Object.keys(WRITES),
      check: (r) => {
        if (r.headers['x-respect-review-settings'] !== undefined) throw new HttpError(500, 'review settings could not be loaded');
      },
    },
  },
  // An observation is a request like any other: a 500 to it is reported (the suite's client judges every answer).
  {
    name: 'observed-operator-500',
    kind: 'fault',
    files: ['gates'],
    layer: 'request',
    description:
      'add rules with a condition whose operator is none answers 500 (an operator the rule evaluator has no case for): the request the suite sends only to observe which condition values a target takes',
    clause: 'errors.no5xx',
    level: 'inferred',
    change: {
      operations: ['addGateRules'],
      check: (r) => {
        const rules: unknown[] = Array.isArray(r.body?.rules) ? r.body.rules : [];
        if (rules.some((rule: Json) => Array.isArray(rule?.conditions) && rule.conditions.some((c: Json) => c?.operator === 'none')))
          throw new HttpError(500, 'no evaluator for operator none');
      },
    },
  },
  {
    name: 'enable-review-header-required',
    kind: 'fault',
    layer: 'request',
    description: 'enable refuses (400) a request without x-respect-review-settings: the optional header is read as required',
    clause: 'reviewSettings.header.optional',
    level: 'stated',
    change: {
      operations: ['enableGate'],
      check: (r) => {
        if (r.headers['x-respect-review-settings'] === undefined) throw badRequest('header x-respect-review-settings is required');
      },
    },
  },
  {
    name: 'json-body-charset-required',
    kind: 'fault',
    layer: 'request',
    description:
      'a write whose body is sent as Content-Type: application/json without charset=utf-8 is refused with 415 (a parser registered for "application/json; charset=utf-8" only)',
    clause: 'requests.json',
    level: 'stated',
    change: {
      operations: Object.keys(WRITES),
      check: (r) => {
        const type = String(r.headers['content-type'] ?? '');
        if (type !== '' && !/;\s*charset=utf-8/i.test(type))
          throw new HttpError(415, `unsupported media type ${JSON.stringify(type)}: send application/json; charset=utf-8`);
      },
    },
  },
  {
    name: 'metric-update-lost-on-overlap',
    kind: 'fault',
    layer: 'request',
    description:
      'an update reads the stored metric, works for 40 ms, then writes the whole metric back with the fields it was sent: of two updates that overlap, the later write undoes the earlier (both answered 200)',
    clause: 'writes.concurrentNoLostUpdate',
    level: 'inferred',
    change: {
      operations: ['updateMetric'],
      // The read: every field an update may set, as stored now, becomes part of what this update writes.
      rewrite: (r, store) => {
        const stored = store.getMetric(r.params.id);
        if (!stored || !isObject(r.body) || r.body.dryRun === true) return;
        const whole: Record<string, unknown> = {};
        for (const k of METRIC_UPDATE_FIELDS) if (Object.hasOwn(stored, k) && !Object.hasOwn(r.body, k)) whole[k] = stored[k];
        r.body = { ...whole, ...r.body };
      },
      // The gap between that read and the write.
      delay: 40,
    },
  },
  {
    name: 'gate-rules-lost-on-overlap',
    kind: 'fault',
    layer: 'request',
    description:
      "add rules reads the gate's rules when the request arrives, works for 40 ms, then writes back what it read and the rules it adds: of two adds that overlap, the later write undoes the earlier (both answered 200 with the gate as written)",
    clause: 'gates.addRules.concurrentNoLostAdd',
    level: 'inferred',
    change: {
      operations: ['addGateRules'],
      // The read.
      rewrite: (r, store) => {
        const gate = store.getGate(r.params.id);
        if (gate && isObject(r.body)) readAtArrival.set(r.body, { store, rules: gate.rules });
      },
      // The gap between that read and the write.
      delay: 40,
      // The write: what was read, and the rules this add made (the last ones of the gate the handler stored).
      answer: (r) => {
        const read = isObject(r.request.body) ? readAtArrival.get(r.request.body) : undefined;
        const gate = r.body?.data;
        if (!read || !isObject(gate) || !Array.isArray(gate.rules)) return;
        const added = Array.isArray(r.request.body.rules) ? r.request.body.rules.length : 0;
        const written = { ...gate, rules: [...read.rules, ...gate.rules.slice(gate.rules.length - added)] } as Doc;
        read.store.putGate(written);
        r.body.data = written;
      },
    },
  },
  {
    name: 'overrides-merge-lost-on-overlap',
    kind: 'fault',
    layer: 'request',
    description:
      "a patch merges what it sends into the experiment's overrides as it read them when the request arrived, 40 ms before it writes: of two patches that overlap, the later write undoes the earlier (both answered 200 with the overrides as written)",
    clause: 'overrides.patch.concurrentNoLostPatch',
    level: 'inferred',
    change: {
      operations: ['patchExperimentOverrides'],
      // The read.
      rewrite: (r, store) => {
        const held = store.getOverrides(r.params.id);
        if (held && isObject(r.body)) overridesAtArrival.set(r.body, { store, id: r.params.id, held });
      },
      // The gap between that read and the write.
      delay: 40,
      // The write: what was read, and what this patch sent, appended.
      answer: (r) => {
        const read = isObject(r.request.body) ? overridesAtArrival.get(r.request.body) : undefined;
        const sent = r.request.body as Overrides;
        if (!read || !isObject(r.body?.data) || !Array.isArray(sent?.overrides) || !Array.isArray(sent?.userIDOverrides)) return;
        const written: Overrides = {
          overrides: [...read.held.overrides, ...sent.overrides],
          userIDOverrides: [...read.held.userIDOverrides, ...sent.userIDOverrides],
        };
        r.body.data = read.store.putOverrides(read.id, written);
      },
    },
  },

  // ------------------------------------------------------------------ legal: how a request is read
  {
    name: 'default-limit-50',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description: 'the default page size is 50 (spec 4.4)',
    clause: 'experiments.list.limit',
    level: 'open',
    change: {
      operations: LISTS,
      rewrite: (r) => {
        r.query.limit ??= 50;
      },
    },
  },
  {
    name: 'page-cap',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description:
      'both lists clamp limit to at most 50 items a page, the default included; page-cap:<N> sets the cap (spec 4.4: maximum of limit not shown; real servers cap pages)',
    clause: 'experiments.list.limit',
    level: 'open',
    parameter: {
      syntax: 'page-cap:<N>',
      configure: (text) => {
        const cap = text === undefined ? 50 : Number(text);
        if (text !== undefined && (!/^\d+$/.test(text) || cap < 1 || cap > MAX_LIMIT))
          return `variant "page-cap:${text}" must be page-cap:<N>, N an integer from 1 to ${MAX_LIMIT}`;
        return {
          operations: LISTS,
          rewrite: (r) => {
            r.query.limit = Math.min(typeof r.query.limit === 'number' ? r.query.limit : cap, cap);
          },
        };
      },
    },
  },
  {
    name: 'pages-from-0',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description: 'both lists number their pages from 0: page=0 is the first page, page=1 the second (spec 4.4: default of page not shown)',
    clause: 'experiments.list.limit',
    level: 'open',
    change: {
      operations: LISTS,
      // The client's page n is the reference's page n + 1; below 0 is the first page, as below 1 is without it.
      rewrite: (r) => {
        if (typeof r.query.page === 'number') r.query.page = Math.max(r.query.page, 0) + 1;
      },
      answer: (r) => {
        const pg = r.body?.pagination;
        if (pg && typeof pg === 'object') for (const k of ['pageNumber', 'nextPage', 'previousPage', 'page']) if (typeof pg[k] === 'number') pg[k] -= 1;
      },
    },
  },
  {
    name: 'tags-brackets',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description: 'the tags filter is read from tags[]=x (repeatable), and tags=x is ignored (spec 4.4: type and encoding not shown)',
    clause: 'experiments.list.tags.encoding',
    level: 'open',
    change: {
      operations: ['listExperiments'],
      // As PHP and Rails clients send an array.
      rewrite: (r) => {
        const tags = r.query['tags[]'];
        delete r.query['tags[]'];
        if (tags === undefined) delete r.query.tags;
        else r.query.tags = tags;
      },
    },
  },
  {
    name: 'conditions-normalized',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description: "a condition's targetValue is kept as a sorted set, not in the order sent (spec 2.4: an array of string; its order is not a stated property)",
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: {
      operations: ['addGateRules'],
      rewrite: (r) => {
        for (const rule of r.body.rules ?? [])
          for (const c of rule.conditions ?? []) if (Array.isArray(c.targetValue)) c.targetValue = [...c.targetValue].sort();
      },
    },
  },

  // ------------------------------------------------------------------ legal: refusals the spec leaves open (part 7)
  {
    name: 'paging-out-of-range-400',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description: 'a limit outside 1 to 100 or a page below 1 is rejected with 400 instead of clamped (spec 4.4, 8)',
    clause: 'experiments.list.limit',
    level: 'open',
    change: {
      operations: LISTS,
      check: (r) => {
        const { limit, page } = r.query;
        if (limit !== undefined && (limit < 1 || limit > MAX_LIMIT)) throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
        if (page !== undefined && (page < 1 || page > Number.MAX_SAFE_INTEGER))
          throw badRequest(`page must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`);
      },
    },
  },
  {
    name: 'metric-name-ascii-only',
    kind: 'variant',
    strict: 'warns',
    layer: 'request',
    description:
      'a metric name with a character outside printable ASCII is refused with 400 (spec 8 bounds only the length; which characters a name may hold is not said)',
    clause: 'metrics.create.name.characters',
    level: 'inferred',
    change: {
      operations: ['createMetric'],
      check: (r) => {
        if (/[^\x20-\x7e]/.test(String(r.body.name))) throw badRequest('name must be printable ASCII');
      },
    },
  },
  {
    name: 'overrides-known-groups-only',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description:
      'an override or user ID override whose groupID is not a group of the experiment is refused with 400 (spec 4.11: which item values are taken is not shown)',
    clause: 'overrides.patch.items.values',
    level: 'open',
    change: {
      operations: ['patchExperimentOverrides'],
      // An unknown experiment is left to the handler (404).
      check: (r, store) => {
        const experiment = store.getExperiment(r.params.id);
        if (!experiment) return;
        const groups = new Set((experiment.groups as { id: string }[]).map((g) => g.id));
        const unknown = [...r.body.overrides, ...(r.body.userIDOverrides ?? [])].map((o) => o.groupID).find((g) => !groups.has(String(g)));
        if (unknown !== undefined) throw badRequest(`groupID ${JSON.stringify(unknown)} is not a group of experiment ${r.params.id}`);
      },
    },
  },
  {
    name: 'steady-429',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description:
      'every 4th request (counted across the server, with or without a key) is answered 429 with Retry-After: 1 and an error body, and does nothing; steady-429:<every>:<seconds> sets both (spec 8: rate limits not shown; 7: failure codes not shown)',
    clause: 'limits.rateAndMaxPageSize',
    level: 'open',
    parameter: {
      syntax: 'steady-429:<every>:<seconds>',
      configure: (text) => {
        const p = parseSteady429(text);
        if (typeof p === 'string') return p;
        let count = 0;
        return {
          arrive: () =>
            ++count % p.every === 0 ? new HttpError(429, `too many requests: try again in ${p.seconds} s`, { 'retry-after': String(p.seconds) }) : undefined,
        };
      },
    },
  },
  {
    name: 'write-conflict-409',
    kind: 'variant',
    strict: 'pass',
    layer: 'request',
    description:
      'a write (add rules, enable, disable, overrides, skip, unpause, create or update metric) holds its resource for 40 ms before it answers; another write to the same resource meanwhile is refused with 409 and stores nothing (spec 7: failure codes not shown)',
    clause: 'writes.concurrentSafe',
    level: 'inferred',
    change: { operations: Object.keys(WRITES), hold: { key: writtenResource, ms: 40 } },
  },
] as const satisfies readonly RequestSwitch[];
