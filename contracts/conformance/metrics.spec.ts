// Spec 2.8, 4.6 to 4.8 and 8: create and update metrics. Boundary checks use dryRun (nothing is
// persisted, spec 4.6), so they can run against a real server again and again; created metrics carry
// the manifest prefix and the run id (there is no delete operation).
import { checks, expect, test, type T } from '../support/target.ts';
import { OPERATIONS, schema } from '../index.ts';
import { clausesUnder } from '../support/clauses.ts';
import { fullCreateMetric, fullUpdateMetric, fullWarehouseNative } from '../support/bodies.ts';
import { METRIC_TYPES } from '../index.ts';
import {
  expectClientError,
  expectEchoed,
  expectMessage,
  expectNotAccepted,
  expectSuccess,
  expectValidRequest,
  metricName,
  ok2xx,
  outcome,
} from '../support/checks.ts';

const PATH = '/console/v1/metrics';
/** The body fields of update metric (spec 4.7), from the contract. */
const UPDATE_FIELDS = (() => {
  const doc = schema(OPERATIONS.updateMetric.body!) as { $ref: string; $defs: Record<string, { properties: object }> };
  return Object.keys(doc.$defs[String(doc.$ref).replace('#/$defs/', '')].properties).sort();
})();
const create = (t: T, data: unknown) => t.call('POST', PATH, { data });
const update = (t: T, id: string, data: unknown) => t.call('POST', `${PATH}/${encodeURIComponent(id)}`, { data });
/** A name of `length` characters, prefix and run id included (spec 8 counts the whole name). */
const nameOf = (t: T, length: number, salt: string) => metricName(t.manifest.metricPrefix, t.runId, length, salt);

// Spec 8's lengths are lengths of text: characters, as JSON Schema's minLength and maxLength count
// them (code points), not UTF-8 bytes. These characters take 2 and 3 bytes and are each one code
// point and one UTF-16 unit (BMP), so character, code point and string length agree.
const WIDE = ['é', 'ж', '名'];
const characters = (s: string) => [...s].length;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const wideText = (length: number) => Array.from({ length }, (_, i) => WIDE[i % WIDE.length]).join('');
/** A name of `length` characters, at least half of them non-ASCII: as much of prefix, run id and salt as fits in the first half, then WIDE characters. */
const wideNameOf = (t: T, length: number, salt: string) => {
  const head = `${t.manifest.metricPrefix}${t.runId}${salt}`.slice(0, Math.floor(length / 2));
  return head + wideText(length - head.length);
};

test.describe('metrics', () => {
  test(
    'metrics: a created metric has id <name>::<type>, default directionality increase and the spec message [spec 2.8, 4.6]',
    checks(
      'stated',
      'metrics.create.message',
      'metrics.create.path',
      'metric.id.shape',
      'metrics.create.directionality.default',
      ...clausesUnder('metric.field.'),
    ),
    async ({ t }) => {
      const name = nameOf(t, 24, '_created');
      const body = expectSuccess('createMetric', await create(t, { name, type: 'sum', description: 'conformance', tags: ['cc'] }));
      expectMessage(body, 'Metric created successfully.');
      expect(body.data.id, 'metric id is <name>::<type> (spec 2.8)').toBe(`${name}::sum`);
      expect(body.data.directionality, 'directionality defaults to increase').toBe('increase');
    },
  );

  test(
    'metrics: a created metric carries the name, type, description, tags and directionality it was sent [inferred]',
    checks('inferred', 'metrics.create.echoesInput'),
    async ({ t }) => {
      const name = nameOf(t, 30, '_echo');
      const sent = { name, type: 'mean', description: 'echo check', tags: ['cc', 'echo'], directionality: 'decrease' };
      const reply = await create(t, sent);
      expect(ok2xx(reply), `create answered ${reply.status}`).toBe(true);
      const absent = expectEchoed(reply.body?.data, sent, 'the created metric carries what it was sent');
      if (absent.length > 0) t.uncovered('metrics.create.echoesInput', `not verifiable: field absent: ${absent.join(', ')} (the fields present were compared)`);
    },
  );

  test(
    'metrics: a name of non-ASCII characters is accepted like an ASCII one [inferred]',
    checks('inferred', 'metrics.create.name.characters'),
    async ({ t }) => {
      const name = wideNameOf(t, 40, '_w');
      expect(bytes(name), 'a middling name: within 200 even counted in UTF-8 bytes').toBeLessThanOrEqual(200);
      const r = await create(t, { name, type: 'mean', dryRun: true });
      expect(ok2xx(r), `a name of 40 characters, 20 of them non-ASCII, answered ${r.status}`).toBe(true);
    },
  );

  test('metrics: name of 4 and of 200 characters is accepted [spec 8]', checks('stated', 'metrics.create.name.length'), async ({ t }) => {
    // Which characters a name may hold is not said (inferred clause metrics.create.name.characters):
    // the bounds are judged with non-ASCII text only where a middling non-ASCII name is accepted, so
    // that a server refusing such names is not called wrong about lengths.
    const wide = ok2xx(await create(t, { name: wideNameOf(t, 40, '_w'), type: 'mean', dryRun: true }));
    for (const length of [4, 200]) {
      for (const name of wide ? [nameOf(t, length, '_n'), wideNameOf(t, length, '_n')] : [nameOf(t, length, '_n')]) {
        expect(characters(name), JSON.stringify(name)).toBe(length);
        expectSuccess('createMetric', await create(t, { name, type: 'mean', dryRun: true }));
      }
    }
    // The non-ASCII name of 200 characters is longer than 200 in UTF-8 bytes: a server counting bytes refuses it.
    expect(bytes(wideNameOf(t, 200, '_n')), 'UTF-8 bytes of the 200-character name').toBeGreaterThan(200);
  });

  test(
    'metrics: name of 3 and of 201 characters is not accepted [spec 8]',
    checks('stated', 'metrics.create.name.length', 'errors.violationOutcome'),
    async ({ t }) => {
      for (const length of [3, 201]) {
        const name = nameOf(t, length, '_n');
        expect(characters(name)).toBe(length);
        const r = await create(t, { name, type: 'mean', dryRun: true });
        t.observe('errors.violationOutcome', `name of ${length}`, outcome(r), r);
        expectNotAccepted(r, `name of ${length} characters`);
        const wide = wideNameOf(t, length, '_n');
        expect(characters(wide), JSON.stringify(wide)).toBe(length);
        expectNotAccepted(await create(t, { name: wide, type: 'mean', dryRun: true }), `name of ${length} non-ASCII characters (${bytes(wide)} UTF-8 bytes)`);
      }
      // The non-ASCII name of 3 characters is 4 or more UTF-8 bytes: a server counting bytes accepts it.
      expect(bytes(wideNameOf(t, 3, '_n')), 'UTF-8 bytes of the 3-character name').toBeGreaterThanOrEqual(4);
    },
  );

  test('metrics: description of 1000 is accepted, of 1001 not [spec 8]', checks('stated', 'metrics.create.description.maxLength'), async ({ t }) => {
    const name = nameOf(t, 30, '_desc');
    expectSuccess('createMetric', await create(t, { name, type: 'mean', description: 'd'.repeat(1000), dryRun: true }));
    expectNotAccepted(await create(t, { name, type: 'mean', description: 'd'.repeat(1001), dryRun: true }), 'description of 1001 characters');
    // Non-ASCII: 1000 characters are accepted though they are over 1000 UTF-8 bytes (a server counting bytes refuses them).
    expect(characters(wideText(1000))).toBe(1000);
    expect(bytes(wideText(1000)), 'UTF-8 bytes of the 1000-character description').toBeGreaterThan(1000);
    expectSuccess('createMetric', await create(t, { name, type: 'mean', description: wideText(1000), dryRun: true }));
    expectNotAccepted(await create(t, { name, type: 'mean', description: wideText(1001), dryRun: true }), 'description of 1001 non-ASCII characters');
  });

  test('metrics: all ten types are accepted, an unknown type is not [spec 4.6]', checks('stated', 'metrics.create.type.enum'), async ({ t }) => {
    for (const type of METRIC_TYPES) expectSuccess('createMetric', await create(t, { name: nameOf(t, 40, `_${type}`), type, dryRun: true }));
    expectNotAccepted(await create(t, { name: nameOf(t, 30, '_median'), type: 'median', dryRun: true }), 'type median');
  });

  test(
    'metrics: name and type are each required [spec 4.6]',
    checks('stated', 'metrics.create.name.required', 'metrics.create.type.required', 'errors.violationOutcome'),
    async ({ t }) => {
      const noName = await create(t, { type: 'sum', dryRun: true });
      t.observe('errors.violationOutcome', 'missing required field', outcome(noName), noName);
      expectNotAccepted(noName, 'without name');
      expectNotAccepted(await create(t, { name: nameOf(t, 30, '_notype'), dryRun: true }), 'without type');
    },
  );

  test(
    'metrics: directionality is increase or decrease, on create and on update [spec 4.6, 4.7]',
    checks('stated', 'metrics.create.directionality.enum', 'metrics.update.directionality.enum'),
    async ({ t }) => {
      const name = nameOf(t, 30, '_dir');
      const body = expectSuccess('createMetric', await create(t, { name, type: 'sum', directionality: 'decrease' }));
      expect(body.data.directionality).toBe('decrease');
      expectNotAccepted(
        await create(t, { name: nameOf(t, 30, '_dir2'), type: 'sum', directionality: 'sideways', dryRun: true }),
        'create with directionality sideways',
      );
      expect(expectSuccess('updateMetric', await update(t, body.data.id, { directionality: 'increase' })).data.directionality).toBe('increase');
      expectNotAccepted(await update(t, body.data.id, { directionality: 'sideways' }), 'update with directionality sideways');
    },
  );

  test(
    'metrics: every field of create (4.6) and of warehouseNative (4.8) is accepted [spec 4.6, 4.8]',
    checks(
      'stated',
      ...clausesUnder('metrics.create.body.field.'),
      ...clausesUnder('warehouseNative.field.'),
      ...clausesUnder('criterion.field.'),
      'warehouseNative.optional',
      'metrics.create.dryRun.response',
    ),
    async ({ t }) => {
      const full = fullCreateMetric(nameOf(t, 30, '_full'));
      expectValidRequest('createMetric', full);
      const body = expectSuccess('createMetric', await create(t, full));
      expect(body.data.id).toBe(`${full.name}::user_warehouse`);
      // All warehouseNative fields are optional (4.8): an empty object and a single field are each enough.
      for (const warehouseNative of [{}, { aggregation: 'count' }]) {
        const dry = await create(t, { name: nameOf(t, 30, '_wn'), type: 'user_warehouse', warehouseNative, dryRun: true });
        expectSuccess('createMetric', dry);
        t.observe(
          'metrics.create.dryRun.response',
          'dryRun create',
          { status: dry.status, hasData: dry.body?.data !== undefined && dry.body?.data !== null },
          dry,
        );
      }
      expect(Object.keys(fullWarehouseNative()).length, 'all 4.8 fields sent').toBeGreaterThanOrEqual(44);
    },
  );

  test(
    'metrics: every field of update (4.7) is accepted [spec 4.7]',
    checks('stated', ...clausesUnder('metrics.update.body.field.'), 'metrics.update.path'),
    async ({ t }) => {
      const name = nameOf(t, 30, '_fullupd');
      const id = expectSuccess('createMetric', await create(t, { name, type: 'mean' })).data.id;
      const owner = (t.manifest.metricOwner as { email: string; ownerID: string } | undefined) ?? { email: 'owner@example.com', ownerID: 'cc_owner' };
      const full = { ...fullUpdateMetric(name, owner), dryRun: true };
      expectValidRequest('updateMetric', full);
      expectSuccess('updateMetric', await update(t, id, full));
    },
  );

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

  test(
    'metrics: update applies what it is sent, with the spec message [spec 4.7]',
    checks('stated', 'metrics.update.message', 'metrics.update.applies'),
    async ({ t }) => {
      const name = nameOf(t, 30, '_upd');
      const id = expectSuccess('createMetric', await create(t, { name, type: 'mean' })).data.id;
      const sent = {
        description: 'updated by conformance',
        tags: ['cc', 'updated'],
        directionality: 'decrease',
        isVerified: true,
        isReadOnly: true,
        isPermanent: false,
        unitTypes: ['stableID'],
      };
      const body = expectSuccess('updateMetric', await update(t, id, sent));
      expectMessage(body, 'Metric updated successfully.');
      const absent = expectEchoed(body.data, sent, 'the updated metric carries what it was sent');
      if (absent.length > 0) t.uncovered('metrics.update.applies', `not verifiable: field absent: ${absent.join(', ')} (the fields present were compared)`);
      expect(body.data.id, 'the updated metric keeps its id').toBe(id);
    },
  );

  test('metrics: a dryRun update persists nothing [spec 4.7]', checks('stated', 'metrics.update.dryRun'), async ({ t }) => {
    const name = nameOf(t, 30, '_dryupd');
    const sent = {
      name,
      type: 'mean',
      description: 'before',
      tags: ['cc', 'before'],
      directionality: 'increase',
      isVerified: false,
      isReadOnly: false,
      isPermanent: false,
      unitTypes: ['userID'],
    };
    const created = expectSuccess('createMetric', await create(t, sent)).data;
    const owner = (t.manifest.metricOwner as { email: string; ownerID: string } | undefined) ?? { email: 'owner@example.com', ownerID: 'cc_owner' };
    // Every field of 4.7, each with a value other than the one created (the new name too carries prefix
    // and run id), but team and teamID: null, valid on every server (a team name is Enterprise-only).
    const dry = {
      name: nameOf(t, 30, '_dryupd2'),
      description: 'changed by a dryRun',
      tags: ['cc', 'dry'],
      isVerified: true,
      isReadOnly: true,
      isPermanent: true,
      warehouseNative: fullWarehouseNative(),
      unitTypes: ['stableID'],
      team: null,
      teamID: null,
      directionality: 'decrease',
      owner,
      dryRun: true,
    };
    expectValidRequest('updateMetric', dry);
    expect(Object.keys(dry).sort(), 'the dryRun update sends every field of 4.7').toEqual(UPDATE_FIELDS);
    expectSuccess('updateMetric', await update(t, created.id, dry));
    // There is no read (spec 4): a write that changes nothing answers the metric as stored.
    const after = expectSuccess('updateMetric', await update(t, created.id, { description: sent.description })).data;
    // The whole metric, every field the create answered. None of them may change on a write: the 2.8
    // table has no field that records a write (createdTime is the creation's), and the write after the
    // dryRun sends only the description it already has. A field the spec does not list and whose name
    // says it records the last write (lastModified..., which 2.8 does not have) does change on every
    // write by its nature, so only such a field is left out. A field of the create that the update
    // does not answer cannot be compared: the test says so instead of failing.
    const compared = Object.keys(created).filter((k) => !/^lastModifi/.test(k));
    const absent = compared.filter((k) => !Object.hasOwn(after, k));
    const pick = (m: any) => Object.fromEntries(compared.filter((k) => !absent.includes(k)).map((k) => [k, m[k]]));
    expect(pick(after), 'the metric after a dryRun update of every field, as created').toEqual(pick(created));
    if (absent.length > 0) t.uncovered('metrics.update.dryRun', `not verifiable: field absent from the update's answer: ${absent.join(', ')}`);
  });

  test(
    'metrics: creating an existing <name>::<type> again never makes a second metric [inferred]',
    checks('inferred', 'metric.id.unique', 'errors.shape'),
    async ({ t }) => {
      const name = nameOf(t, 30, '_dup');
      expect(ok2xx(await create(t, { name, type: 'sum' })), 'the first create succeeds').toBe(true);
      const again = await create(t, { name, type: 'sum' });
      t.observe('errors.shape', 'duplicate metric', outcome(again), again);
      expect(again.status < 500, `a duplicate create answered ${again.status}`).toBe(true);
      if (ok2xx(again)) expect(again.body?.data?.id, 'a duplicate create that succeeds answers that same metric').toBe(`${name}::sum`);
    },
  );

  test(
    'metrics: element values and component fields the spec leaves open are observed [spec 2.8, not shown]',
    checks('open', 'metric.enums.values', 'metrics.create.metricComponentMetrics.fields'),
    async ({ t }) => {
      t.observe(
        'metric.enums.values',
        'metricEvents type other',
        outcome(await create(t, { name: nameOf(t, 30, '_ev'), type: 'sum', metricEvents: [{ name: 'e', type: 'other' }], dryRun: true })).status,
      );
      t.observe(
        'metrics.create.metricComponentMetrics.fields',
        'item {name, type}',
        outcome(
          await create(t, { name: nameOf(t, 30, '_cmp'), type: 'composite', metricComponentMetrics: [{ name: 'cc_component', type: 'sum' }], dryRun: true }),
        ).status,
      );
    },
  );

  test(
    'metrics: bad bodies get a 4xx and create nothing [inferred]',
    checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing', 'errors.shape'),
    async ({ t }) => {
      const name = nameOf(t, 30, '_bad');
      const bad = [
        { name, type: 'sum', description: 5 },
        { name, type: 'sum', tags: 'x' },
        { name, type: 'sum', isVerified: 'yes' },
        { name: 1234, type: 'sum' },
        { name, type: 'sum', unitTypes: [1] },
        { name, type: 'sum', funnelCountDistinct: 'sessions' },
      ];
      const first = await create(t, bad[0]);
      t.observe('errors.shape', 'schema violation', outcome(first), first);
      expectClientError(first, 'description not a string');
      for (const data of bad.slice(1)) expectClientError(await create(t, data), JSON.stringify(data).slice(0, 80));
      expectClientError(await update(t, `${name}::sum`, {}), 'update of a metric that was never created');
    },
  );

  test(
    'metrics: concurrent updates of one metric each succeed or get a 4xx, and the metric stays well formed [inferred]',
    checks('inferred', 'writes.concurrentSafe'),
    async ({ t }) => {
      const r = await create(t, { name: nameOf(t, 30, '_conc'), type: 'sum' });
      expect(ok2xx(r), 'the metric to update was created').toBe(true);
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => update(t, r.body.data.id, { description: `concurrent ${i}`, tags: [`t${i}`] })));
      for (const x of replies) expect(x.status < 500, `a concurrent update answered ${x.status}`).toBe(true);
      const after = expectSuccess('updateMetric', await update(t, r.body.data.id, { isVerified: false }));
      expect(after.data.description).toMatch(/^concurrent \d$/);
    },
  );
});
