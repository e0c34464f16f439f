// The response layer: switches that change the answer after the handler made it, keyed by operation
// (a message changed, a field dropped or given another type, another status, another shape). By
// default only success answers are changed; `errors: true` reaches error bodies too. Applied in order by
// plugins/response-layer.ts; the vendor-shaped variants come from shapes.ts.
import { randomBytes } from 'node:crypto';
import { SPEC_OPERATIONS } from '../../contracts/index.ts';
import { successMessage } from '../messages.ts';
import { type ShapeVariant, shapeResponse } from '../shapes.ts';
import { dropField, retypeField, setMessage } from './edits.ts';
import type { ResponseChange, ResponseSwitch, ResponseView } from './types.ts';

const LISTS = ['listExperiments', 'listReleasePipelines'];
const GATE_TOGGLES = ['enableGate', 'disableGate'];
const TRIGGER_WRITES = ['skipTriggerPhase', 'unpauseTrigger'];
const METRIC_WRITES = ['createMetric', 'updateMetric'];

/**
 * The message the spec states for the operations (they share one), reworded: stated relative to the
 * contract's text, so that the fault still answers a wrong message after a revision rewords it.
 */
const rewordedMessage = (operations: readonly string[]): ResponseChange => setMessage(operations, `${successMessage(operations[0])} (reworded)`);

const emptyPage = (r: ResponseView) => Array.isArray(r.body?.data) && r.body.data.length === 0;

/** One vendor-shaped variant (shapes.ts) on every operation's success answer. */
const vendorShape = (variant: ShapeVariant): ResponseChange => ({
  operations: 'all',
  transform: (r) => {
    if (r.operationId) r.body = shapeResponse(variant, r.operationId, r.body, r.request.body);
  },
});

export const RESPONSE_SWITCHES = [
  // ------------------------------------------------------------------ stated messages (spec 4)
  {
    name: 'wrong-message-add-rules',
    kind: 'fault',
    layer: 'response',
    description: 'add rules answers the message the spec states, reworded',
    clause: 'gates.addRules.message',
    level: 'stated',
    change: rewordedMessage(['addGateRules']),
  },
  {
    name: 'wrong-message-gate-updated',
    kind: 'fault',
    layer: 'response',
    description: 'enable/disable answer the message the spec states, reworded',
    clause: 'gates.disable.message',
    level: 'stated',
    change: rewordedMessage(GATE_TOGGLES),
  },
  {
    name: 'wrong-message-experiments',
    kind: 'fault',
    layer: 'response',
    description: 'list experiments answers the message the spec states, reworded',
    clause: 'experiments.list.message',
    level: 'stated',
    change: rewordedMessage(['listExperiments']),
  },
  {
    name: 'wrong-message-pipelines',
    kind: 'fault',
    layer: 'response',
    description: 'list pipelines answers the message the spec states, reworded',
    clause: 'pipelines.list.message',
    level: 'stated',
    change: rewordedMessage(['listReleasePipelines']),
  },
  {
    name: 'wrong-message-metric-created',
    kind: 'fault',
    layer: 'response',
    description: 'create metric answers the message the spec states, reworded',
    clause: 'metrics.create.message',
    level: 'stated',
    change: rewordedMessage(['createMetric']),
  },
  {
    name: 'wrong-message-metric-updated',
    kind: 'fault',
    layer: 'response',
    description: 'update metric answers the message the spec states, reworded',
    clause: 'metrics.update.message',
    level: 'stated',
    change: rewordedMessage(['updateMetric']),
  },
  {
    name: 'experiments-empty-message',
    kind: 'fault',
    layer: 'response',
    description: 'list experiments answers "No experiments found." on a page with no items',
    clause: 'experiments.list.message',
    level: 'stated',
    change: setMessage(['listExperiments'], 'No experiments found.', emptyPage),
  },
  {
    name: 'pipelines-empty-message',
    kind: 'fault',
    layer: 'response',
    description: 'list pipelines answers "No pipelines found" on a page with no items',
    clause: 'pipelines.list.message',
    level: 'stated',
    change: setMessage(['listReleasePipelines'], 'No pipelines found', emptyPage),
  },

  // ------------------------------------------------------------------ stated fields and envelope (spec 2)
  {
    name: 'enable-disable-rules-environments-omitted',
    kind: 'fault',
    layer: 'response',
    description: 'enable and disable answer rules without environments instead of null',
    clause: 'gates.addRules.environments.null',
    level: 'stated',
    change: dropField(GATE_TOGGLES, 'data.rules[].environments', (v) => v === null),
  },
  // A gate answer (enable, disable) is the Gate (4.2, 4.3), its rules (2.2) among its fields.
  {
    name: 'enable-disable-rules-empty',
    kind: 'fault',
    layer: 'response',
    description: 'enable and disable answer the gate with no rules (rules: []), whatever rules it holds',
    clause: 'gates.enableDisable.rules',
    level: 'stated',
    change: retypeField(GATE_TOGGLES, 'data.rules', () => []),
  },
  // timeMs is named for milliseconds (2.7); seconds since the epoch are about 1000 times smaller.
  {
    name: 'trigger-action-time-seconds',
    kind: 'fault',
    layer: 'response',
    description: "skip and unpause answer each action's timeMs in seconds since the epoch, not milliseconds",
    clause: 'trigger.actions.timeMs.unit',
    level: 'inferred',
    change: retypeField(TRIGGER_WRITES, 'data.actions[].timeMs', (ms) => (typeof ms === 'number' ? Math.floor(ms / 1000) : ms)),
  },
  {
    // The trigger without one of the fields 2.7 lists is still the trigger (4.9): the presence of a
    // listed field is inferred. skip-answers-pipeline (layers/storage.ts) is triggers.skip.response's fault.
    name: 'trigger-actions-missing',
    kind: 'fault',
    files: ['triggers'],
    layer: 'response',
    description: 'skip/unpause responses lack the actions array',
    clause: 'response.listedFieldsPresent',
    level: 'inferred',
    change: dropField(TRIGGER_WRITES, 'data.actions'),
  },
  {
    name: 'created-time-string',
    kind: 'fault',
    layer: 'response',
    description: 'experiments carry createdTime as a string',
    clause: 'experiment.field.createdTime',
    level: 'stated',
    change: retypeField(['listExperiments'], 'data[].createdTime', String),
  },
  {
    name: 'pagination-missing',
    kind: 'fault',
    layer: 'response',
    description: 'list responses lack pagination',
    clause: 'envelope.pagination',
    level: 'stated',
    change: dropField(LISTS, 'pagination'),
  },
  {
    name: 'envelope-data-renamed',
    kind: 'fault',
    layer: 'response',
    description: 'list experiments puts the page under "experiments" instead of "data"',
    clause: 'envelope.data',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      transform: (r) => {
        r.body.experiments = r.body.data;
        delete r.body.data;
      },
    },
  },
  // Spec 1: every success is a JSON object; a list answered as its bare array is not.
  {
    name: 'pipelines-bare-array',
    kind: 'fault',
    files: ['pipelines'],
    layer: 'response',
    description: 'list pipelines answers the page as a bare JSON array, with no object around it (no message, data or pagination)',
    clause: 'envelope.successObject',
    level: 'stated',
    change: {
      operations: ['listReleasePipelines'],
      transform: (r) => {
        r.body = r.body.data;
      },
    },
  },
  // Spec 4.0: every operation answers the envelope of 2.1; one that answers its resource bare leaves it out.
  {
    name: 'update-metric-unwrapped',
    kind: 'fault',
    layer: 'response',
    description: 'update metric answers the Metric itself, without the envelope (no message, no data around it)',
    clause: 'envelope.allEndpoints',
    level: 'stated',
    change: {
      operations: ['updateMetric'],
      transform: (r) => {
        r.body = r.body.data;
      },
    },
  },
  // Spec 2: field names are case-sensitive; a serializer that camel-cases an acronym spells baseID otherwise.
  {
    name: 'add-rules-baseid-camelcase',
    kind: 'fault',
    files: ['gates'],
    layer: 'response',
    description: "add rules answers each rule's baseID as baseId",
    clause: 'fields.caseSensitive',
    level: 'stated',
    change: {
      operations: ['addGateRules'],
      transform: (r) => {
        for (const rule of Array.isArray(r.body?.data?.rules) ? r.body.data.rules : []) {
          if (!rule || typeof rule !== 'object' || !('baseID' in rule)) continue;
          rule.baseId = rule.baseID;
          delete rule.baseID;
        }
      },
    },
  },

  // ------------------------------------------------------------------ inferred: statuses, media types, the key
  {
    name: 'disable-500-after-write',
    kind: 'fault',
    layer: 'response',
    description: 'disable stores the change, then answers 500 with the gate (a step after the write failed)',
    clause: 'responses.success.2xx',
    level: 'inferred',
    change: {
      operations: ['disableGate'],
      transform: (r) => {
        r.status = 500;
      },
    },
  },
  {
    name: 'success-text-plain',
    kind: 'fault',
    layer: 'response',
    description: 'list pipelines answers its JSON body as text/plain',
    clause: 'responses.json',
    level: 'inferred',
    change: {
      operations: ['listReleasePipelines'],
      transform: (r) => {
        r.contentType = 'text/plain; charset=utf-8';
      },
    },
  },
  {
    name: 'errors-echo-headers',
    kind: 'fault',
    files: ['auth'],
    layer: 'response',
    description: "error answers carry the request's headers back (a debug echo), the SERVICE-API-KEY among them",
    clause: 'auth.key.notEchoed',
    level: 'inferred',
    change: {
      operations: 'all',
      errors: true,
      transform: (r) => {
        if (r.status >= 400 && r.body && typeof r.body === 'object') r.body = { ...r.body, request: { headers: r.request.headers } };
      },
    },
  },

  // ------------------------------------------------------------------ legal: "not shown" answers
  {
    name: 'create-metric-201',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description: `create metric answers 201 (spec 4.0; its section, ${SPEC_OPERATIONS.createMetric.section}, shows no status: a success, ${SPEC_OPERATIONS.createMetric.successStatus})`,
    clause: 'metrics.create.message',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      transform: (r) => {
        r.status = 201;
      },
    },
  },
  {
    name: 'dryrun-create-summary',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description:
      'a dryRun create, and a dryRun update, answers {message, data: {id, dryRun: true, valid: true}} instead of the Metric (spec 4.6: the response to a dryRun is not shown)',
    clause: 'metrics.create.dryRun.response',
    level: 'open',
    // A real server answers both dry runs alike.
    change: {
      operations: METRIC_WRITES,
      transform: (r) => {
        if (r.request.body?.dryRun === true) r.body = { message: r.body.message, data: { id: r.body.data.id, dryRun: true, valid: true } };
      },
    },
  },
  {
    name: 'overrides-toplevel-response',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description: 'overrides response has the arrays at the top level, as in the example of 4.11',
    clause: 'overrides.patch.response',
    level: 'stated',
    // The spec declares the envelope but its example shows the arrays at the top level (4.11).
    change: {
      operations: ['patchExperimentOverrides'],
      transform: (r) => {
        r.body = r.body.data;
      },
    },
  },
  {
    name: 'pagination-other-fields',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description: 'pagination is {"page", "limit", "hasMore"} (spec 2.1)',
    clause: 'pagination.fields',
    level: 'open',
    change: {
      operations: LISTS,
      transform: (r) => {
        const pg = r.body.pagination;
        if (pg && typeof pg === 'object') r.body.pagination = { page: pg.pageNumber, limit: pg.itemsPerPage, hasMore: pg.nextPage !== null };
      },
    },
  },
  {
    name: 'timestamps-seconds',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description: 'experiment timestamps are in seconds (spec 2.2)',
    clause: 'experiment.timestamps.unit',
    level: 'open',
    change: {
      operations: ['listExperiments'],
      transform: (r) => {
        for (const path of ['data[].createdTime', 'data[].lastModifiedTime'])
          retypeField(['listExperiments'], path, (ms) => Math.floor(ms / 1000)).transform(r);
      },
    },
  },
  {
    name: 'extra-response-fields',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description: 'responses carry fields the spec does not list',
    clause: 'envelope.message',
    level: 'stated',
    // Every body with a message, error bodies and unknown paths included.
    change: {
      operations: 'all',
      errors: true,
      transform: (r) => {
        if (r.body && typeof r.body === 'object' && 'message' in r.body) r.body = { ...r.body, requestId: randomBytes(6).toString('hex') };
      },
    },
  },
  {
    name: 'skip-message-other',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description: 'skip answers another message text (spec 4.9)',
    clause: 'triggers.skip.response',
    level: 'stated',
    change: setMessage(['skipTriggerPhase'], 'Phase skipped'),
  },

  // ------------------------------------------------------------------ legal: vendor-shaped (shapes.ts, docs/vendor-shapes.md), in this order
  {
    name: 'enum-values-beyond-seen',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description:
      'open enums carry values the spec does not show (gate status Disabled, type STALE, typeReason STALE_*, ownerType, healthCheckStatus, condition type/operator, action type APPROVED_FOR, trigger status names, metricEvents type count): the spec says "values seen" and "beyond ...: not shown" (2.2, 2.4, 2.5, 2.7, 2.8); closed enums are untouched',
    clause: 'gate.status.values',
    level: 'open',
    change: vendorShape('enum-values-beyond-seen'),
  },
  {
    name: 'vendor-extra-fields',
    kind: 'variant',
    strict: 'pass',
    layer: 'response',
    description:
      'responses carry the fields the vendor sends that the spec does not list (gate version/teamID/isTemplate, experiment team/experimentType/isStale/controlGroupID, pipeline lastModifiedTime, trigger configSnapshotID, metric lastModifier*, pagination all); part 2 lists fields, it does not close the objects',
    clause: 'envelope.data',
    level: 'stated',
    change: vendorShape('vendor-extra-fields'),
  },
  {
    name: 'vendor-optional-absent',
    kind: 'variant',
    strict: 'warns',
    layer: 'response',
    description:
      'fields the vendor marks optional are absent (gate name/idType/tags/team..., experiment creatorID/owner/healthChecks..., trigger description/gateID/dynamicConfigID and actorID of STARTED actions, metric fields never set); the tables of part 2 list fields without saying each is always sent',
    clause: 'response.listedFieldsPresent',
    level: 'inferred',
    change: vendorShape('vendor-optional-absent'),
  },
  {
    name: 'omit-when-empty',
    kind: 'variant',
    strict: 'warns',
    layer: 'response',
    description:
      'null, "" and [] fields are left out of response objects (Go omitempty, Jackson NON_EMPTY), except where the spec states presence: envelope message/data/pagination (2.1), the six fields of add-rules rules with environments null (2.3, 4.1), owner and monitoringMetrics on enable/disable (2.2); the tables of part 2 list fields without saying each is always sent',
    clause: 'response.listedFieldsPresent',
    level: 'inferred',
    change: vendorShape('omit-when-empty'),
  },
] as const satisfies readonly ResponseSwitch[];
