// Spec 2.8, 4.6 to 4.8 and 8: create and update metrics. Boundary checks use dryRun (nothing is
// persisted, spec 4.6), so they can run against a real server again and again; created metrics carry
// the manifest prefix and the run id.
import { checks, expect, observe, test, type T } from '../support/target.ts';
import { clausesUnder } from '../support/clauses.ts';
import { METRIC_TYPES, expectClientError, expectMessage, expectNotAccepted, expectSuccess, metricName } from '../support/checks.ts';

const PATH = '/console/v1/metrics';
const create = (t: T, data: unknown) => t.call('POST', PATH, { data });
const update = (t: T, id: string, data: unknown) => t.call('POST', `${PATH}/${encodeURIComponent(id)}`, { data });

test.describe('metrics', () => {
  test('metrics: a created metric has id <name>::<type>, default directionality increase and the spec message [spec 2.8, 4.6]', checks('stated', 'metrics.create.message', 'metric.id.shape', 'metrics.create.directionality.default', ...clausesUnder('metric.field.')), async ({ t }) => {
    const name = metricName(t.manifest.metricPrefix, t.runId, 24, '_created');
    const body = expectSuccess('createMetric', await create(t, { name, type: 'sum', description: 'conformance', tags: ['cc'] }));
    expectMessage(body, 'Metric created successfully.');
    expect(body.data.id).toBe(`${name}::sum`);
    expect(body.data.name).toBe(name);
    expect(body.data.type).toBe('sum');
    expect(body.data.directionality, 'directionality defaults to increase').toBe('increase');
  });

  test('metrics: name of 4 and of 200 characters is accepted [spec 8]', checks('stated', 'metrics.create.name.length'), async ({ t }) => {
    for (const length of [4, 200]) {
      const name = metricName(t.manifest.metricPrefix, t.runId, length, '_n');
      const body = expectSuccess('createMetric', await create(t, { name, type: 'mean', dryRun: true }));
      expect(body.data?.name ?? name, `name of ${length}`).toBe(name);
    }
  });

  test('metrics: name of 3 and of 201 characters is not accepted [spec 8]', checks('stated', 'metrics.create.name.length'), async ({ t }) => {
    for (const length of [3, 201]) expectNotAccepted(await create(t, { name: metricName(t.manifest.metricPrefix, t.runId, length, '_n'), type: 'mean', dryRun: true }), `name of ${length} characters`);
  });

  test('metrics: description of 1000 is accepted, of 1001 not [spec 8]', checks('stated', 'metrics.create.description.maxLength'), async ({ t }) => {
    const name = metricName(t.manifest.metricPrefix, t.runId, 30, '_desc');
    expectSuccess('createMetric', await create(t, { name, type: 'mean', description: 'd'.repeat(1000), dryRun: true }));
    expectNotAccepted(await create(t, { name, type: 'mean', description: 'd'.repeat(1001), dryRun: true }), 'description of 1001 characters');
  });

  test('metrics: all ten types are accepted, an unknown type is not [spec 4.6]', checks('stated', 'metrics.create.type.enum'), async ({ t }) => {
    for (const type of METRIC_TYPES) expectSuccess('createMetric', await create(t, { name: metricName(t.manifest.metricPrefix, t.runId, 30, `_${type}`), type, dryRun: true }));
    expectNotAccepted(await create(t, { name: metricName(t.manifest.metricPrefix, t.runId, 30, '_median'), type: 'median', dryRun: true }), 'type median');
  });

  test('metrics: name and type are each required [spec 4.6]', checks('stated', 'metrics.create.name.required', 'metrics.create.type.required'), async ({ t }) => {
    expectNotAccepted(await create(t, { type: 'sum', dryRun: true }), 'without name');
    expectNotAccepted(await create(t, { name: metricName(t.manifest.metricPrefix, t.runId, 30, '_notype'), dryRun: true }), 'without type');
  });

  test('metrics: directionality is increase or decrease [spec 4.6, 4.7]', checks('stated', 'metrics.create.directionality.enum', 'metrics.update.directionality.enum'), async ({ t }) => {
    const name = metricName(t.manifest.metricPrefix, t.runId, 30, '_dir');
    const body = expectSuccess('createMetric', await create(t, { name, type: 'sum', directionality: 'decrease', dryRun: true }));
    expect(body.data?.directionality ?? 'decrease').toBe('decrease');
    expectNotAccepted(await create(t, { name, type: 'sum', directionality: 'sideways', dryRun: true }), 'directionality sideways');
  });

  test('metrics: a dryRun create persists nothing [spec 4.6]', checks('stated', 'metrics.create.dryRun'), async ({ t }, info) => {
    const name = metricName(t.manifest.metricPrefix, t.runId, 30, '_dry');
    const dry = await create(t, { name, type: 'ratio', dryRun: true });
    expectSuccess('createMetric', dry);
    observe(info, 'metrics.create.dryRun.response', { status: dry.status, hasData: dry.body?.data !== undefined });
    // Shown by a later read: the metric does not exist to be updated.
    expectNotAccepted(await update(t, `${name}::ratio`, { description: 'probe' }), 'update of a metric created only with dryRun');
  });

  test('metrics: update applies what it is sent, with the spec message [spec 4.7]', checks('stated', 'metrics.update.message', 'metrics.update.applies'), async ({ t }) => {
    const name = metricName(t.manifest.metricPrefix, t.runId, 30, '_upd');
    const created = expectSuccess('createMetric', await create(t, { name, type: 'mean' }));
    const id = created.data.id;
    const body = expectSuccess('updateMetric', await update(t, id, { description: 'updated by conformance', tags: ['cc', 'updated'], directionality: 'decrease', isVerified: true }));
    expectMessage(body, 'Metric updated successfully.');
    expect(body.data.description).toBe('updated by conformance');
    expect(body.data.tags).toEqual(['cc', 'updated']);
    expect(body.data.directionality).toBe('decrease');
    expect(body.data.isVerified).toBe(true);
  });

  test('metrics: a dryRun update persists nothing [spec 4.7]', checks('stated', 'metrics.update.dryRun'), async ({ t }) => {
    const name = metricName(t.manifest.metricPrefix, t.runId, 30, '_dryupd');
    const id = expectSuccess('createMetric', await create(t, { name, type: 'mean', description: 'before' })).data.id;
    expectSuccess('updateMetric', await update(t, id, { description: 'dry', dryRun: true }));
    const after = expectSuccess('updateMetric', await update(t, id, { tags: ['after'] }));
    expect(after.data.description, 'the dryRun description was not kept').toBe('before');
  });

  test('metrics: bad bodies get a 4xx and create nothing [inferred]', checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing'), async ({ t }, info) => {
    const name = metricName(t.manifest.metricPrefix, t.runId, 30, '_bad');
    const bad = [
      { name, type: 'sum', description: 5 }, { name, type: 'sum', tags: 'x' }, { name, type: 'sum', isVerified: 'yes' },
      { name: 1234, type: 'sum' }, { name, type: 'sum', unitTypes: [1] }, { name, type: 'sum', funnelCountDistinct: 'sessions' },
    ];
    const first = await create(t, bad[0]);
    observe(info, 'errors.shape', { badBody: first.status, bodyKeys: Object.keys(first.body ?? {}).sort() });
    expectClientError(first, 'description not a string');
    for (const data of bad.slice(1)) expectClientError(await create(t, data), JSON.stringify(data).slice(0, 80));
    expectClientError(await update(t, `${name}::sum`, {}), 'update of a metric that was never created');
  });
});
