// Spec 2.8, 4.6 to 4.8 and 8: create and update metrics. There is no delete operation, so every metric a
// run creates stays on the target: boundary and acceptance checks use dryRun (nothing is persisted,
// 4.6: "used to validate the inputs"), update checks share the worker's metric (support/worker-metric.ts;
// each first sets what it compares with an update), and only the checks of what a create answers or
// stores create a metric: three a run, carrying the manifest prefix and the run id.
import { isDeepStrictEqual } from 'node:util';
import type { Reply } from '../support/evidence.ts';
import { checkLinearizable, fieldsModel, timed } from '../support/linearizability.ts';
import { judgeHistory } from '../support/histories.ts';
import { checks, expect, test, type T } from '../support/suite-test.ts';
import { OPERATIONS, schema } from '../index.ts';
import { clausesUnder } from '../support/clauses.ts';
import { fullCreateMetric, fullUpdateMetric, fullWarehouseNative } from '../support/bodies.ts';
import { METRIC_TYPES, SPEC_ALLOWED } from '../index.ts';
import { workerMetric } from '../support/worker-metric.ts';
import {
  DESCRIPTION_MAX,
  DIRECTIONALITY_DEFAULT,
  DIRECTIONALITY_OTHER,
  longest,
  METRIC_TYPE,
  METRIC_TYPE_2,
  METRIC_TYPE_3,
  NAME_LENGTH,
  NAME_LENGTH_ORDINARY,
  nameLengthWithin,
  outside,
  refusedValues,
  WAREHOUSE_METRIC_TYPE,
} from '../support/boundaries.ts';
import {
  expectAccepted,
  expectClientError,
  expectEchoed,
  expectMessage,
  expectNotAccepted,
  expectSuccess,
  expectValidRequest,
  metricName,
  ok2xx,
  outcome,
  refusalClause,
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
const pick = (m: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, m[k]]));

/**
 * The owner an update sends (4.7): the manifest's metricOwner, else the owner the target gave the
 * metric, else a placeholder. Which owners a target takes is its own data and not shown: a made-up
 * owner may rightly be refused, the metric's own owner is one the target knows.
 */
function ownerFor(t: T, metric: any): { email: string; ownerID: string } {
  const named = t.manifest.metricOwner as { email: string; ownerID: string } | undefined;
  if (named) return named;
  const o = metric?.owner;
  if (typeof o?.ownerEmail === 'string' && typeof o?.ownerID === 'string') return { email: o.ownerEmail, ownerID: o.ownerID };
  return { email: 'owner@example.com', ownerID: 'cc_owner' };
}

/**
 * The metric as stored, by a write that changes nothing: there is no read (spec 4). A real update, not
 * a dry run with no change: a real update answers the metric as stored after it (4.7), while a dry
 * run's answer is only right on a server whose dry runs are right, which is what some callers check.
 * The update sends no field (4.7: all are optional); a target that refuses an empty body is sent the
 * directionality the metric has instead, and `sent` names it, for the caller not to judge it.
 */
async function readBack(t: T, id: string, directionality: string): Promise<{ after: any; sent: string[]; reply: Reply }> {
  const empty = await update(t, id, {});
  if (empty.status < 400 || empty.status >= 500) return { after: expectSuccess('updateMetric', empty).data, sent: [], reply: empty };
  const reply = await update(t, id, { directionality });
  return { after: expectSuccess('updateMetric', reply).data, sent: ['directionality'], reply };
}

/**
 * The worker's metric, first set by an update to `state` (its state is whatever the test before left;
 * 4.7 lets an update set each field a test compares). `before` is the metric as that update answered it.
 */
async function workerMetricAt(t: T, state: Record<string, unknown>): Promise<{ id: string; name: string; before: any }> {
  const m = await workerMetric(t);
  const before = expectSuccess('updateMetric', await update(t, m.id, state)).data;
  return { id: m.id, name: m.name, before };
}

// Spec 8's lengths are lengths of text: characters, as JSON Schema's minLength and maxLength count
// them (code points), not UTF-8 bytes. These characters take 2 and 3 bytes and are each one code
// point and one UTF-16 unit (BMP), so character, code point and string length agree.
const WIDE = ['é', 'ж', '名'];
const { minLength: NAME_MIN, maxLength: NAME_MAX } = NAME_LENGTH;
/**
 * A middling name length whose non-ASCII form (half ASCII, half WIDE: at most 2 UTF-8 bytes a
 * character) stays within the longest name even counted in bytes: a refusal of it is the characters'.
 */
const NAME_MIDDLING = nameLengthWithin(Math.min(40, Math.floor(NAME_MAX / 2)));
/** A length for names that carry a metric type in their salt: room for the longest type. */
const NAME_TYPED = nameLengthWithin(NAME_LENGTH_ORDINARY + 10);
/** A type and a directionality the contract does not allow. */
const TYPE_UNKNOWN = outside(SPEC_ALLOWED.createMetric.type, 'median');
const DIRECTIONALITY_UNKNOWN = outside(SPEC_ALLOWED.createMetric.directionality, 'sideways');
const UPDATE_DIRECTIONALITY_UNKNOWN = outside(SPEC_ALLOWED.updateMetric.directionality, 'sideways');
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
    `metrics: a created metric answers the spec message, default directionality ${DIRECTIONALITY_DEFAULT}, and id <name>::<type> for a mixed-case name of ${NAME_MAX} characters with the longest type [spec 2.8, 4.6, 8]`,
    checks(
      'stated',
      'metrics.create.message',
      'metrics.create.path',
      'metric.id.shape',
      'metrics.create.directionality.default',
      'metrics.create.name.length',
      ...clausesUnder('metric.field.'),
    ),
    async ({ t }) => {
      // Created for real: what a dryRun create answers is not shown (4.6). Upper and lower case, the
      // longest name and the longest type, so that an id that folds case, cuts the name or is bounded
      // below the longest name + 2 + the longest type shows. No directionality sent: it takes the default.
      const type = longest(METRIC_TYPES);
      expect(Math.max(...METRIC_TYPES.map((x) => x.length)), 'the longest type of 4.6').toBe(type.length);
      const name = `${t.manifest.metricPrefix}${t.runId}_IdShape_`.padEnd(NAME_MAX, 'AbCdEfGhIj');
      expect(characters(name), `a name of ${NAME_MAX} characters`).toBe(NAME_MAX);
      expect(name, 'a name in mixed case').not.toBe(name.toLowerCase());
      // A refusal is the name's (its length is the longest of spec 8), but a 404 or 405: the operation is
      // not at its path (metrics.create.path). A field's type is that field's.
      const created = await create(t, { name, type, description: 'conformance', tags: ['cc'] });
      const body = await t.clause(refusalClause('createMetric', created, 'metrics.create.name.length'), async () => expectSuccess('createMetric', created));
      expectMessage('createMetric', body);
      await t.clause('metric.id.shape', async () =>
        expect(body.data.id, 'metric id is the whole name as sent, :: and the type (spec 2.8)').toBe(`${name}::${type}`),
      );
      await t.clause('metrics.create.directionality.default', async () =>
        expect(body.data.directionality, `directionality defaults to ${DIRECTIONALITY_DEFAULT}`).toBe(DIRECTIONALITY_DEFAULT),
      );
    },
  );

  test(
    'metrics: after a dryRun create the same metric is created with what it was sent, and creating it again never makes a second [inferred]',
    checks('inferred', 'writes.dryRunNoChange', 'metric.id.unique', 'errors.shape', 'metrics.create.echoesInput'),
    async ({ t }) => {
      const name = nameOf(t, NAME_LENGTH_ORDINARY, '_echo');
      // The flags true and unitTypes not empty: their defaults would read back alike whether sent or not.
      const sent = {
        name,
        type: METRIC_TYPE_2,
        description: 'echo check',
        tags: ['cc', 'echo'],
        directionality: DIRECTIONALITY_OTHER,
        isVerified: true,
        isReadOnly: true,
        isPermanent: true,
        unitTypes: ['stableID', 'userID'],
      };
      // A dry run that created the metric shows as the real create after it refused as a duplicate.
      const real = await t.clause('writes.dryRunNoChange', async () => {
        expect(ok2xx(await create(t, { ...sent, dryRun: true })), 'the dryRun create succeeds').toBe(true);
        const r = await create(t, sent);
        expect(ok2xx(r), `the real create after a dryRun answered ${r.status}`).toBe(true);
        return r;
      });
      const again = await create(t, sent);
      t.observe('errors.shape', 'duplicate metric', outcome(again), again);
      // Not judged: leaves the metric deletable by whoever clears the target (permanent metrics are not to be deleted, 4.6).
      await update(t, real.body?.data?.id ?? `${name}::${METRIC_TYPE_2}`, { isPermanent: false });
      await t.clause('metric.id.unique', async () => {
        expect(again.status < 500, `a duplicate create answered ${again.status}`).toBe(true);
        if (ok2xx(again)) expect(again.body?.data?.id, 'a duplicate create that succeeds answers that same metric').toBe(`${name}::${METRIC_TYPE_2}`);
      });
      await t.clause('metrics.create.echoesInput', async () => {
        const absent = expectEchoed(real.body?.data, sent, 'the created metric carries what it was sent');
        if (absent.length > 0)
          t.uncovered('metrics.create.echoesInput', `not verifiable: field absent: ${absent.join(', ')} (the fields present were compared)`, 'unverifiable');
      });
    },
  );

  test(
    'metrics: a name of non-ASCII characters is accepted like an ASCII one [inferred]',
    checks('inferred', 'metrics.create.name.characters'),
    async ({ t }) => {
      const name = wideNameOf(t, NAME_MIDDLING, '_w');
      expect(bytes(name), `a middling name: within ${NAME_MAX} even counted in UTF-8 bytes`).toBeLessThanOrEqual(NAME_MAX);
      const r = await create(t, { name, type: METRIC_TYPE_2, dryRun: true });
      expect(ok2xx(r), `a name of ${NAME_MIDDLING} characters, half of them non-ASCII, answered ${r.status}`).toBe(true);
    },
  );

  test(`metrics: name of ${NAME_MIN} and of ${NAME_MAX} characters is accepted [spec 8]`, checks('stated', 'metrics.create.name.length'), async ({ t }) => {
    // Which characters a name may hold is not said (inferred clause metrics.create.name.characters):
    // the bounds are judged with non-ASCII text only where a middling non-ASCII name is accepted, so
    // that a server refusing such names is not called wrong about lengths.
    const wide = ok2xx(await create(t, { name: wideNameOf(t, NAME_MIDDLING, '_w'), type: METRIC_TYPE_2, dryRun: true }));
    for (const length of [NAME_MIN, NAME_MAX]) {
      for (const name of wide ? [nameOf(t, length, '_n'), wideNameOf(t, length, '_n')] : [nameOf(t, length, '_n')]) {
        expect(characters(name), JSON.stringify(name)).toBe(length);
        expectAccepted('createMetric', await create(t, { name, type: METRIC_TYPE_2, dryRun: true }));
      }
    }
    // The longest non-ASCII name is longer than the bound in UTF-8 bytes: a server counting bytes refuses it.
    expect(bytes(wideNameOf(t, NAME_MAX, '_n')), `UTF-8 bytes of the ${NAME_MAX}-character name`).toBeGreaterThan(NAME_MAX);
  });

  test(
    `metrics: name of ${NAME_MIN - 1} and of ${NAME_MAX + 1} characters is not accepted [spec 8]`,
    checks('stated', 'metrics.create.name.length', 'errors.violationOutcome'),
    async ({ t }) => {
      for (const length of [NAME_MIN - 1, NAME_MAX + 1]) {
        const name = nameOf(t, length, '_n');
        expect(characters(name)).toBe(length);
        const r = await create(t, { name, type: METRIC_TYPE_2, dryRun: true });
        t.observe('errors.violationOutcome', `name of ${length}`, outcome(r), r);
        const wide = wideNameOf(t, length, '_n');
        expect(characters(wide), JSON.stringify(wide)).toBe(length);
        await t.clause('metrics.create.name.length', async () => {
          expectNotAccepted(r, `name of ${length} characters`);
          expectNotAccepted(
            await create(t, { name: wide, type: METRIC_TYPE_2, dryRun: true }),
            `name of ${length} non-ASCII characters (${bytes(wide)} UTF-8 bytes)`,
          );
        });
      }
      // The non-ASCII name one character short is as many UTF-8 bytes as the shortest name or more: a server counting bytes accepts it.
      expect(bytes(wideNameOf(t, NAME_MIN - 1, '_n')), `UTF-8 bytes of the ${NAME_MIN - 1}-character name`).toBeGreaterThanOrEqual(NAME_MIN);
    },
  );

  test(
    `metrics: description of ${DESCRIPTION_MAX} is accepted, of ${DESCRIPTION_MAX + 1} not [spec 8]`,
    checks('stated', 'metrics.create.description.maxLength'),
    async ({ t }) => {
      const name = nameOf(t, NAME_LENGTH_ORDINARY, '_desc');
      const [max, over] = [DESCRIPTION_MAX, DESCRIPTION_MAX + 1];
      expectAccepted('createMetric', await create(t, { name, type: METRIC_TYPE_2, description: 'd'.repeat(max), dryRun: true }));
      expectNotAccepted(await create(t, { name, type: METRIC_TYPE_2, description: 'd'.repeat(over), dryRun: true }), `description of ${over} characters`);
      // Non-ASCII: the longest description is accepted though it is longer in UTF-8 bytes (a server counting bytes refuses it).
      expect(characters(wideText(max))).toBe(max);
      expect(bytes(wideText(max)), `UTF-8 bytes of the ${max}-character description`).toBeGreaterThan(max);
      expectAccepted('createMetric', await create(t, { name, type: METRIC_TYPE_2, description: wideText(max), dryRun: true }));
      expectNotAccepted(
        await create(t, { name, type: METRIC_TYPE_2, description: wideText(over), dryRun: true }),
        `description of ${over} non-ASCII characters`,
      );
    },
  );

  test(
    `metrics: all ${METRIC_TYPES.length} types are accepted, an unknown type is not [spec 4.6]`,
    checks('stated', 'metrics.create.type.enum'),
    async ({ t }) => {
      for (const type of METRIC_TYPES) expectAccepted('createMetric', await create(t, { name: nameOf(t, NAME_TYPED, `_${type}`), type, dryRun: true }));
      expectNotAccepted(await create(t, { name: nameOf(t, NAME_LENGTH_ORDINARY, '_unknowntype'), type: TYPE_UNKNOWN, dryRun: true }), `type ${TYPE_UNKNOWN}`);
      // "One of" closes the list: a type an earlier revision listed, or a word the types are made of, is none.
      for (const type of refusedValues('createMetric', 'type', METRIC_TYPES))
        expectNotAccepted(await create(t, { name: nameOf(t, NAME_LENGTH_ORDINARY, `_not_${type}`), type, dryRun: true }), `type ${type}, not listed`);
    },
  );

  test(
    'metrics: name and type are each required [spec 4.6]',
    checks('stated', 'metrics.create.name.required', 'metrics.create.type.required', 'errors.violationOutcome'),
    async ({ t }) => {
      const noName = await create(t, { type: METRIC_TYPE, dryRun: true });
      t.observe('errors.violationOutcome', 'missing required field', outcome(noName), noName);
      await t.clause('metrics.create.name.required', async () => expectNotAccepted(noName, 'without name'));
      const noType = await create(t, { name: nameOf(t, NAME_LENGTH_ORDINARY, '_notype'), dryRun: true });
      await t.clause('metrics.create.type.required', async () => expectNotAccepted(noType, 'without type'));
    },
  );

  test(
    `metrics: directionality is ${SPEC_ALLOWED.createMetric.directionality.join(' or ')}, on create and on update; a create with dryRun false is stored [spec 4.6, 4.7]`,
    checks('stated', 'metrics.create.directionality.enum', 'metrics.update.directionality.enum', 'metrics.create.dryRun'),
    async ({ t }) => {
      const name = nameOf(t, NAME_LENGTH_ORDINARY, '_dir');
      // dryRun false: only true withholds the metric (4.6); that it was stored shows as the update below being accepted.
      const body = await t.clause('metrics.create.directionality.enum', async () => {
        const b = expectSuccess('createMetric', await create(t, { name, type: METRIC_TYPE, directionality: DIRECTIONALITY_OTHER, dryRun: false }));
        expect(b.data.directionality).toBe(DIRECTIONALITY_OTHER);
        expectNotAccepted(
          await create(t, { name: nameOf(t, NAME_LENGTH_ORDINARY, '_dir2'), type: METRIC_TYPE, directionality: DIRECTIONALITY_UNKNOWN, dryRun: true }),
          `create with directionality ${DIRECTIONALITY_UNKNOWN}`,
        );
        return b;
      });
      const id = body.data?.id ?? `${name}::${METRIC_TYPE}`;
      // Refused, the update of the metric just created says either that the create with dryRun false
      // stored nothing or that a directionality of 4.7 is refused: its answer does not say which.
      const updated = await update(t, id, { directionality: DIRECTIONALITY_DEFAULT });
      await t.clause(['metrics.create.dryRun', 'metrics.update.directionality.enum'], async () =>
        expect(ok2xx(updated), `an update of the metric created with dryRun false answered ${updated.status}`).toBe(true),
      );
      await t.clause('metrics.update.directionality.enum', async () => {
        expect(expectSuccess('updateMetric', updated).data.directionality).toBe(DIRECTIONALITY_DEFAULT);
        expectNotAccepted(
          await update(t, id, { directionality: UPDATE_DIRECTIONALITY_UNKNOWN }),
          `update with directionality ${UPDATE_DIRECTIONALITY_UNKNOWN}`,
        );
      });
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
      // A dry run "used to validate the inputs" (4.6): its answer is held to status and types, and
      // what a real create answers is checked on the creates that need one.
      const full = { ...fullCreateMetric(nameOf(t, NAME_LENGTH_ORDINARY, '_full')), dryRun: true };
      expectValidRequest('createMetric', full);
      await t.clause(
        [...clausesUnder('metrics.create.body.field.'), ...clausesUnder('warehouseNative.field.'), ...clausesUnder('criterion.field.')],
        async () => expectAccepted('createMetric', await create(t, full)),
      );
      // All warehouseNative fields are optional (4.8): an empty object and a single field are each enough.
      for (const warehouseNative of [{}, { aggregation: 'count' }]) {
        const dry = await create(t, { name: nameOf(t, NAME_LENGTH_ORDINARY, '_wn'), type: WAREHOUSE_METRIC_TYPE, warehouseNative, dryRun: true });
        t.observe(
          'metrics.create.dryRun.response',
          'dryRun create',
          { status: dry.status, hasData: dry.body?.data !== undefined && dry.body?.data !== null },
          dry,
        );
        await t.clause('warehouseNative.optional', async () => expectAccepted('createMetric', dry));
      }
      expect(Object.keys(fullWarehouseNative()).length, 'all 4.8 fields sent').toBeGreaterThanOrEqual(44);
    },
  );

  test(
    'metrics: every field of update (4.7) is accepted [spec 4.7]',
    checks('stated', ...clausesUnder('metrics.update.body.field.'), 'metrics.update.path'),
    async ({ t }) => {
      const m = await workerMetric(t);
      // The name unchanged (fullUpdateMetric); a dry run, so the worker's metric keeps its state.
      const full = { ...fullUpdateMetric(m.name, ownerFor(t, m.creation.body?.data)), dryRun: true };
      expectValidRequest('updateMetric', full);
      // A dry run: what it answers is held to status and types only, as a dryRun create's (4.6 says that
      // answer is not shown; a real server answers both dry runs alike, often with a validation summary).
      expectAccepted('updateMetric', await update(t, m.id, full));
    },
  );

  test('metrics: a dryRun create persists nothing [spec 4.6]', checks('stated', 'metrics.create.dryRun'), async ({ t }) => {
    const name = nameOf(t, NAME_LENGTH_ORDINARY, '_dry');
    expectAccepted('createMetric', await create(t, { name, type: METRIC_TYPE_3, dryRun: true }));
    // No metric read is shown: the metric's absence shows as an update that is not accepted.
    expectNotAccepted(await update(t, `${name}::${METRIC_TYPE_3}`, { description: 'probe' }), 'update of a metric created only with dryRun');
  });

  test(
    'metrics: update applies what it is sent, with the spec message [spec 4.7]',
    checks('stated', 'metrics.update.message', 'metrics.update.applies'),
    async ({ t }) => {
      // Set first with tags and isPermanent false (its default), so that tags appended to the ones stored,
      // or an isPermanent left as it was, read otherwise than what the update sends; and every other field
      // compared to a value other than the one sent.
      const { id } = await t.clause('metrics.update.applies', () =>
        workerMetricAt(t, {
          description: 'before the update',
          tags: ['cc', 'created'],
          directionality: DIRECTIONALITY_DEFAULT,
          isVerified: false,
          isReadOnly: false,
          isPermanent: false,
          unitTypes: ['userID'],
        }),
      );
      const sent = {
        description: 'updated by conformance',
        tags: ['cc', 'updated'],
        directionality: DIRECTIONALITY_OTHER,
        isVerified: true,
        isReadOnly: true,
        isPermanent: true,
        unitTypes: ['stableID'],
      };
      const body = await t.clause('metrics.update.applies', async () => expectSuccess('updateMetric', await update(t, id, sent)));
      expectMessage('updateMetric', body);
      await t.clause('metrics.update.applies', async () => {
        const absent = expectEchoed(body.data, sent, 'the updated metric carries what it was sent');
        if (absent.length > 0)
          t.uncovered('metrics.update.applies', `not verifiable: field absent: ${absent.join(', ')} (the fields present were compared)`, 'unverifiable');
        expect(body.data.id, 'the updated metric keeps its id').toBe(id);
      });
      // Not judged: leaves the metric deletable by whoever clears the target (permanent metrics are not to be deleted, 4.6).
      await update(t, id, { isPermanent: false });
    },
  );

  test(
    'metrics: an update without dryRun, and one with dryRun false, is stored: a later write that changes nothing answers it [spec 4.7]',
    checks('stated', 'metrics.update.applies', 'metrics.update.dryRun'),
    async ({ t }) => {
      // Every field the updates send set first to another value than theirs, and directionality to the
      // one the read-back may send.
      const { id } = await t.clause('metrics.update.applies', () =>
        workerMetricAt(t, {
          description: 'before the stored updates',
          tags: ['cc'],
          isVerified: false,
          unitTypes: ['userID', 'stableID'],
          directionality: DIRECTIONALITY_DEFAULT,
        }),
      );
      // Only a dryRun true is not persisted (4.7). directionality is not sent: whether an update without it
      // keeps it or resets it to its default is not clear from 4.7, so the read-back could not judge it.
      const updates: Record<string, unknown>[] = [
        { description: 'stored by an update', tags: ['cc', 'stored'], isVerified: true, unitTypes: ['stableID'] },
        { description: 'stored by an update with dryRun false', tags: ['cc', 'stored', 'again'], unitTypes: ['userID'], dryRun: false },
      ];
      for (const sent of updates) {
        const { dryRun, ...fields } = sent;
        // An update with dryRun false that is not stored breaks what 4.7 says of dryRun; one without dryRun, that updates apply.
        await t.clause(dryRun === undefined ? 'metrics.update.applies' : 'metrics.update.dryRun', async () => {
          expectSuccess('updateMetric', await update(t, id, sent));
          const { after } = await readBack(t, id, DIRECTIONALITY_DEFAULT);
          const what = dryRun === undefined ? 'an update without dryRun' : 'an update with dryRun false';
          const absent = expectEchoed(after, fields, `the metric read back after ${what} holds what that update sent`);
          if (absent.length > 0)
            t.uncovered(
              'metrics.update.applies',
              `not verifiable after ${what}: field absent from the read-back's answer: ${absent.join(', ')}`,
              'unverifiable',
            );
        });
      }
    },
  );

  test('metrics: a dryRun update persists nothing [spec 4.7]', checks('stated', 'metrics.update.dryRun'), async ({ t }) => {
    // Every field of 4.7 but name and owner set first (the owner is the server's, a new name may be
    // refused), so that each field the dry run sends can be held to the value that update answered.
    // The worker's metric is a user_warehouse one: the type that warehouseNative (4.8) describes.
    const sent = {
      description: 'before',
      tags: ['cc', 'before'],
      directionality: DIRECTIONALITY_DEFAULT,
      isVerified: false,
      isReadOnly: false,
      isPermanent: false,
      unitTypes: ['userID'],
      warehouseNative: { aggregation: 'count', metricSourceName: 'cc_source' },
      team: null,
      teamID: null,
    };
    expectValidRequest('updateMetric', sent);
    const { id, before } = await workerMetricAt(t, sent);
    // Every field of 4.7, each with a value other than the one set (the new name too carries prefix
    // and run id), but team and teamID: null, valid on every server (a team name is Enterprise-only), and
    // the owner, which must be one the target knows (ownerFor).
    const dry: Record<string, unknown> = {
      name: nameOf(t, NAME_LENGTH_ORDINARY, '_dryupd2'),
      description: 'changed by a dryRun',
      tags: ['cc', 'dry'],
      isVerified: true,
      isReadOnly: true,
      isPermanent: true,
      warehouseNative: fullWarehouseNative(),
      unitTypes: ['stableID'],
      team: null,
      teamID: null,
      directionality: DIRECTIONALITY_OTHER,
      owner: ownerFor(t, before),
      dryRun: true,
    };
    expectValidRequest('updateMetric', dry);
    expect(Object.keys(dry).sort(), 'the dryRun update sends every field of 4.7').toEqual(UPDATE_FIELDS);
    expectAccepted('updateMetric', await update(t, id, dry));
    // Set to the default directionality: an empty update that resets it to its default (4.7 may be read so)
    // reads back the value set either way.
    const { after, sent: readBackSent } = await readBack(t, id, sent.directionality);
    // Only the fields the dry run sent are judged: a field the spec does not list may record writes (a
    // version, a time of change) and so change with the read-back's own write.
    const fields = Object.keys(dry).filter((f) => f !== 'dryRun' && !readBackSent.includes(f));
    const carried = fields.filter((f) => Object.hasOwn(after, f));
    const answered = carried.filter((f) => Object.hasOwn(before, f));
    expect(pick(after, answered), 'the fields a dryRun update sent, read back after it: as set before it').toEqual(pick(before, answered));
    // A field the setting update did not answer cannot be held to a value; it must at least not be the
    // dry run's. Where the dry run sent the value set before (team and teamID null) that tells nothing.
    const unanswered = carried.filter((f) => !Object.hasOwn(before, f));
    const telling = unanswered.filter((f) => !isDeepStrictEqual(dry[f], (sent as Record<string, unknown>)[f]));
    const taken = telling.filter((f) => isDeepStrictEqual(after[f], dry[f]));
    expect(taken, "fields the setting update did not answer that read back holding the dryRun update's value").toEqual([]);
    const unverifiable = [...readBackSent, ...fields.filter((f) => !carried.includes(f)), ...unanswered.filter((f) => !telling.includes(f))];
    if (unverifiable.length > 0)
      t.uncovered(
        'metrics.update.dryRun',
        `not verifiable: ${unverifiable.join(', ')} (absent from the read-back's answer, sent by it, or sent by the dry run as set before)`,
        'unverifiable',
      );
  });

  test(
    'metrics: element values and component fields the spec leaves open are observed [spec 2.8, not shown]',
    checks('open', 'metric.enums.values', 'metrics.create.metricComponentMetrics.fields'),
    async ({ t }) => {
      t.observe(
        'metric.enums.values',
        'metricEvents type other',
        outcome(
          await create(t, { name: nameOf(t, NAME_LENGTH_ORDINARY, '_ev'), type: METRIC_TYPE, metricEvents: [{ name: 'e', type: 'other' }], dryRun: true }),
        ).status,
      );
      t.observe(
        'metrics.create.metricComponentMetrics.fields',
        'item {name, type}',
        outcome(
          await create(t, {
            name: nameOf(t, NAME_LENGTH_ORDINARY, '_cmp'),
            type: 'composite',
            metricComponentMetrics: [{ name: 'cc_component', type: METRIC_TYPE }],
            dryRun: true,
          }),
        ).status,
      );
    },
  );

  test(
    'metrics: bad bodies get a 4xx and create nothing [inferred]',
    checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing', 'errors.shape'),
    async ({ t }) => {
      const name = nameOf(t, NAME_LENGTH_ORDINARY, '_bad');
      const bad = [
        { name, type: METRIC_TYPE, description: 5 },
        { name, type: METRIC_TYPE, tags: 'x' },
        { name, type: METRIC_TYPE, isVerified: 'yes' },
        { name: 1234, type: METRIC_TYPE },
        { name, type: METRIC_TYPE, unitTypes: [1] },
        { name, type: METRIC_TYPE, funnelCountDistinct: outside(SPEC_ALLOWED.createMetric.funnelCountDistinct, 'sessions') },
      ];
      const first = await create(t, bad[0]);
      t.observe('errors.shape', 'schema violation', outcome(first), first);
      await t.clause('errors.badInput.4xx', async () => {
        expectClientError(first, 'description not a string');
        for (const data of bad.slice(1)) expectClientError(await create(t, data), JSON.stringify(data).slice(0, 80));
      });
      // Every create above was refused: an update of the metric they named finds none.
      await t.clause('writes.rejectedPersistNothing', async () =>
        expectClientError(await update(t, `${name}::${METRIC_TYPE}`, {}), 'update of a metric that was never created'),
      );
    },
  );

  test(
    'metrics: concurrent updates of different fields of one metric are each stored when each succeeds: the history is linearizable [inferred]',
    checks('inferred', 'writes.concurrentNoLostUpdate'),
    async ({ t }) => {
      // Each field first set to another value than its update's, directionality to the one the read-back may send.
      const initial = { description: 'before the overlapping updates', tags: ['cc'], isVerified: false, unitTypes: ['userID'] };
      const { id, before } = await t.clause('metrics.update.applies', () => workerMetricAt(t, { ...initial, directionality: DIRECTIONALITY_DEFAULT }));
      // Four at once, each of another field: a server that reads the metric and later writes all of it
      // back undoes the updates that landed in between. A 4xx is a refusal (a target may refuse a write
      // while another to the metric is in flight: 409, or 429 after its waits), not a lost write: only
      // the updates answered 2xx are in the history.
      const sent: Record<string, unknown>[] = [
        { description: `overlapping ${t.runId}` },
        { tags: ['cc', 'overlapping'] },
        { isVerified: true },
        { unitTypes: ['stableID'] },
      ];
      const burst = await Promise.all(sent.map((data) => timed(data, () => update(t, id, data))));
      // The read-back is the history's last operation: an update that changes nothing (there is no read, spec 4).
      const read = await timed({}, () => t.clause('metrics.update.applies', async () => (await readBack(t, id, DIRECTIONALITY_DEFAULT)).reply));
      const history = [...burst, read]
        .filter((o) => ok2xx(o.reply) && o.reply.body?.data && typeof o.reply.body.data === 'object')
        .map((o) => ({
          ...o,
          output: pick(
            o.reply.body.data,
            Object.keys(initial).filter((k) => Object.hasOwn(o.reply.body.data, k)),
          ),
        }));
      // The state before: what the update that set it answered (a field it left out, as sent).
      const start = Object.fromEntries(Object.entries(initial).map(([k, v]) => [k, Object.hasOwn(before, k) ? before[k] : v]));
      await judgeHistory(t, 'writes.concurrentNoLostUpdate', 'updates of the metric', history, checkLinearizable(fieldsModel(start), history));
    },
  );

  test(
    'metrics: create and update carrying x-respect-review-settings get a success or a 4xx, never a 5xx [inferred, spec 4.0]',
    checks('inferred', 'reviewSettings.header.no5xx'),
    async ({ t }) => {
      // Dry runs: what the header does is not shown (4.0), and a dry run leaves nothing behind. A refusal is legal.
      const headers = { 'x-respect-review-settings': 'true' };
      const m = await workerMetric(t);
      for (const [op, path, data] of [
        ['createMetric', PATH, { name: nameOf(t, NAME_LENGTH_ORDINARY, '_review'), type: METRIC_TYPE, dryRun: true }],
        ['updateMetric', `${PATH}/${encodeURIComponent(m.id)}`, { description: 'with the review header', dryRun: true }],
      ] as const) {
        const r = await t.call('POST', path, { data, headers });
        await t.clause('reviewSettings.header.no5xx', async () =>
          expect(r.status, `${op} with x-respect-review-settings: true answered ${r.status}`).toBeLessThan(500),
        );
      }
    },
  );

  test(
    'metrics: concurrent updates of one metric each succeed or get a 4xx, and the metric stays well formed [inferred]',
    checks('inferred', 'writes.concurrentSafe'),
    async ({ t }) => {
      const { id } = await workerMetricAt(t, { description: 'before the concurrent updates' });
      const descriptions = Array.from({ length: 8 }, (_, i) => `concurrent ${i}`);
      const replies = await Promise.all(descriptions.map((description, i) => update(t, id, { description, tags: [`t${i}`] })));
      for (const x of replies) expect(x.status < 500, `a concurrent update answered ${x.status}`).toBe(true);
      const after = expectSuccess('updateMetric', await update(t, id, { isVerified: false }));
      // The description of one update that was taken; a refused one (a 4xx: a target may refuse a write
      // while another to the metric is in flight) is not a lost write. None taken: the one set before.
      const taken = descriptions.filter((_, i) => ok2xx(replies[i]));
      expect(taken.length > 0 ? taken : ['before the concurrent updates'], 'the description after the concurrent updates').toContain(after.data.description);
    },
  );
});
