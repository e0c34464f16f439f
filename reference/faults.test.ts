// Every fault and every variant of the registry (reference/faults.ts, entries of layers/) has a real,
// observable effect: one probe per switch, run against a clean server and against a server with only
// that switch on; the two observations must differ. (The suite's self-test checks that the suite
// notices; this checks that there is something to notice.) And the entries are good data: each names
// a clause of contracts/clauses.yaml at that clause's level, and operations of the contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';
import { METRIC_TYPES, OPERATIONS, SPEC_LIMITS } from '../contracts/index.ts';
import { build } from './app.ts';
import { activeLayers, checkSwitches, FAULTS, type FaultName, isFault, isVariant, SWITCHES, VARIANTS, type VariantName } from './faults.ts';

const KEY = 'test-key-faults-0123';
const H = { 'service-api-key': KEY };
const J = { ...H, 'content-type': 'application/json' };
const GATE = '/console/v1/gates/gate_cc_alpha';
const OVERRIDES = '/console/v1/experiments/exp_cc_overrides_1/overrides';
const SKIP = '/console/v1/release_pipeline_triggers/trg_cc_1/skip';
const item = { type: 'gate', id: 'gate_cc_alpha', groupID: 'grp_0_test' };
// The spec's bounds and metric types, from the contract: the probes follow a revision of the spec.
const NAME = SPEC_LIMITS.createMetric.name;
const DESCRIPTION = SPEC_LIMITS.createMetric.description;
const OVERRIDES_MAX = SPEC_LIMITS.patchExperimentOverrides.overrides.maxItems;
/** A metric type the spec allows, and the longest (a metric id <name>::<type> as long as it gets). */
const TYPE = METRIC_TYPES[0];
const LONGEST_TYPE = METRIC_TYPES.reduce((a, b) => (b.length > a.length ? b : a));
/** The metric the probes create (a name of a length the spec takes), and its path. */
const PROBE_NAME = 'probe'.padEnd(NAME.minLength, '_');
const PROBE = `/console/v1/metrics/${PROBE_NAME}::${TYPE}`;
/** A metric name one short of the minimum length. */
const SHORT_NAME = 'n'.repeat(NAME.minLength - 1);

type Probe = (app: FastifyInstance) => Promise<unknown>;

const get = async (app: FastifyInstance, url: string, headers: Record<string, string> = H) => app.inject({ method: 'GET', url, headers });
const body = async (app: FastifyInstance, method: 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown) =>
  app.inject({ method, url, headers: payload === undefined ? H : J, ...(payload === undefined ? {} : { payload: payload as object }) });
const list = async (app: FastifyInstance, qs: string) => (await get(app, `/console/v1/experiments?${qs}`)).json();
const createMetric = (app: FastifyInstance, payload: object) => body(app, 'POST', '/console/v1/metrics', payload);
const status = async (r: Promise<{ statusCode: number }>) => (await r).statusCode;

// Keyed by the name types, so a probe for a switch that does not exist, or a switch without a probe, does not compile.
const FAULT_PROBES: Record<FaultName, Probe> = {
  'auth-any-key': (app) => status(get(app, '/console/v1/release_pipelines', { 'service-api-key': 'wrong' })),
  'auth-missing-key-ok': (app) => status(get(app, '/console/v1/release_pipelines', {})),
  'auth-query-key-ok': (app) => status(get(app, `/console/v1/release_pipelines?SERVICE-API-KEY=${KEY}`, {})),
  'auth-query-api-key-ok': (app) => status(get(app, `/console/v1/release_pipelines?api_key=${KEY}`, {})),
  'auth-body-key-ok': (app) =>
    status(
      app.inject({
        method: 'POST',
        url: '/console/v1/metrics',
        headers: { 'content-type': 'application/json' },
        payload: { name: PROBE_NAME, type: TYPE, apiKey: KEY },
      }),
    ),
  'auth-bearer-key-ok': (app) => status(get(app, '/console/v1/release_pipelines', { authorization: `Bearer ${KEY}` })),
  'auth-basic-key-ok': (app) =>
    Promise.all(
      [`${KEY}:`, `:${KEY}`].map((pair) =>
        status(get(app, '/console/v1/release_pipelines', { authorization: `Basic ${Buffer.from(pair).toString('base64')}` })),
      ),
    ),
  'auth-plain-authorization-key-ok': (app) => status(get(app, '/console/v1/release_pipelines', { authorization: KEY })),
  'auth-cookie-key-ok': (app) => status(get(app, '/console/v1/release_pipelines', { cookie: `theme=dark; apiKey=${KEY}` })),
  'rules-first-only-stored': async (app) => {
    await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'first' }, { name: 'second' }] });
    return (await body(app, 'PUT', `${GATE}/enable`)).json().data.rules.map((r: { name: string }) => r.name);
  },
  'gate-rules-lost-on-overlap': async (app) => {
    await Promise.all(['a', 'b'].map((name) => body(app, 'POST', `${GATE}/rules`, { rules: [{ name }] })));
    const rules = (await body(app, 'POST', `${GATE}/rules`, { rules: [] })).json().data.rules.map((r: { name: string }) => r.name);
    return ['a', 'b'].filter((n) => rules.includes(n));
  },
  'overrides-merge-user-ids-not-stored': async (app) => {
    await body(app, 'PATCH', OVERRIDES, { overrides: [item], userIDOverrides: [{ groupID: 'grp_0_test', ids: ['u_probe'] }] });
    const next = (await body(app, 'PATCH', OVERRIDES, { overrides: [], userIDOverrides: [] })).json().data;
    // Clean (replace): neither array is held. The fault merges: the override is held, the user id is not.
    return [next.overrides.length, next.userIDOverrides.length];
  },
  'overrides-merge-lost-on-overlap': async (app) => {
    await Promise.all(['a', 'b'].map((g) => body(app, 'PATCH', OVERRIDES, { overrides: [{ ...item, groupID: g }], userIDOverrides: [] })));
    const held = (await body(app, 'PATCH', OVERRIDES, { overrides: [], userIDOverrides: [] })).json().data.overrides.map((o: { groupID: string }) => o.groupID);
    // Clean (replace): the last patch of no item holds nothing. The fault merges, and one of the two is lost.
    return ['a', 'b'].filter((g) => held.includes(g));
  },
  'observed-operator-500': (app) =>
    status(
      body(app, 'POST', `${GATE}/rules`, {
        rules: [{ name: 'r', passPercentage: 1, conditions: [{ type: 'user_id', targetValue: ['u1'], operator: 'none' }] }],
      }),
    ),
  'auth-skip-no-key': (app) =>
    status(app.inject({ method: 'PUT', url: SKIP, headers: { 'content-type': 'application/json' }, payload: { phaseID: 'ph_cc_1_1' } })),
  'auth-unpause-no-key': (app) =>
    status(
      app.inject({
        method: 'PUT',
        url: '/console/v1/release_pipeline_triggers/trg_cc_1/unpause',
        headers: { 'content-type': 'application/json' },
        payload: { phaseID: 'ph_cc_1_1' },
      }),
    ),
  'auth-update-metric-no-key': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return status(app.inject({ method: 'POST', url: PROBE, headers: { 'content-type': 'application/json' }, payload: { description: 'x' } }));
  },
  // inject() lower-cases the raw header names (light-my-request): every spelling is refused here; over
  // HTTP the exact one is served (the test after the probes).
  'auth-key-header-exact-case': (app) => status(get(app, '/console/v1/release_pipelines')),
  'auth-key-case-insensitive': (app) => status(get(app, '/console/v1/release_pipelines', { 'service-api-key': KEY.toUpperCase() })),
  'auth-key-prefix-only': (app) => status(get(app, '/console/v1/release_pipelines', { 'service-api-key': KEY.slice(0, 10) })),
  'review-header-500': (app) => status(app.inject({ method: 'PUT', url: `${GATE}/enable`, headers: { ...H, 'x-respect-review-settings': 'true' } })),
  'metric-update-lost-on-overlap': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    await Promise.all([body(app, 'POST', PROBE, { description: 'overlapping' }), body(app, 'POST', PROBE, { tags: ['overlapping'] })]);
    const after = (await body(app, 'POST', PROBE, {})).json().data;
    return [after.description, after.tags];
  },
  'enable-disable-rules-empty': async (app) => {
    await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r' }] });
    return (await body(app, 'PUT', `${GATE}/disable`)).json().data.rules.length;
  },
  'trigger-action-time-seconds': async (app) =>
    Math.max(...(await body(app, 'PUT', SKIP, { phaseID: 'ph_cc_1_1' })).json().data.actions.map((a: { timeMs: number }) => a.timeMs)) > 1e11,
  'wrong-message-add-rules': async (app) => (await body(app, 'POST', `${GATE}/rules`, { rules: [] })).json().message,
  'wrong-message-gate-updated': async (app) => (await body(app, 'PUT', `${GATE}/enable`)).json().message,
  'wrong-message-experiments': async (app) => (await list(app, '')).message,
  'wrong-message-pipelines': async (app) => (await get(app, '/console/v1/release_pipelines')).json().message,
  'wrong-message-metric-created': async (app) => (await createMetric(app, { name: PROBE_NAME, type: TYPE })).json().message,
  'wrong-message-metric-updated': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return (await body(app, 'POST', PROBE, {})).json().message;
  },
  'disable-keeps-enabled': async (app) => (await body(app, 'PUT', `${GATE}/disable`)).json().data.isEnabled,
  'rules-without-id': async (app) => typeof (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r' }] })).json().data.rules.at(-1).id,
  'rules-environments-omitted': async (app) =>
    'environments' in (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r' }] })).json().data.rules.at(-1),
  'disable-not-persisted': async (app) => {
    await body(app, 'PUT', `${GATE}/disable`);
    return (await body(app, 'POST', `${GATE}/rules`, { rules: [] })).json().data.isEnabled;
  },
  'add-rules-fraction-refused': (app) => status(body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r', passPercentage: 12.5 }] })),
  'disable-refuses-disabled': async (app) => {
    await body(app, 'PUT', `${GATE}/disable`);
    return status(body(app, 'PUT', `${GATE}/disable`));
  },
  'rule-zero-pass-omitted': async (app) =>
    'passPercentage' in (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r', passPercentage: 0 }] })).json().data.rules.at(-1),
  'rule-passpercentage-truncated': async (app) =>
    (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r', passPercentage: 12.5 }] })).json().data.rules.at(-1).passPercentage,
  'rules-conditions-empty-omitted': async (app) =>
    'conditions' in (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r', conditions: [] }] })).json().data.rules.at(-1),
  'enable-disable-rules-environments-omitted': async (app) => {
    await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r' }] });
    return 'environments' in (await body(app, 'PUT', `${GATE}/disable`)).json().data.rules.at(-1);
  },
  'metric-name-3-accepted': (app) => status(createMetric(app, { name: SHORT_NAME, type: TYPE })),
  'metric-name-201-accepted': (app) => status(createMetric(app, { name: 'n'.repeat(NAME.maxLength + 1), type: TYPE })),
  'metric-name-4-rejected': (app) => status(createMetric(app, { name: 'n'.repeat(NAME.minLength), type: TYPE })),
  'metric-description-1001-accepted': (app) => status(createMetric(app, { name: PROBE_NAME, type: TYPE, description: 'd'.repeat(DESCRIPTION.maxLength + 1) })),
  'overrides-1001-accepted': (app) => status(body(app, 'PATCH', OVERRIDES, { overrides: Array(OVERRIDES_MAX + 1).fill(item), userIDOverrides: [] })),
  'overrides-1000-rejected': (app) => status(body(app, 'PATCH', OVERRIDES, { overrides: Array(OVERRIDES_MAX).fill(item), userIDOverrides: [] })),
  'metric-type-unknown-accepted': (app) => status(createMetric(app, { name: PROBE_NAME, type: 'median' })),
  'metric-type-optional': (app) => status(createMetric(app, { name: PROBE_NAME })),
  'phaseid-optional': (app) => status(body(app, 'PUT', SKIP, {})),
  'userid-overrides-optional': (app) => status(body(app, 'PATCH', OVERRIDES, { overrides: [] })),
  'metric-dryrun-persists': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, dryRun: true });
    return status(createMetric(app, { name: PROBE_NAME, type: TYPE }));
  },
  'metric-update-dryrun-persists': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, description: 'first' });
    await body(app, 'POST', PROBE, { description: 'dry', dryRun: true });
    return (await body(app, 'POST', PROBE, {})).json().data.description;
  },
  'metric-id-shape-wrong': async (app) => (await createMetric(app, { name: PROBE_NAME, type: TYPE })).json().data.id,
  'directionality-default-decrease': async (app) => (await createMetric(app, { name: PROBE_NAME, type: TYPE })).json().data.directionality,
  'metric-update-ignores-description': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return (await body(app, 'POST', PROBE, { description: 'changed' })).json().data.description;
  },
  'filter-status-ignored': async (app) => [...new Set((await list(app, 'status=active&limit=100')).data.map((e: any) => e.status))].sort(),
  'filter-idtype-ignored': async (app) => [...new Set((await list(app, 'idType=userID&limit=100')).data.map((e: any) => e.idType))].sort(),
  'filter-tags-ignored': async (app) => (await list(app, 'tags=checkout&limit=100')).data.every((e: any) => e.tags.includes('checkout')),
  'filtered-page-ignored': async (app) => (await list(app, 'status=active&limit=2&page=2')).data.map((e: any) => e.id),
  'teamid-500': (app) => status(get(app, '/console/v1/experiments?teamID=team_core')),
  'filters-or-combined': async (app) => (await list(app, 'status=active&idType=userID&limit=100')).data.map((e: any) => e.id),
  'experiments-empty-message': async (app) => (await list(app, 'limit=10&page=1000')).message,
  'pipelines-empty-message': async (app) => (await get(app, '/console/v1/release_pipelines?limit=10&page=1000')).json().message,
  'page-overlap': async (app) => (await list(app, 'limit=5&page=2')).data.map((e: any) => e.id),
  'limit-ignored': async (app) => (await list(app, 'limit=5')).data.length,
  'pagination-missing': async (app) => 'pagination' in (await list(app, '')),
  'validation-500': (app) => status(get(app, '/console/v1/experiments?status=running')),
  'envelope-data-renamed': async (app) => Object.keys(await list(app, '')).sort(),
  'created-time-string': async (app) => typeof (await list(app, '')).data[0].createdTime,
  'overrides-not-persisted': async (app) => (await body(app, 'PATCH', OVERRIDES, { overrides: [item], userIDOverrides: [] })).json().data.overrides.length,
  'trigger-actions-missing': async (app) => Array.isArray((await body(app, 'PUT', SKIP, { phaseID: 'ph_cc_1_1' })).json().data.actions),
  'skip-answers-pipeline': async (app) => (await body(app, 'PUT', SKIP, { phaseID: 'ph_cc_1_1' })).json().data.id,
  'unpause-answers-pipeline': async (app) => {
    // Trigger 1 pauses at its second phase, which requires review.
    await body(app, 'PUT', SKIP, { phaseID: 'ph_cc_1_1' });
    return (await body(app, 'PUT', SKIP.replace('/skip', '/unpause'), { phaseID: 'ph_cc_1_2' })).json().data?.id;
  },
  // Two bytes a character: one short of the minimum in characters, enough in bytes.
  'metric-name-counts-bytes': (app) => status(createMetric(app, { name: 'ж'.repeat(NAME.minLength - 1), type: TYPE })),
  'metric-description-counts-bytes': (app) => status(createMetric(app, { name: PROBE_NAME, type: TYPE, description: 'ж'.repeat(DESCRIPTION.maxLength) })),
  'metric-update-dryrun-persists-tags': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, tags: ['first'] });
    await body(app, 'POST', PROBE, { tags: ['dry'], dryRun: true });
    return (await body(app, 'POST', PROBE, {})).json().data.tags;
  },
  'metric-update-dryrun-persists-description': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, description: 'first' });
    await body(app, 'POST', PROBE, { description: 'dry', dryRun: true });
    return (await body(app, 'POST', PROBE, {})).json().data.description;
  },
  'metric-update-dryrun-persists-warehousenative': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    await body(app, 'POST', PROBE, { warehouseNative: { aggregation: 'count' }, dryRun: true });
    return (await body(app, 'POST', PROBE, {})).json().data.warehouseNative ?? null;
  },
  'metric-update-not-persisted': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, description: 'first' });
    await body(app, 'POST', PROBE, { description: 'changed' });
    return (await body(app, 'POST', PROBE, {})).json().data.description;
  },
  'metric-update-dryrun-false-not-persisted': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, description: 'first' });
    await body(app, 'POST', PROBE, { description: 'changed', dryRun: false });
    return (await body(app, 'POST', PROBE, {})).json().data.description;
  },
  'metric-dryrun-false-not-persisted': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, dryRun: false });
    return status(body(app, 'POST', PROBE, {}));
  },
  'metric-id-name-lowercased': async (app) => (await createMetric(app, { name: 'MixedCase', type: TYPE })).json().data.id,
  'metric-id-name-truncated': async (app) => (await createMetric(app, { name: 'n'.repeat(NAME.maxLength), type: TYPE })).json().data.id.length,
  'metric-id-length-limit': (app) => status(createMetric(app, { name: 'n'.repeat(NAME.maxLength), type: LONGEST_TYPE })),
  'metric-create-ignores-flags': async (app) => {
    const { isVerified, isReadOnly, isPermanent } = (
      await createMetric(app, { name: PROBE_NAME, type: TYPE, isVerified: true, isReadOnly: true, isPermanent: true })
    ).json().data;
    return [isVerified, isReadOnly, isPermanent];
  },
  'metric-create-ignores-unittypes': async (app) => (await createMetric(app, { name: PROBE_NAME, type: TYPE, unitTypes: ['stableID'] })).json().data.unitTypes,
  'metric-update-ignores-ispermanent': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return (await body(app, 'POST', PROBE, { isPermanent: true })).json().data.isPermanent;
  },
  'metric-update-tags-append': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, tags: ['first'] });
    return (await body(app, 'POST', PROBE, { tags: ['second'] })).json().data.tags;
  },
  'add-rules-duplicates': async (app) =>
    (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'probe-once' }] })).json().data.rules.filter((r: { name: string }) => r.name === 'probe-once')
      .length,
  'pipelines-not-under-v1': (app) => status(get(app, '/console/v1/release_pipelines')),
  'unknown-id-500': (app) => status(body(app, 'PUT', '/console/v1/gates/gate_no_such/enable')),
  'metric-rejected-create-stored': async (app) => [
    await status(createMetric(app, { name: PROBE_NAME, type: TYPE, description: 5 })),
    await status(body(app, 'POST', PROBE, {})),
  ],
  'update-ignores-unknown-fields': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return status(body(app, 'POST', PROBE, { description: 'x', ccUnknown: 1 }));
  },
  'concurrent-write-500': async (app) =>
    (await Promise.all([1, 2].map((i) => status(body(app, 'POST', `${GATE}/rules`, { rules: [{ name: `r${i}` }] }))))).sort(),
  'unknown-phase-skips-current': (app) => status(body(app, 'PUT', SKIP, { phaseID: 'ph_no_such' })),
  'metric-duplicate-500': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return status(createMetric(app, { name: PROBE_NAME, type: TYPE }));
  },
  'metric-dryrun-reserves-name': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE, dryRun: true });
    return status(createMetric(app, { name: PROBE_NAME, type: TYPE }));
  },
  'page-past-last-repeats': async (app) => (await list(app, 'limit=10&page=1000')).data.length,
  'deep-filter-forgotten': async (app) => [...new Set((await list(app, 'status=active&limit=100&page=101')).data.map((e: any) => e.status))].sort(),
  'deep-pages-empty': async (app) => (await list(app, 'limit=100&page=110')).data.length,
  'deep-boundary-repeats': async (app) => (await list(app, 'limit=100&page=102')).data.map((e: any) => e.id),
  'deep-boundary-skips': async (app) => (await list(app, 'limit=100&page=102')).data.map((e: any) => e.id),
  'count-capped': async (app) => (await list(app, 'limit=100')).pagination.totalItems,
  'old-dates-unreadable': async (app) => (await list(app, 'createdStartDate=2000-01-01&limit=1')).pagination.totalItems,
  'last-partial-page-dropped': async (app) => {
    const total: number = (await list(app, 'limit=7')).pagination.totalItems;
    const limit = [7, 11, 13].find((n) => total % n !== 0)!;
    return (await list(app, `limit=${limit}&page=${Math.ceil(total / limit)}`)).data.length;
  },
  'page-order-unstable': async (app) => {
    const ids = async () => (await list(app, 'limit=5&page=2')).data.map((e: any) => e.id);
    const [first, second] = [await ids(), await ids()];
    return JSON.stringify(first) === JSON.stringify(second);
  },
  'disable-500-after-write': (app) => status(body(app, 'PUT', `${GATE}/disable`)),
  'success-text-plain': async (app) => (await get(app, '/console/v1/release_pipelines')).headers['content-type'],
  'errors-echo-headers': async (app) => (await body(app, 'PUT', '/console/v1/gates/gate_no_such/enable')).body.includes(KEY),
  'overrides-duplicated': async (app) =>
    (await body(app, 'PATCH', OVERRIDES, { overrides: [item, { ...item, groupID: 'grp_1_test' }], userIDOverrides: [] }))
      .json()
      .data.overrides.map((o: { groupID: string }) => o.groupID),
  'pipelines-bare-array': async (app) => Array.isArray((await get(app, '/console/v1/release_pipelines')).json()),
  'update-metric-unwrapped': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return Object.keys((await body(app, 'POST', PROBE, {})).json()).includes('message');
  },
  'add-rules-baseid-camelcase': async (app) =>
    Object.keys((await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r' }] })).json().data.rules.at(-1)).sort(),
  'enable-review-header-required': (app) => status(body(app, 'PUT', `${GATE}/enable`)),
  'json-body-charset-required': (app) => status(createMetric(app, { name: PROBE_NAME, type: TYPE })),
};

const VARIANT_PROBES: Record<VariantName, Probe> = {
  'create-metric-201': (app) => status(createMetric(app, { name: PROBE_NAME, type: TYPE })),
  'dryrun-create-summary': async (app) => Object.keys((await createMetric(app, { name: PROBE_NAME, type: TYPE, dryRun: true })).json().data).sort(),
  'metric-write-version': async (app) => {
    await createMetric(app, { name: PROBE_NAME, type: TYPE });
    return (await body(app, 'POST', PROBE, {})).json().data.version ?? null;
  },
  'overrides-one-per-target': async (app) =>
    (await body(app, 'PATCH', OVERRIDES, { overrides: [item, { ...item, groupID: 'grp_0_control' }], userIDOverrides: [] })).json().data.overrides.length,
  'conditions-normalized': async (app) =>
    (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'r', conditions: [{ type: 'country', targetValue: ['US', 'CA'], operator: 'any' }] }] }))
      .json()
      .data.rules.at(-1).conditions[0].targetValue,
  'errors-422-other-shape': async (app) => {
    const r = await createMetric(app, { name: SHORT_NAME, type: TYPE });
    return [r.statusCode, Object.keys(r.json()).sort()];
  },
  'overrides-toplevel-response': async (app) => Object.keys((await body(app, 'PATCH', OVERRIDES, { overrides: [], userIDOverrides: [] })).json()).sort(),
  'pagination-other-fields': async (app) => Object.keys((await list(app, '')).pagination).sort(),
  'order-by-id': async (app) => (await list(app, 'limit=10')).data.map((e: any) => e.id),
  'rules-replace': async (app) => {
    await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'a' }] });
    return (await body(app, 'POST', `${GATE}/rules`, { rules: [{ name: 'b' }] })).json().data.rules.length;
  },
  'overrides-merge': async (app) => {
    await body(app, 'PATCH', OVERRIDES, { overrides: [item], userIDOverrides: [] });
    return (await body(app, 'PATCH', OVERRIDES, { overrides: [item], userIDOverrides: [] })).json().data.overrides.length;
  },
  'default-limit-50': async (app) => (await list(app, '')).data.length,
  'page-cap': async (app) => (await list(app, 'limit=100')).data.length,
  'deep-pages-refused': (app) => status(get(app, '/console/v1/experiments?limit=100&page=11')),
  'created-time-ties': async (app) => new Set((await list(app, 'limit=100')).data.map((e: any) => e.createdTime)).size,
  'pages-from-0': async (app) =>
    Promise.all(
      ['/console/v1/experiments?limit=3&page=1', '/console/v1/release_pipelines?limit=3&page=1'].map(async (url) =>
        (await get(app, url)).json().data.map((x: any) => x.id),
      ),
    ),
  'unfiltered-hides-archived': async (app) => [...new Set((await list(app, 'limit=100')).data.map((e: any) => e.status))].sort(),
  // An experiment created before 08:00 UTC is on the day before in Los Angeles: the end date of that day takes it.
  'created-dates-los-angeles': async (app) => {
    const early = (await list(app, 'limit=100')).data.find((e: any) => new Date(e.createdTime).getUTCHours() < 8);
    if (!early) return 'no experiment created before 08:00 UTC';
    const dayBefore = new Date(early.createdTime - 86_400_000).toISOString().slice(0, 10);
    return (await list(app, `createdStartDate=${dayBefore}&createdEndDate=${dayBefore}&limit=100`)).data.map((e: any) => e.id).includes(early.id);
  },
  'tags-brackets': async (app) => [(await list(app, 'tags=checkout&limit=100')).data.length, (await list(app, 'tags%5B%5D=checkout&limit=100')).data.length],
  'paging-out-of-range-400': async (app) =>
    Promise.all(['limit=101', 'limit=0', 'page=0', 'page=-3'].map((q) => status(get(app, `/console/v1/experiments?${q}`)))),
  'metric-name-ascii-only': (app) => status(createMetric(app, { name: 'prüfung', type: TYPE, dryRun: true })),
  'overrides-known-groups-only': (app) => status(body(app, 'PATCH', OVERRIDES, { overrides: [{ ...item, groupID: 'cc_not_a_group' }], userIDOverrides: [] })),
  'errors-problem-json': async (app) => {
    const r = await createMetric(app, { name: SHORT_NAME, type: TYPE });
    return [r.statusCode, r.headers['content-type'], Object.keys(r.json()).sort()];
  },
  'errors-plain-text': async (app) => (await createMetric(app, { name: SHORT_NAME, type: TYPE })).headers['content-type'],
  'unauthorized-403': (app) => status(get(app, '/console/v1/release_pipelines', {})),
  'timestamps-seconds': async (app) => (await list(app, '')).data[0].createdTime > 1e11,
  'extra-response-fields': async (app) => Object.keys(await list(app, '')).sort(),
  'skip-message-other': async (app) => (await body(app, 'PUT', SKIP, { phaseID: 'ph_cc_1_1' })).json().message,
  // The vendor-shaped variants in detail: reference/shapes.test.ts.
  'omit-when-empty': async (app) => Object.keys((await body(app, 'PUT', `${GATE}/enable`)).json().data).sort(),
  'vendor-optional-absent': async (app) => Object.keys((await body(app, 'PUT', SKIP, { phaseID: 'ph_cc_1_1' })).json().data).sort(),
  'vendor-extra-fields': async (app) => Object.keys((await body(app, 'PUT', SKIP, { phaseID: 'ph_cc_1_1' })).json().data).sort(),
  'enum-values-beyond-seen': async (app) => (await body(app, 'PUT', `${GATE}/disable`)).json().data.status,
  // The legal refusals in detail: reference/legal-refusals.test.ts.
  'rules-cap': (app) => status(body(app, 'POST', `${GATE}/rules`, { rules: Array.from({ length: 51 }, (_, i) => ({ name: `r${i}` })) })),
  'steady-429': async (app) => Promise.all([1, 2, 3, 4].map(() => status(get(app, '/console/v1/release_pipelines')))),
  'write-conflict-409': async (app) =>
    (await Promise.all([body(app, 'PUT', `${GATE}/enable`), body(app, 'PUT', `${GATE}/disable`)])).map((r) => r.statusCode).sort(),
};

test('every fault and variant has a probe, and no probe names an unknown switch', () => {
  assert.deepEqual(Object.keys(FAULT_PROBES).sort(), FAULTS.map((f) => f.name).sort());
  assert.deepEqual(Object.keys(VARIANT_PROBES).sort(), VARIANTS.map((v) => v.name).sort());
  assert.ok(FAULTS.length >= 30 && VARIANTS.length >= 10);
  for (const s of [...FAULTS, ...VARIANTS]) assert.ok(s.description && s.clause, s.name);
});

test('each switch names a clause of contracts/clauses.yaml at its level, and only operations of the contract', () => {
  const catalogue = parse(readFileSync(new URL('../contracts/clauses.yaml', import.meta.url), 'utf8')) as { clauses: { id: string; level: string }[] };
  const levels = new Map(catalogue.clauses.map((c) => [c.id, c.level]));
  for (const s of [...FAULTS, ...VARIANTS]) assert.equal(s.level, levels.get(s.clause), `${s.name}: clause ${s.clause}`);
  const all = activeLayers(
    FAULTS.map((f) => f.name),
    VARIANTS.map((v) => v.name),
  );
  const named = [...all.request, ...all.storage, ...all.response].flatMap((c) => (Array.isArray(c.operations) ? c.operations : []));
  for (const id of named) assert.ok(Object.hasOwn(OPERATIONS, id), `a layer names operation ${id}, not in the contract`);
  assert.equal(all.count, SWITCHES.length);
});

test('a parametrised variant takes its parameter after a colon, once; a bad one is refused in one line', () => {
  assert.equal(checkSwitches([], ['rules-cap:3', 'steady-429:2:5']), undefined);
  assert.equal(checkSwitches([], ['rules-cap', 'steady-429']), undefined);
  for (const [given, reason] of [
    ['rules-cap:0', /rules-cap:<N>, N an integer from 1/],
    ['rules-cap:x', /rules-cap:<N>/],
    ['steady-429:4', /steady-429:<every>:<seconds>/],
    ['steady-429:1:1', /every an integer from 2/],
    ['order-by-id:3', /unknown variant "order-by-id:3"/],
  ] as const) {
    const problem = checkSwitches([], [given]);
    assert.match(problem ?? '', reason, given);
    assert.equal(problem?.split('\n').length, 1);
  }
  assert.match(checkSwitches([], ['rules-cap', 'rules-cap:3']) ?? '', /rules-cap is given twice/);
  assert.equal(VARIANTS.find((v) => v.name === 'rules-cap')?.parameter, 'rules-cap:<N>');
});

test('a misspelt fault or variant name is refused: by the compiler in code, by checkSwitches on the command line', () => {
  // @ts-expect-error 'auth-any-kye' is not a FaultName: npm run typecheck fails if this line compiles
  const fault: FaultName = 'auth-any-kye';
  // @ts-expect-error 'order-by-ID' is not a VariantName
  const variant: VariantName = 'order-by-ID';
  assert.equal(isFault(fault), false);
  assert.equal(isVariant(variant), false);
  assert.match(checkSwitches([fault], []) ?? '', /unknown fault "auth-any-kye"/);
  assert.match(checkSwitches([], [variant]) ?? '', /unknown variant "order-by-ID"/);
  assert.equal(
    checkSwitches(
      FAULTS.map((f) => f.name),
      VARIANTS.map((v) => v.name),
    ),
    undefined,
  );
  assert.equal(new Set(FAULTS.map((f) => f.name)).size, FAULTS.length, 'fault names are unique');
  assert.equal(new Set(VARIANTS.map((v) => v.name)).size, VARIANTS.length, 'variant names are unique');
});

test('auth-key-header-exact-case reads the header names as sent: over HTTP the exact spelling is served, another is refused', async () => {
  const app = build({ apiKey: KEY, scale: 80, faults: ['auth-key-header-exact-case'] });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const statusWith = (name: string) =>
      new Promise<number>((resolve, reject) => {
        // node:http sends a header name as it is given (its case kept).
        const req = httpRequest(`${url}/console/v1/release_pipelines`, { headers: { [name]: KEY } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    assert.deepEqual([await statusWith('SERVICE-API-KEY'), await statusWith('service-api-key'), await statusWith('Service-Api-Key')], [200, 401, 401]);
  } finally {
    await app.close();
  }
});

/** Switches that act only deep in a list (past item 10,000): probed on a reference of 12,000 experiments. */
const DEEP_SWITCHES = new Set(['deep-filter-forgotten', 'deep-pages-empty', 'deep-boundary-repeats', 'deep-boundary-skips', 'count-capped']);

async function observe(probe: Probe, opts: { faults?: string[]; variants?: string[] }, deep = false): Promise<unknown> {
  const app = build({ apiKey: KEY, scale: deep ? 12_000 : 80, ...opts });
  try {
    return await probe(app);
  } finally {
    await app.close();
  }
}

for (const [kind, probes] of [
  ['fault', FAULT_PROBES],
  ['variant', VARIANT_PROBES],
] as const) {
  test(`each ${kind} changes what a client observes`, async () => {
    for (const [name, probe] of Object.entries(probes)) {
      const deep = DEEP_SWITCHES.has(name);
      const clean = await observe(probe, {}, deep);
      const switched = await observe(probe, kind === 'fault' ? { faults: [name] } : { variants: [name] }, deep);
      assert.notDeepEqual(switched, clean, `${kind} ${name}: observed ${JSON.stringify(switched)} both with and without it`);
    }
  });
}
