// Spec 2.8, 4.6 to 4.8 and 8: create and update metrics. Boundary checks use dryRun (nothing is
// persisted, spec 4.6), so they can run against a real server again and again; created metrics carry
// the manifest prefix and the run id (there is no delete operation).
import { checks, expect, test, type T } from '../support/target.ts';
import { clausesUnder } from '../support/clauses.ts';
import { fullCreateMetric, fullUpdateMetric, fullWarehouseNative } from '../support/bodies.ts';
import { METRIC_TYPES, expectClientError, expectMessage, expectNotAccepted, expectSuccess, expectValidRequest, metricName, ok2xx, outcome } from '../support/checks.ts';

const PATH = '/console/v1/metrics';
const create = (t: T, data: unknown) => t.call('POST', PATH, { data });
const update = (t: T, id: string, data: unknown) => t.call('POST', `${PATH}/${encodeURIComponent(id)}`, { data });
/** A name of `length` characters, prefix and run id included (spec 8 counts the whole name). */
const nameOf = (t: T, length: number, salt: string) => metricName(t.manifest.metricPrefix, t.runId, length, salt);

test.describe('metrics', () => {
  test('metrics: a created metric has id <name>::<type>, default directionality increase and the spec message [spec 2.8, 4.6]', checks('stated', 'metrics.create.message', 'metrics.create.path', 'metric.id.shape', 'metrics.create.directionality.default', ...clausesUnder('metric.field.')), async ({ t }) => {
    const name = nameOf(t, 24, '_created');
    const body = expectSuccess('createMetric', await create(t, { name, type: 'sum', description: 'conformance', tags: ['cc'] }));
    expectMessage(body, 'Metric created successfully.');
    expect(body.data.id, 'metric id is <name>::<type> (spec 2.8)').toBe(`${name}::sum`);
    expect(body.data.directionality, 'directionality defaults to increase').toBe('increase');
  });

  test('metrics: a created metric carries the name, type, description, tags and directionality it was sent [inferred]', checks('inferred', 'metrics.create.echoesInput'), async ({ t }) => {
    const name = nameOf(t, 30, '_echo');
    const sent = { name, type: 'mean', description: 'echo check', tags: ['cc', 'echo'], directionality: 'decrease' };
    const reply = await create(t, sent);
    expect(ok2xx(reply), `create answered ${reply.status}`).toBe(true);
    expect(reply.body?.data).toMatchObject(sent);
  });

  test('metrics: name of 4 and of 200 characters is accepted [spec 8]', checks('stated', 'metrics.create.name.length'), async ({ t }) => {
    for (const length of [4, 200]) {
      const name = nameOf(t, length, '_n');
      expect(name.length).toBe(length);
      expectSuccess('createMetric', await create(t, { name, type: 'mean', dryRun: true }));
    }
  });

  test('metrics: name of 3 and of 201 characters is not accepted [spec 8]', checks('stated', 'metrics.create.name.length', 'errors.violationOutcome'), async ({ t }) => {
    for (const length of [3, 201]) {
      const name = nameOf(t, length, '_n');
      expect(name.length).toBe(length);
      const r = await create(t, { name, type: 'mean', dryRun: true });
      t.observe('errors.violationOutcome', `name of ${length}`, outcome(r), r);
      expectNotAccepted(r, `name of ${length} characters`);
    }
  });

  test('metrics: description of 1000 is accepted, of 1001 not [spec 8]', checks('stated', 'metrics.create.description.maxLength'), async ({ t }) => {
    const name = nameOf(t, 30, '_desc');
    expectSuccess('createMetric', await create(t, { name, type: 'mean', description: 'd'.repeat(1000), dryRun: true }));
    expectNotAccepted(await create(t, { name, type: 'mean', description: 'd'.repeat(1001), dryRun: true }), 'description of 1001 characters');
  });

  test('metrics: all ten types are accepted, an unknown type is not [spec 4.6]', checks('stated', 'metrics.create.type.enum'), async ({ t }) => {
    for (const type of METRIC_TYPES) expectSuccess('createMetric', await create(t, { name: nameOf(t, 40, `_${type}`), type, dryRun: true }));
    expectNotAccepted(await create(t, { name: nameOf(t, 30, '_median'), type: 'median', dryRun: true }), 'type median');
  });

  test('metrics: name and type are each required [spec 4.6]', checks('stated', 'metrics.create.name.required', 'metrics.create.type.required', 'errors.violationOutcome'), async ({ t }) => {
    const noName = await create(t, { type: 'sum', dryRun: true });
    t.observe('errors.violationOutcome', 'missing required field', outcome(noName), noName);
    expectNotAccepted(noName, 'without name');
    expectNotAccepted(await create(t, { name: nameOf(t, 30, '_notype'), dryRun: true }), 'without type');
  });

  test('metrics: directionality is increase or decrease, on create and on update [spec 4.6, 4.7]', checks('stated', 'metrics.create.directionality.enum', 'metrics.update.directionality.enum'), async ({ t }) => {
    const name = nameOf(t, 30, '_dir');
    const body = expectSuccess('createMetric', await create(t, { name, type: 'sum', directionality: 'decrease' }));
    expect(body.data.directionality).toBe('decrease');
    expectNotAccepted(await create(t, { name: nameOf(t, 30, '_dir2'), type: 'sum', directionality: 'sideways', dryRun: true }), 'create with directionality sideways');
    expect(expectSuccess('updateMetric', await update(t, body.data.id, { directionality: 'increase' })).data.directionality).toBe('increase');
    expectNotAccepted(await update(t, body.data.id, { directionality: 'sideways' }), 'update with directionality sideways');
  });

  test('metrics: every field of create (4.6) and of warehouseNative (4.8) is accepted [spec 4.6, 4.8]', checks('stated', ...clausesUnder('metrics.create.body.field.'), ...clausesUnder('warehouseNative.field.'), ...clausesUnder('criterion.field.'), 'warehouseNative.optional', 'metrics.create.dryRun.response'), async ({ t }) => {
    const full = fullCreateMetric(nameOf(t, 30, '_full'));
    expectValidRequest('createMetric', full);
    const body = expectSuccess('createMetric', await create(t, full));
    expect(body.data.id).toBe(`${full.name}::user_warehouse`);
    // All warehouseNative fields are optional (4.8): an empty object and a single field are each enough.
    for (const warehouseNative of [{}, { aggregation: 'count' }]) {
      const dry = await create(t, { name: nameOf(t, 30, '_wn'), type: 'user_warehouse', warehouseNative, dryRun: true });
      expectSuccess('createMetric', dry);
      t.observe('metrics.create.dryRun.response', 'dryRun create', { status: dry.status, hasData: dry.body?.data !== undefined && dry.body?.data !== null }, dry);
    }
    expect(Object.keys(fullWarehouseNative()).length, 'all 4.8 fields sent').toBeGreaterThanOrEqual(44);
  });

  test('metrics: every field of update (4.7) is accepted [spec 4.7]', checks('stated', ...clausesUnder('metrics.update.body.field.'), 'metrics.update.path'), async ({ t }) => {
    const name = nameOf(t, 30, '_fullupd');
    const id = expectSuccess('createMetric', await create(t, { name, type: 'mean' })).data.id;
    const owner = (t.manifest.metricOwner as { email: string; ownerID: string } | undefined) ?? { email: 'owner@example.com', ownerID: 'cc_owner' };
    const full = { ...fullUpdateMetric(name, owner), dryRun: true };
    expectValidRequest('updateMetric', full);
    expectSuccess('updateMetric', await update(t, id, full));
  });

  test('metrics: a dryRun create persists nothing [spec 4.6]', checks('stated', 'metrics.create.dryRun'), async ({ t }) => {
    const name = nameOf(t, 30, '_dry');
    expectSuccess('createMetric', await create(t, { name, type: 'ratio', dryRun: true }));
    // No metric read is shown: the metric's absence shows as an update that is not accepted.
    expectNotAccepted(await update(t, `${name}::ratio`, { description: 'probe' }), 'update of a metric created only with dryRun');
  });

  test('metrics: after a dryRun create the same metric can still be created [inferred]', checks('inferred', 'writes.dryRunNoChange'), async ({ t }) => {
    const name = nameOf(t, 30, '_dry2');
    expect(ok2xx(await create(t, { name, type: 'ratio', dryRun: true })), 'the dryRun create succeeds').toBe(true);
    const real = await create(t, { name, type: 'ratio' });
    expect(ok2xx(real), `the real create after a dryRun answered ${real.status}`).toBe(true);
  });

  test('metrics: update applies what it is sent, with the spec message [spec 4.7]', checks('stated', 'metrics.update.message', 'metrics.update.applies'), async ({ t }) => {
    const name = nameOf(t, 30, '_upd');
    const id = expectSuccess('createMetric', await create(t, { name, type: 'mean' })).data.id;
    const sent = { description: 'updated by conformance', tags: ['cc', 'updated'], directionality: 'decrease', isVerified: true, isReadOnly: true, isPermanent: false, unitTypes: ['stableID'] };
    const body = expectSuccess('updateMetric', await update(t, id, sent));
    expectMessage(body, 'Metric updated successfully.');
    expect(body.data).toMatchObject(sent);
    expect(body.data.id, 'the updated metric keeps its id').toBe(id);
  });

  test('metrics: a dryRun update persists nothing [spec 4.7]', checks('stated', 'metrics.update.dryRun'), async ({ t }) => {
    const name = nameOf(t, 30, '_dryupd');
    const id = expectSuccess('createMetric', await create(t, { name, type: 'mean', description: 'before' })).data.id;
    expectSuccess('updateMetric', await update(t, id, { description: 'dry', dryRun: true }));
    // Shown by a later write: it answers the metric as stored.
    const after = expectSuccess('updateMetric', await update(t, id, { tags: ['after'] }));
    expect(after.data.description, 'the dryRun description was not kept').toBe('before');
  });

  test('metrics: creating an existing <name>::<type> again never makes a second metric [inferred]', checks('inferred', 'metric.id.unique', 'errors.shape'), async ({ t }) => {
    const name = nameOf(t, 30, '_dup');
    expect(ok2xx(await create(t, { name, type: 'sum' })), 'the first create succeeds').toBe(true);
    const again = await create(t, { name, type: 'sum' });
    t.observe('errors.shape', 'duplicate metric', outcome(again), again);
    expect(again.status < 500, `a duplicate create answered ${again.status}`).toBe(true);
    if (ok2xx(again)) expect(again.body?.data?.id, 'a duplicate create that succeeds answers that same metric').toBe(`${name}::sum`);
  });

  test('metrics: element values and component fields the spec leaves open are observed [spec 2.8, not shown]', checks('open', 'metric.enums.values', 'metrics.create.metricComponentMetrics.fields'), async ({ t }) => {
    t.observe('metric.enums.values', 'metricEvents type other', outcome(await create(t, { name: nameOf(t, 30, '_ev'), type: 'sum', metricEvents: [{ name: 'e', type: 'other' }], dryRun: true })).status);
    t.observe('metrics.create.metricComponentMetrics.fields', 'item {name, type}', outcome(await create(t, { name: nameOf(t, 30, '_cmp'), type: 'composite', metricComponentMetrics: [{ name: 'cc_component', type: 'sum' }], dryRun: true })).status);
  });

  test('metrics: bad bodies get a 4xx and create nothing [inferred]', checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing', 'errors.shape'), async ({ t }) => {
    const name = nameOf(t, 30, '_bad');
    const bad = [
      { name, type: 'sum', description: 5 }, { name, type: 'sum', tags: 'x' }, { name, type: 'sum', isVerified: 'yes' },
      { name: 1234, type: 'sum' }, { name, type: 'sum', unitTypes: [1] }, { name, type: 'sum', funnelCountDistinct: 'sessions' },
    ];
    const first = await create(t, bad[0]);
    t.observe('errors.shape', 'schema violation', outcome(first), first);
    expectClientError(first, 'description not a string');
    for (const data of bad.slice(1)) expectClientError(await create(t, data), JSON.stringify(data).slice(0, 80));
    expectClientError(await update(t, `${name}::sum`, {}), 'update of a metric that was never created');
  });

  test('metrics: concurrent updates of one metric each succeed or get a 4xx, and the metric stays well formed [inferred]', checks('inferred', 'writes.concurrentSafe'), async ({ t }) => {
    const r = await create(t, { name: nameOf(t, 30, '_conc'), type: 'sum' });
    expect(ok2xx(r), 'the metric to update was created').toBe(true);
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => update(t, r.body.data.id, { description: `concurrent ${i}`, tags: [`t${i}`] })));
    for (const x of replies) expect(x.status < 500, `a concurrent update answered ${x.status}`).toBe(true);
    const after = expectSuccess('updateMetric', await update(t, r.body.data.id, { isVerified: false }));
    expect(after.data.description).toMatch(/^concurrent \d$/);
  });
});
