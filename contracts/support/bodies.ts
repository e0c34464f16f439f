// Request bodies that use every field the spec lists (4.6 to 4.8, 2.9), for the "every field is
// accepted" checks. They are values, not shapes: each test first asks the contract
// (contracts/schemas, via requestErrors) whether the body is valid, so a drift between these values
// and openapi.yaml shows up as a failing precondition, not as a false alarm against the target.

import { OPERATIONS, SPEC_ALLOWED, schema } from '../index.ts';
import { DIRECTIONALITY_DEFAULT, DIRECTIONALITY_OTHER, WAREHOUSE_METRIC_TYPE } from './boundaries.ts';

const criterion = (column: string) => ({ type: 'value', column, condition: 'in', values: ['a', 'b'], nullVacuousOverride: false });

/** Every field of the warehouseNative object (spec 4.8), each with a value of its stated type. */
export function fullWarehouseNative(): Record<string, unknown> {
  return {
    aggregation: 'count',
    metricSourceName: 'cc_source',
    criteria: [criterion('country')],
    waitForCohortWindow: false,
    denominatorCriteria: [criterion('platform')],
    denominatorAggregation: 'count',
    denominatorCustomRollupEnd: 14,
    denominatorCustomRollupStart: 0,
    denominatorMetricSourceName: 'cc_source_denominator',
    denominatorRollupTimeWindow: 'custom',
    denominatorValueColumn: 'value',
    funnelCalculationWindow: 7,
    funnelCountDistinct: 'sessions',
    funnelEvents: [{ criteria: [criterion('step')], metricSourceName: 'cc_source', name: 'cc_step', sessionIdentifierField: 'session_id' }],
    funnelStartCriteria: 'start_event',
    metricDimensionColumns: ['country'],
    metricBakeDays: 1,
    numeratorAggregation: 'count',
    valueColumn: 'value',
    valueThreshold: 10,
    allowNullRatioDenominator: false,
    funnelStrictOrdering: true,
    funnelUseExposureAsFirstEvent: false,
    funnelTimestampAllowanceMs: 1000,
    funnelTimeToConvert: false,
    winsorizationHigh: 0.99,
    winsorizationLow: 0.01,
    winsorizationHighDenominator: 0.99,
    winsorizationLowDenominator: 0.01,
    cupedAttributionWindow: 7,
    rollupTimeWindow: 'custom',
    customRollUpStart: 0,
    customRollUpEnd: 14,
    onlyIncludeUsersWithConversionEvent: false,
    denominatorCustomRollupMeasureInMinutes: false,
    customRollupMeasureInMinutes: false,
    percentile: 95,
    useLogTransform: false,
    useSecondaryRetentionEvent: false,
    retentionEnd: 7,
    retentionLength: 7,
    logTransformBase: 10,
    cap: 1000,
    surrogateMetricMSE: 0.5,
  };
}

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  minLength?: number;
  minimum?: number;
  items?: Schema;
  $defs?: Record<string, Schema>;
};

/** A value `s` accepts, made from its type alone: for a field these bodies do not know by name. */
function acceptedValueOf(s: Schema, defs: Record<string, Schema>): unknown {
  if (s.$ref) return acceptedValueOf(defs[s.$ref.replace('#/$defs/', '')] ?? {}, defs);
  if (s.enum?.length) return s.enum[0];
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('null')) return null;
  if (types.includes('string')) return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  if (types.includes('integer') || types.includes('number')) return s.minimum ?? 1;
  if (types.includes('boolean')) return false;
  if (types.includes('array')) return [];
  return {};
}

/**
 * `body` with every other field of the operation's request schema added, each with a value of its
 * type: a field the spec adds is sent by the "every field is accepted" checks without a hand edit.
 */
function withEveryField(operationId: string, body: Record<string, unknown>): Record<string, unknown> {
  const file = OPERATIONS[operationId]?.body;
  if (!file) return body;
  const root = schema(file) as Schema & { properties?: Record<string, Schema> };
  const defs = root.$defs ?? {};
  // The body's schema is its component, referenced from the document's root.
  const object = (root.$ref ? defs[root.$ref.replace('#/$defs/', '')] : root) as Schema & { properties?: Record<string, Schema> };
  const out = { ...body };
  for (const [field, s] of Object.entries(object?.properties ?? {})) if (!(field in out)) out[field] = acceptedValueOf(s, defs);
  return out;
}

/** A create-metric body with every field of spec 4.6. team and teamID are null ("Enterprise"): a null is valid everywhere. */
export function fullCreateMetric(name: string, type: string = WAREHOUSE_METRIC_TYPE): Record<string, unknown> {
  return withEveryField('createMetric', {
    name,
    type,
    isVerified: false,
    isReadOnly: false,
    unitTypes: ['userID', 'stableID'],
    metricEvents: [{ name: 'cc_event', type: 'value' }],
    metricComponentMetrics: [],
    description: 'every field of spec 4.6',
    directionality: DIRECTIONALITY_OTHER,
    tags: ['cc'],
    isPermanent: false,
    rollupTimeWindow: 'custom',
    customRollUpStart: 0,
    customRollUpEnd: 14,
    funnelEventList: [{ name: 'cc_step', type: 'event_dau' }],
    funnelCountDistinct: SPEC_ALLOWED.createMetric.funnelCountDistinct[0],
    warehouseNative: fullWarehouseNative(),
    team: null,
    teamID: null,
  });
}

/** An update-metric body with every field of spec 4.7 (name unchanged: whether a new name changes the id is not shown). */
export function fullUpdateMetric(name: string, owner: { email: string; ownerID: string }): Record<string, unknown> {
  return withEveryField('updateMetric', {
    name,
    description: 'every field of spec 4.7',
    tags: ['cc', 'full'],
    isVerified: true,
    isReadOnly: false,
    isPermanent: false,
    warehouseNative: fullWarehouseNative(),
    unitTypes: ['userID'],
    team: null,
    teamID: null,
    directionality: DIRECTIONALITY_DEFAULT,
    owner,
  });
}

/** `n` valid Override items (spec 2.9) naming `gate`, spread over four groups, one in three with an environment. */
export function overrideItems(n: number, gate: string, tag = 'cc'): Record<string, string>[] {
  return Array.from({ length: n }, (_, i) => ({
    type: 'gate',
    id: gate,
    groupID: `${tag}_group_${i % 4}`,
    ...(i % 3 === 0 ? { environment: 'production' } : {}),
  }));
}
