// Fault injection and legal variations, for the conformance suite's self-test.
// A fault is a defect the suite must catch; a variant is a behaviour the spec allows because it
// says "not shown", which the suite must accept. Both are off unless named on the command line.

import { OPERATIONS } from '../contracts/index.ts';

export interface Switch {
  name: string;
  description: string;
  clause: string;
}
/**
 * A legal variation, with what the self-test expects of the suite against it: 'pass' passes under
 * --strict; 'warns' is legal but meets an inferred clause (a field the spec lists, absent), so it passes
 * in default mode with at least one warning, and --strict fails it on that clause (docs/vendor-shapes.md).
 */
export interface Variant extends Switch {
  strict: 'pass' | 'warns';
}

export const FAULTS = [
  { name: 'auth-any-key', description: 'any SERVICE-API-KEY value is accepted', clause: 'auth.key.required' },
  { name: 'auth-missing-key-ok', description: 'a request without SERVICE-API-KEY is served', clause: 'auth.key.required' },
  { name: 'auth-query-key-ok', description: 'the key is accepted from the query string', clause: 'auth.key.headerOnly' },
  { name: 'auth-query-api-key-ok', description: 'the key is accepted from the query string as api_key or key', clause: 'auth.key.headerOnly' },
  { name: 'auth-body-key-ok', description: 'the key is accepted from the JSON body field apiKey', clause: 'auth.key.headerOnly' },
  { name: 'auth-skip-no-key', description: 'skip (only) is served without a key', clause: 'auth.key.required' },
  { name: 'auth-unpause-no-key', description: 'unpause (only) is served without a key', clause: 'auth.key.required' },
  { name: 'auth-update-metric-no-key', description: 'update metric (only) is served without a key', clause: 'auth.key.required' },
  { name: 'wrong-message-add-rules', description: 'add rules answers another message', clause: 'gates.addRules.message' },
  { name: 'wrong-message-gate-updated', description: 'enable/disable answer another message', clause: 'gates.disable.message' },
  { name: 'wrong-message-experiments', description: 'list experiments answers another message', clause: 'experiments.list.message' },
  { name: 'wrong-message-pipelines', description: 'list pipelines answers another message', clause: 'pipelines.list.message' },
  { name: 'wrong-message-metric-created', description: 'create metric answers another message', clause: 'metrics.create.message' },
  { name: 'wrong-message-metric-updated', description: 'update metric answers another message', clause: 'metrics.update.message' },
  { name: 'disable-keeps-enabled', description: 'disable leaves isEnabled true', clause: 'gates.disable.isEnabled' },
  { name: 'rules-without-id', description: 'added rules come back without id and baseID', clause: 'gates.addRules.rules.fields' },
  { name: 'rules-environments-omitted', description: 'rules without environments omit the field instead of null', clause: 'gates.addRules.environments.null' },
  { name: 'disable-not-persisted', description: 'disable answers isEnabled false but the stored gate keeps its state', clause: 'gates.disable.isEnabled' },
  {
    name: 'rule-zero-pass-omitted',
    description: 'a rule with passPercentage 0 comes back without passPercentage (omitempty)',
    clause: 'gates.addRules.rules.fields',
  },
  { name: 'rule-passpercentage-truncated', description: 'passPercentage is stored as an integer (12.5 comes back 12)', clause: 'gates.addRules.rules.fields' },
  {
    name: 'rules-conditions-empty-omitted',
    description: 'a rule with no conditions comes back without conditions (omitempty)',
    clause: 'gates.addRules.rules.fields',
  },
  {
    name: 'enable-disable-rules-environments-omitted',
    description: 'enable and disable answer rules without environments instead of null',
    clause: 'gates.addRules.environments.null',
  },
  { name: 'metric-name-3-accepted', description: 'a metric name of 3 characters is accepted', clause: 'metrics.create.name.length' },
  { name: 'metric-name-201-accepted', description: 'a metric name of 201 characters is accepted', clause: 'metrics.create.name.length' },
  { name: 'metric-name-4-rejected', description: 'a metric name of 4 characters is rejected', clause: 'metrics.create.name.length' },
  { name: 'metric-description-1001-accepted', description: 'a description of 1001 characters is accepted', clause: 'metrics.create.description.maxLength' },
  { name: 'overrides-1001-accepted', description: '1001 overrides are accepted', clause: 'overrides.patch.overrides.maxItems' },
  { name: 'overrides-1000-rejected', description: '1000 overrides are rejected', clause: 'overrides.patch.overrides.maxItems' },
  { name: 'metric-type-unknown-accepted', description: 'an unknown metric type is accepted', clause: 'metrics.create.type.enum' },
  { name: 'metric-type-optional', description: 'a metric without type is accepted', clause: 'metrics.create.type.required' },
  { name: 'phaseid-optional', description: 'skip and unpause without phaseID act on the current phase', clause: 'triggers.skip.phaseID.required' },
  { name: 'userid-overrides-optional', description: 'overrides without userIDOverrides are accepted', clause: 'overrides.patch.userIDOverrides.required' },
  { name: 'metric-dryrun-persists', description: 'a dryRun create persists the metric', clause: 'metrics.create.dryRun' },
  { name: 'metric-update-dryrun-persists', description: 'a dryRun update persists the change', clause: 'metrics.update.dryRun' },
  { name: 'metric-id-shape-wrong', description: 'metric id is the bare name, not <name>::<type>', clause: 'metric.id.shape' },
  { name: 'directionality-default-decrease', description: 'directionality defaults to decrease', clause: 'metrics.create.directionality.default' },
  { name: 'metric-update-ignores-description', description: 'update does not apply description', clause: 'metrics.update.applies' },
  { name: 'filter-status-ignored', description: 'the status filter is ignored', clause: 'experiments.list.filters' },
  { name: 'filter-idtype-ignored', description: 'the idType filter is ignored', clause: 'experiments.list.filters' },
  { name: 'filter-tags-ignored', description: 'the tags filter is ignored', clause: 'experiments.list.filters' },
  { name: 'filtered-page-ignored', description: 'when a filter is given, page is ignored: every page is the first', clause: 'paging.disjointUnion' },
  { name: 'filters-or-combined', description: 'several filters are combined with OR instead of AND', clause: 'filters.oracle' },
  {
    name: 'experiments-empty-message',
    description: 'list experiments answers "No experiments found." on a page with no items',
    clause: 'experiments.list.message',
  },
  { name: 'pipelines-empty-message', description: 'list pipelines answers "No pipelines found" on a page with no items', clause: 'pipelines.list.message' },
  { name: 'page-overlap', description: 'consecutive pages share an item', clause: 'paging.disjointUnion' },
  { name: 'limit-ignored', description: 'pages hold more items than limit', clause: 'paging.limit' },
  { name: 'pagination-missing', description: 'list responses lack pagination', clause: 'envelope.pagination' },
  { name: 'validation-500', description: 'schema violations answer 500', clause: 'errors.badInput.4xx' },
  { name: 'envelope-data-renamed', description: 'list experiments puts the page under "experiments" instead of "data"', clause: 'envelope.data' },
  { name: 'created-time-string', description: 'experiments carry createdTime as a string', clause: 'experiment.field.createdTime' },
  { name: 'overrides-not-persisted', description: 'patched overrides are not stored', clause: 'overrides.patch.persisted' },
  { name: 'trigger-actions-missing', description: 'skip/unpause responses lack the actions array', clause: 'triggers.skip.response' },
  {
    name: 'metric-name-counts-bytes',
    description: 'metric name length 4 to 200 is counted in UTF-8 bytes, not characters',
    clause: 'metrics.create.name.length',
  },
  {
    name: 'metric-description-counts-bytes',
    description: 'description length up to 1000 is counted in UTF-8 bytes, not characters',
    clause: 'metrics.create.description.maxLength',
  },
  { name: 'metric-update-dryrun-persists-tags', description: 'a dryRun update persists the tags (only)', clause: 'metrics.update.dryRun' },
  { name: 'metric-update-dryrun-persists-description', description: 'a dryRun update persists the description (only)', clause: 'metrics.update.dryRun' },
  {
    name: 'metric-update-dryrun-persists-warehousenative',
    description: 'a dryRun update persists the warehouseNative object (only)',
    clause: 'metrics.update.dryRun',
  },
  {
    name: 'metric-update-not-persisted',
    description: 'an update (not dryRun) answers the updated metric but does not store it',
    clause: 'metrics.update.applies',
  },
  {
    name: 'metric-update-dryrun-false-not-persisted',
    description: 'an update sending dryRun false is treated as a dry run (not stored)',
    clause: 'metrics.update.dryRun',
  },
  {
    name: 'metric-dryrun-false-not-persisted',
    description: 'a create sending dryRun false is treated as a dry run (not stored)',
    clause: 'metrics.create.dryRun',
  },
  { name: 'metric-id-name-lowercased', description: 'the name part of a metric id is lower-cased', clause: 'metric.id.shape' },
  { name: 'metric-id-name-truncated', description: 'the name part of a metric id is cut to 100 characters', clause: 'metric.id.shape' },
  {
    name: 'metric-id-length-limit',
    description: 'a create whose id <name>::<type> would exceed 210 characters is refused (a 200-character name with a long type)',
    clause: 'metrics.create.name.length',
  },
  {
    name: 'metric-create-ignores-flags',
    description: 'create ignores isVerified, isReadOnly and isPermanent (always false)',
    clause: 'metrics.create.echoesInput',
  },
  { name: 'metric-create-ignores-unittypes', description: 'create ignores unitTypes (always empty)', clause: 'metrics.create.echoesInput' },
  { name: 'metric-update-ignores-ispermanent', description: 'update does not apply isPermanent', clause: 'metrics.update.applies' },
  {
    name: 'metric-update-tags-append',
    description: 'update appends the tags sent to the ones stored instead of setting them',
    clause: 'metrics.update.applies',
  },
  { name: 'add-rules-duplicates', description: 'each added rule is stored (and returned) twice', clause: 'gates.addRules.response.gate' },
  {
    name: 'overrides-duplicated',
    description: 'the first patched override is stored twice and the last not at all (as many items as sent), and each user id twice',
    clause: 'overrides.patch.persisted',
  },
] as const satisfies readonly Switch[];

export const VARIANTS = [
  {
    name: 'create-metric-201',
    description: 'create metric answers 201 (spec 4.0 shows 200 only for four other operations)',
    clause: 'metrics.create.message',
    strict: 'pass',
  },
  {
    name: 'dryrun-create-summary',
    description:
      'a dryRun create, and a dryRun update, answers {message, data: {id, dryRun: true, valid: true}} instead of the Metric (spec 4.6: the response to a dryRun is not shown)',
    clause: 'metrics.create.dryRun.response',
    strict: 'pass',
  },
  {
    name: 'metric-write-version',
    description:
      'metrics carry version (1 when created, one more on every stored write) and updatedTime, fields that record writes and that 2.8 does not list (part 2 does not close the objects)',
    clause: 'metrics.update.dryRun',
    strict: 'pass',
  },
  {
    name: 'errors-422-other-shape',
    description: 'validation errors answer 422 with {"errors": [{"path", "detail"}]} (spec 7)',
    clause: 'errors.shape',
    strict: 'pass',
  },
  {
    name: 'overrides-toplevel-response',
    description: 'overrides response has the arrays at the top level, as in the example of 4.11',
    clause: 'overrides.patch.response',
    strict: 'pass',
  },
  { name: 'pagination-other-fields', description: 'pagination is {"page", "limit", "hasMore"} (spec 2.1)', clause: 'pagination.fields', strict: 'pass' },
  { name: 'order-by-id', description: 'lists are ordered by id (spec 4.4)', clause: 'experiments.list.order', strict: 'pass' },
  { name: 'rules-replace', description: 'add rules replaces the existing rules (spec 4.1)', clause: 'gates.addRules.merge', strict: 'pass' },
  {
    name: 'conditions-normalized',
    description: "a condition's targetValue is kept as a sorted set, not in the order sent (spec 2.4: an array of string; its order is not a stated property)",
    clause: 'gates.addRules.rules.fields',
    strict: 'pass',
  },
  { name: 'overrides-merge', description: 'patched overrides are appended to the existing ones (spec 4.11)', clause: 'overrides.patch.merge', strict: 'pass' },
  {
    name: 'overrides-one-per-target',
    description: 'one override is kept per type, id and environment: the last one sent for it (spec 4.11: merge and the items that matter are not shown)',
    clause: 'overrides.patch.merge',
    strict: 'pass',
  },
  { name: 'default-limit-50', description: 'the default page size is 50 (spec 4.4)', clause: 'experiments.list.limit', strict: 'pass' },
  {
    name: 'pages-from-0',
    description: 'both lists number their pages from 0: page=0 is the first page, page=1 the second (spec 4.4: default of page not shown)',
    clause: 'experiments.list.limit',
    strict: 'pass',
  },
  {
    name: 'unfiltered-hides-archived',
    description: 'archived experiments are listed only under status=archived, not in the list without a status filter (spec 4.4: all filters optional)',
    clause: 'experiments.list.unfiltered.statuses',
    strict: 'pass',
  },
  {
    name: 'created-dates-los-angeles',
    description: 'createdStartDate and createdEndDate are days of UTC-8 (Los Angeles standard time), not UTC (spec 4.4: YYYY-MM-DD, time zone not shown)',
    clause: 'experiments.list.createdDate.inclusive',
    strict: 'pass',
  },
  {
    name: 'tags-brackets',
    description: 'the tags filter is read from tags[]=x (repeatable), and tags=x is ignored (spec 4.4: type and encoding not shown)',
    clause: 'experiments.list.tags.encoding',
    strict: 'pass',
  },
  {
    name: 'paging-out-of-range-400',
    description: 'a limit outside 1 to 100 or a page below 1 is rejected with 400 instead of clamped (spec 4.4, 8)',
    clause: 'experiments.list.limit',
    strict: 'pass',
  },
  {
    name: 'metric-name-ascii-only',
    description:
      'a metric name with a character outside printable ASCII is refused with 400 (spec 8 bounds only the length; which characters a name may hold is not said)',
    clause: 'metrics.create.name.characters',
    strict: 'warns',
  },
  {
    name: 'overrides-known-groups-only',
    description:
      'an override or user ID override whose groupID is not a group of the experiment is refused with 400 (spec 4.11: which item values are taken is not shown)',
    clause: 'overrides.patch.items.values',
    strict: 'pass',
  },
  {
    name: 'errors-problem-json',
    description:
      "every error answers application/problem+json (RFC 9457: type, title, status, detail) instead of the reference's own shape (spec 7: error bodies not shown)",
    clause: 'errors.shape',
    strict: 'pass',
  },
  {
    name: 'errors-plain-text',
    description: 'every error answers one line of text/plain, a framework default (spec 7: error bodies not shown)',
    clause: 'errors.shape',
    strict: 'pass',
  },
  { name: 'unauthorized-403', description: 'a missing or wrong key answers 403 instead of 401 (spec 7)', clause: 'errors.shape', strict: 'pass' },
  { name: 'timestamps-seconds', description: 'experiment timestamps are in seconds (spec 2.2)', clause: 'experiment.timestamps.unit', strict: 'pass' },
  { name: 'extra-response-fields', description: 'responses carry fields the spec does not list', clause: 'envelope.message', strict: 'pass' },
  { name: 'skip-message-other', description: 'skip answers another message text (spec 4.9)', clause: 'triggers.skip.response', strict: 'pass' },
  {
    name: 'omit-when-empty',
    description:
      'null, "" and [] fields are left out of response objects (Go omitempty, Jackson NON_EMPTY), except where the spec states presence: envelope message/data/pagination (2.1), the six fields of add-rules rules with environments null (2.3, 4.1), owner and monitoringMetrics on enable/disable (2.2); the tables of part 2 list fields without saying each is always sent',
    clause: 'response.listedFieldsPresent',
    strict: 'warns',
  },
  {
    name: 'vendor-optional-absent',
    description:
      'fields the vendor marks optional are absent (gate name/idType/tags/team..., experiment creatorID/owner/healthChecks..., trigger description/gateID/dynamicConfigID and actorID of STARTED actions, metric fields never set); the tables of part 2 list fields without saying each is always sent',
    clause: 'response.listedFieldsPresent',
    strict: 'warns',
  },
  {
    name: 'vendor-extra-fields',
    description:
      'responses carry the fields the vendor sends that the spec does not list (gate version/teamID/isTemplate, experiment team/experimentType/isStale/controlGroupID, pipeline lastModifiedTime, trigger configSnapshotID, metric lastModifier*, pagination all); part 2 lists fields, it does not close the objects',
    clause: 'envelope.data',
    strict: 'pass',
  },
  {
    name: 'enum-values-beyond-seen',
    description:
      'open enums carry values the spec does not show (gate status Disabled, type STALE, typeReason STALE_*, ownerType, healthCheckStatus, condition type/operator, action type APPROVED_FOR, trigger status names, metricEvents type count): the spec says "values seen" and "beyond ...: not shown" (2.2, 2.4, 2.5, 2.7, 2.8); closed enums are untouched',
    clause: 'gate.status.values',
    strict: 'pass',
  },
] as const satisfies readonly Variant[];

/** The name of a fault: ctx.fault('...') with a name not in FAULTS does not compile. */
export type FaultName = (typeof FAULTS)[number]['name'];
/** The name of a variant: ctx.variant('...') with a name not in VARIANTS does not compile. */
export type VariantName = (typeof VARIANTS)[number]['name'];

export const isFault = (name: string): name is FaultName => FAULTS.some((f) => f.name === name);
export const isVariant = (name: string): name is VariantName => VARIANTS.some((v) => v.name === name);

type Schema = Record<string, any>;

/** Schema-level faults: the contract's request schema, loosened or tightened. */
export function faultSchema(operationId: string, part: 'body' | 'querystring' | 'params', schema: Schema, faults: ReadonlySet<FaultName>): Schema {
  if (part !== 'body') return schema;
  const s = structuredClone(schema);
  delete s.$id; // a changed schema must not be confused with the contract's own in the validator cache
  const defs = s.$defs ?? {};
  if (operationId === 'createMetric') {
    const m = defs.CreateMetricRequest;
    if (faults.has('metric-name-3-accepted')) m.properties.name.minLength = 3;
    if (faults.has('metric-name-201-accepted')) m.properties.name.maxLength = 201;
    if (faults.has('metric-name-4-rejected')) m.properties.name.minLength = 5;
    if (faults.has('metric-description-1001-accepted')) m.properties.description.maxLength = 1001;
    if (faults.has('metric-type-unknown-accepted')) delete defs.MetricTypeName.enum;
    if (faults.has('metric-type-optional')) m.required = m.required.filter((f: string) => f !== 'type');
    // Counted in bytes by the route instead (reference/routes/metrics.ts).
    if (faults.has('metric-name-counts-bytes')) {
      delete m.properties.name.minLength;
      delete m.properties.name.maxLength;
    }
    if (faults.has('metric-description-counts-bytes')) delete m.properties.description.maxLength;
  }
  if (operationId === 'patchExperimentOverrides') {
    const o = defs.OverridesPatchRequest;
    if (faults.has('overrides-1001-accepted')) o.properties.overrides.maxItems = 1001;
    if (faults.has('overrides-1000-rejected')) o.properties.overrides.maxItems = 999;
    if (faults.has('userid-overrides-optional')) o.required = o.required.filter((f: string) => f !== 'userIDOverrides');
  }
  if ((operationId === 'skipTriggerPhase' || operationId === 'unpauseTrigger') && faults.has('phaseid-optional')) {
    defs.TriggerPhaseRequest.required = [];
  }
  return s;
}

/**
 * Faults with a parameter, for measuring the load compare rather than the suite: not in FAULTS (whose
 * names are a closed union the routes test for), parsed and checked apart (parseSlowFault).
 */
export const PARAMETRISED_FAULTS = [
  {
    name: 'slow:<operationId>:<percent>',
    description:
      "one operation answers that much slower: its total time (injected --latency plus handler time) is scaled by 1 + percent/100; only requests that reach the operation's handler (not one refused by the key check)",
    clause: 'none: a regression of known size for the load compare (docs/load.md)',
  },
] as const satisfies readonly Switch[];

/** A parsed `slow:<operationId>:<percent>`. */
export interface SlowFault {
  operationId: string;
  percent: number;
}

export const isSlowFault = (name: string): boolean => name.startsWith('slow:');

/** `slow:<operationId>:<percent>` as a SlowFault, or the one-line reason it is not one. */
export function parseSlowFault(name: string): SlowFault | string {
  const m = /^slow:([^:]*):([^:]*)$/.exec(name);
  if (!m) return `fault ${JSON.stringify(name)} must be slow:<operationId>:<percent>`;
  const [, operationId, text] = m;
  if (!Object.hasOwn(OPERATIONS, operationId))
    return `fault ${JSON.stringify(name)}: unknown operationId ${JSON.stringify(operationId)} (one of ${Object.keys(OPERATIONS).sort().join(', ')})`;
  const percent = Number(text);
  if (text.trim() === '' || !Number.isFinite(percent) || percent <= 0 || percent > 10_000)
    return `fault ${JSON.stringify(name)}: the percent must be a number above 0 and at most 10000, got ${JSON.stringify(text)}`;
  return { operationId, percent };
}

/** The slow: faults among the given fault names (assumed checked by checkSwitches). */
export function slowFaults(faults: readonly string[]): SlowFault[] {
  return faults
    .filter(isSlowFault)
    .map(parseSlowFault)
    .filter((f): f is SlowFault => typeof f !== 'string');
}

export function checkSwitches(faults: string[], variants: string[]): string | undefined {
  const slowed = new Set<string>();
  for (const f of faults) {
    if (!isSlowFault(f)) continue;
    const slow = parseSlowFault(f);
    if (typeof slow === 'string') return slow;
    if (slowed.has(slow.operationId)) return `fault slow:${slow.operationId} is given twice`;
    slowed.add(slow.operationId);
  }
  for (const f of faults) if (!isFault(f) && !isSlowFault(f)) return `unknown fault ${JSON.stringify(f)} (see --list-faults)`;
  for (const v of variants) if (!isVariant(v)) return `unknown variant ${JSON.stringify(v)} (see --list-faults)`;
  return undefined;
}
