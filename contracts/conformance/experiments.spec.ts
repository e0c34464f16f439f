// Spec 2.5 and 4.4: list experiments, page by page and with every filter. Read-only. The oracles need
// no knowledge of the data: the full list is walked once per test with the largest page size the
// target accepts, and each filter must return exactly the full list filtered by its predicate (judged on
// the experiments that carry the filtered field: the presence of a listed field is only inferred).
import { checks, expect, test, type T } from '../support/target.ts';
import { EXPERIMENT_STATUSES } from '../index.ts';
import { carrying, expectClientError, expectMessage, expectSuccess, ok2xx, outcome } from '../support/checks.ts';
import { largestLimit, walk, walkChecked } from '../support/paging.ts';
import { clausesUnder } from '../support/clauses.ts';

const PATH = '/console/v1/experiments';
const get = (t: T) => (query: string) => t.call('GET', query);
const sorted = (ids: string[]) => [...ids].sort();
const OP = 'listExperiments';

/**
 * A filter's result judged on the experiments that carry the filtered field (the presence of a listed
 * field is only inferred, and an experiment without it cannot be judged): those of them in the result
 * are exactly those that match, and the result holds nothing the full list does not.
 */
function expectFiltered(got: string[], list: { ids: string[] }, carry: any[], matches: (e: any) => boolean, what: string): void {
  const all = new Set(list.ids);
  const judged = new Set(carry.map((e) => e.id));
  expect(
    got.filter((id) => !all.has(id)),
    `${what}: experiments the full list does not hold`,
  ).toEqual([]);
  expect(sorted(got.filter((id) => judged.has(id))), what).toEqual(sorted(carry.filter(matches).map((e) => e.id)));
}

async function fullList(t: T) {
  const limit = await largestLimit(get(t), PATH);
  return { limit, list: await walk(get(t), PATH, limit) };
}

/** Timestamps' unit is not shown (spec 2.2): values above 1e11 are read as milliseconds, others as seconds. */
const ms = (x: number) => (x > 1e11 ? x : x * 1000);
const dayOf = (e: any) => new Date(ms(e.createdTime)).toISOString().slice(0, 10);

/** A name for the order the list came in, for the observation of an order the spec leaves open. */
function orderName(items: any[]): string {
  const pairs = items.slice(1).map((x, i) => [items[i], x]);
  if (pairs.every(([a, b]) => a.createdTime > b.createdTime || (a.createdTime === b.createdTime && a.id < b.id))) return 'createdTime descending, then id';
  if (pairs.every(([a, b]) => a.createdTime < b.createdTime || (a.createdTime === b.createdTime && a.id < b.id))) return 'createdTime ascending, then id';
  if (pairs.every(([a, b]) => a.id < b.id)) return 'id ascending';
  if (pairs.every(([a, b]) => a.id > b.id)) return 'id descending';
  return 'other';
}

test.describe('experiments', () => {
  test(
    'experiments: list answers the envelope, the spec message and pagination [spec 2.1, 4.4]',
    checks(
      'stated',
      'experiments.list.message',
      'experiments.list.pagination',
      'experiments.list.path',
      'envelope.message',
      'envelope.data',
      'envelope.pagination',
      'envelope.successObject',
      'envelope.allEndpoints',
      'pagination.fields',
      'experiments.list.limit',
      'limits.rateAndMaxPageSize',
    ),
    async ({ t }) => {
      const reply = await t.call('GET', PATH);
      const body = expectSuccess('listExperiments', reply);
      expectMessage(body, 'Experiments listed successfully.');
      expect(Array.isArray(body.data), 'data is an array').toBe(true);
      expect(typeof body.pagination === 'object' && body.pagination !== null && !Array.isArray(body.pagination), 'pagination is an object').toBe(true);
      t.observe('pagination.fields', 'listExperiments', Object.keys(body.pagination).sort(), reply);
      t.observe('experiments.list.limit', 'items on a page with no limit', body.data.length, reply);
      // A limit above the server's maximum may be rejected or clamped (spec 4.4, 8: not shown); both are recorded.
      const big = await t.call('GET', `${PATH}?limit=1000&page=1`);
      const seen = ok2xx(big) ? { status: big.status, items: Array.isArray(big.body?.data) ? big.body.data.length : null } : { status: big.status };
      t.observe('experiments.list.limit', 'limit=1000', seen, big);
      t.observe('limits.rateAndMaxPageSize', 'limit=1000', seen, big);
    },
  );

  test(
    'experiments: every experiment of every page has the spec types [spec 2.5]',
    checks(
      'stated',
      'fields.caseSensitive',
      'timestamps.integer',
      ...clausesUnder('experiment.field.'),
      'experiment.timestamps.unit',
      'experiment.secondaryMetrics.elementShape',
    ),
    async ({ t }) => {
      const limit = await largestLimit(get(t), PATH);
      const list = await walkChecked(get(t), 'listExperiments', PATH, limit);
      expect(list.items.length, 'the target has experiments to check').toBeGreaterThan(0);
      // Types of the fields that are present; an absent one is an inferred finding of walkChecked.
      for (const e of list.items) {
        if (e.defaultConfidenceInterval !== undefined)
          expect(
            Number.isNaN(Number(e.defaultConfidenceInterval)) || e.defaultConfidenceInterval === '',
            `defaultConfidenceInterval of ${e.id} is numeric text`,
          ).toBe(false);
        if (e.inlineTargetingRulesJSON !== undefined)
          expect(() => JSON.parse(e.inlineTargetingRulesJSON), `inlineTargetingRulesJSON of ${e.id} is JSON text`).not.toThrow();
      }
      const times = list.items.filter((e) => typeof e.createdTime === 'number');
      t.observe(
        'experiment.timestamps.unit',
        'createdTime',
        times.every((e) => e.createdTime > 1e11) ? 'milliseconds' : times.every((e) => e.createdTime < 1e11) ? 'seconds' : 'mixed',
      );
      t.observe(
        'experiment.secondaryMetrics.elementShape',
        'elements',
        [...new Set(list.items.flatMap((e) => (e.secondaryMetrics ?? []).map((x: unknown) => (x === null ? 'null' : typeof x))))].sort(),
      );
    },
  );

  test(
    'experiments: a page holds at most limit items, and page numbers select pages [spec 4.4]',
    checks('stated', 'experiments.list.query.limit', 'experiments.list.query.page'),
    async ({ t }) => {
      for (const limit of [1, 3, 7]) {
        const body = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=${limit}&page=1`));
        expect(body.data.length, `page of limit ${limit}`).toBeLessThanOrEqual(limit);
      }
      const one = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=2&page=1`));
      const two = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=2&page=2`));
      if (one.data.length === 2 && two.data.length > 0) {
        expect(
          two.data.map((e: any) => e.id),
          'page 2 holds other experiments than page 1',
        ).not.toEqual(one.data.map((e: any) => e.id));
      }
    },
  );

  test(
    'experiments: pages are disjoint, at most limit, and their union is the full list [inferred]',
    checks('inferred', 'paging.disjointUnion', 'paging.limit', 'experiments.list.order'),
    async ({ t }) => {
      const { list: full } = await fullList(t);
      expect(full.complete, 'the full list ended within the page bound').toBe(true);
      const small = await walk(get(t), PATH, 7);
      for (const size of small.pageSizes) expect(size, 'a page of limit 7').toBeLessThanOrEqual(7);
      expect(new Set(small.ids).size, 'no experiment appears on two pages').toBe(small.ids.length);
      expect(sorted(small.ids), 'the pages together hold exactly the full list').toEqual(sorted(full.ids));
      t.observe('experiments.list.order', 'order', { order: orderName(full.items), sameAcrossPageSizes: small.ids.join() === full.ids.join() });
    },
  );

  test(
    'experiments: a page past the last is empty, and a page asked twice is the same [inferred]',
    checks('inferred', 'paging.beyondLast', 'paging.stable'),
    async ({ t }) => {
      const { list } = await fullList(t);
      const past = await t.call('GET', `${PATH}?limit=10&page=${Math.ceil(list.ids.length / 10) + 2}`);
      if (ok2xx(past)) expect(past.body?.data ?? [], 'a page past the last holds no items').toEqual([]);
      else expectClientError(past, 'a page past the last');
      const a = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=5&page=2`));
      const b = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=5&page=2`));
      expect(
        b.data.map((e: any) => e.id),
        'the same page twice',
      ).toEqual(a.data.map((e: any) => e.id));
    },
  );

  test(
    'experiments: the status filter returns exactly the experiments of that status [spec 4.4]',
    checks('stated', 'experiments.list.filters', 'experiments.list.status.enum'),
    async ({ t }) => {
      const { limit, list } = await fullList(t);
      const carry = carrying(OP, list.items, 'status', 'the status filter');
      if (carry.length === 0) return t.uncovered('experiments.list.filters', 'not verifiable: field absent: no experiment carries status');
      for (const status of EXPERIMENT_STATUSES) {
        const filtered = await walk(get(t), PATH, limit, `&status=${status}`);
        expectFiltered(filtered.ids, list, carry, (e) => e.status === status, `status=${status}`);
      }
    },
  );

  test(
    'experiments: idType, layerID, creatorID, creatorName and targetAppID filters equal the filtered full list [spec 4.4]',
    checks(
      'stated',
      'experiments.list.filters',
      'experiments.list.filter.idType',
      'experiments.list.filter.layerID',
      'experiments.list.filter.creatorID',
      'experiments.list.filter.creatorName',
      'experiments.list.filter.targetAppID',
    ),
    async ({ t }) => {
      const { limit, list } = await fullList(t);
      for (const param of ['idType', 'layerID', 'creatorID', 'creatorName']) {
        const carry = carrying(OP, list.items, param, `the ${param} filter`);
        if (carry.length === 0) {
          t.uncovered(`experiments.list.filter.${param}`, `not verifiable: field absent: no experiment carries ${param}`);
          continue;
        }
        // The least common value makes the sharpest check: a filter that is ignored returns everything.
        const values = carry.map((e) => e[param]).filter((v): v is string => typeof v === 'string' && v !== '');
        expect(values.length, `the target has experiments with a ${param}`).toBeGreaterThan(0);
        const value = [...new Set(values)].sort((a, b) => values.filter((v) => v === a).length - values.filter((v) => v === b).length)[0];
        const filtered = await walk(get(t), PATH, limit, `&${param}=${encodeURIComponent(value)}`);
        expectFiltered(filtered.ids, list, carry, (e) => e[param] === value, `${param}=${value}`);
      }
      // targetApps' element shape is not shown (spec 2.2): checked when its elements are app ids (strings).
      const withApps = carrying(OP, list.items, 'targetApps', 'the targetAppID filter');
      const app = withApps.flatMap((e) => (Array.isArray(e.targetApps) ? e.targetApps : [])).find((a) => typeof a === 'string');
      if (app) {
        const filtered = await walk(get(t), PATH, limit, `&targetAppID=${encodeURIComponent(app)}`);
        expectFiltered(filtered.ids, list, withApps, (e) => e.targetApps.includes(app), `targetAppID=${app}`);
      } else t.uncovered('experiments.list.filter.targetAppID', 'no experiment on the target has a string in targetApps');
    },
  );

  test(
    'experiments: the teamID filter never adds experiments [spec 4.4: Enterprise only]',
    checks('stated', 'experiments.list.filter.teamID'),
    async ({ t }) => {
      // Experiments carry no team field (2.5) and teamID is "Enterprise only": a 4xx is legal, a
      // success may return only experiments of the full list.
      const { list } = await fullList(t);
      const r = await t.call('GET', `${PATH}?teamID=${encodeURIComponent(`cc_team_${t.runId}`)}`);
      expect(r.status < 500, `teamID answered ${r.status}`).toBe(true);
      if (ok2xx(r))
        for (const e of expectSuccess('listExperiments', r).data) expect(list.ids, `teamID result ${e.id} is an experiment of the full list`).toContain(e.id);
    },
  );

  test(
    'experiments: the tags filter returns experiments carrying the tag [inferred: encoding not shown]',
    checks('inferred', 'filters.oracle', 'experiments.list.tags.encoding'),
    async ({ t }) => {
      const { limit, list } = await fullList(t);
      const carry = carrying(OP, list.items, 'tags', 'the tags filter');
      const tags: string[] = carry.flatMap((e) => e.tags);
      if (tags.length === 0) return t.uncovered('filters.oracle', 'no tagged experiment on the target');
      const tag = [...new Set(tags)].sort((a, b) => tags.filter((x) => x === a).length - tags.filter((x) => x === b).length)[0];
      const filtered = await walk(get(t), PATH, limit, `&tags=${encodeURIComponent(tag)}`);
      expectFiltered(filtered.ids, list, carry, (e) => e.tags.includes(tag), `tags=${tag}`);
      const two = [...new Set(tags)].sort().slice(0, 2);
      if (two.length === 2) {
        const judged = new Set(carry.map((e) => e.id));
        const matches = (ids: string[], pred: (e: any) => boolean) =>
          sorted(ids.filter((id) => judged.has(id))).join() === sorted(carry.filter(pred).map((e) => e.id)).join();
        const comma = await walk(get(t), PATH, limit, `&tags=${two.map(encodeURIComponent).join(',')}`);
        const repeated = await walk(get(t), PATH, limit, two.map((x) => `&tags=${encodeURIComponent(x)}`).join(''));
        const meaning = (ids: string[]) =>
          matches(ids, (e) => two.every((x) => e.tags.includes(x)))
            ? 'every tag'
            : matches(ids, (e) => two.some((x) => e.tags.includes(x)))
              ? 'any tag'
              : 'other';
        t.observe('experiments.list.tags.encoding', 'two tags', { 'tags=a,b': meaning(comma.ids), 'tags=a&tags=b': meaning(repeated.ids) });
      }
    },
  );

  test(
    'experiments: created dates filter by creation day [inferred: inclusiveness not shown]',
    checks('inferred', 'filters.oracle', 'experiments.list.createdDate.inclusive'),
    async ({ t }) => {
      const { limit, list } = await fullList(t);
      const carry = carrying(OP, list.items, 'createdTime', 'the created date filters').filter((e) => typeof e.createdTime === 'number');
      const days = [...new Set(carry.map(dayOf))].sort();
      if (days.length < 3) return t.uncovered('filters.oracle', 'experiments on fewer than three creation days');
      const day = days[Math.floor(days.length / 2)];
      const after = await walk(get(t), PATH, limit, `&createdStartDate=${day}`);
      const before = await walk(get(t), PATH, limit, `&createdEndDate=${day}`);
      // Either bound may be inclusive or exclusive: the experiments of the bound's own day are not asserted.
      const offDay = carry.filter((e) => dayOf(e) !== day);
      expectFiltered(after.ids, list, offDay, (e) => dayOf(e) > day, `createdStartDate=${day}`);
      expectFiltered(before.ids, list, offDay, (e) => dayOf(e) < day, `createdEndDate=${day}`);
      const onDay = (items: any[]) => items.some((e) => typeof e.createdTime === 'number' && dayOf(e) === day);
      t.observe('experiments.list.createdDate.inclusive', 'bounds', {
        start: onDay(after.items) ? 'inclusive' : 'exclusive',
        end: onDay(before.items) ? 'inclusive' : 'exclusive',
      });
    },
  );

  test(
    'experiments: createdStartDate and createdEndDate take YYYY-MM-DD dates [spec 4.4]',
    checks('stated', 'experiments.list.createdDate.format'),
    async ({ t }) => {
      // Whether a bound is inclusive is not shown, but no experiment is created after 2100 or before 1971.
      const { list } = await fullList(t);
      expect(list.ids.length, 'the target has experiments').toBeGreaterThan(0);
      const future = expectSuccess('listExperiments', await t.call('GET', `${PATH}?createdStartDate=2100-01-01`));
      expect(future.data, 'createdStartDate=2100-01-01 leaves no experiment').toEqual([]);
      const past = expectSuccess('listExperiments', await t.call('GET', `${PATH}?createdEndDate=1971-01-01`));
      expect(past.data, 'createdEndDate=1971-01-01 leaves no experiment').toEqual([]);
      const all = expectSuccess('listExperiments', await t.call('GET', `${PATH}?createdStartDate=1971-01-01&createdEndDate=2100-01-01&limit=1`));
      expect(all.data.length, 'a range around every experiment keeps them').toBe(1);
    },
  );

  test(
    'experiments: an unknown status, a malformed date or limit gets a 4xx [inferred]',
    checks('inferred', 'errors.badInput.4xx', 'errors.shape'),
    async ({ t }) => {
      const r = await t.call('GET', `${PATH}?status=running`);
      t.observe('errors.shape', 'bad query parameter', outcome(r), r);
      expectClientError(r, 'status=running');
      expectClientError(await t.call('GET', `${PATH}?createdStartDate=31-12-2026`), 'createdStartDate=31-12-2026');
      expectClientError(await t.call('GET', `${PATH}?limit=abc`), 'limit=abc');
    },
  );
});
