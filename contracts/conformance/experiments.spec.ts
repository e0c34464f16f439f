// Spec 2.5 and 4.4: list experiments, page by page and with every filter. Read-only. The oracles need
// no knowledge of the data: the full list is walked once per test with the largest page size the
// target accepts, within the list budget, and each filter must return exactly the full list filtered by
// its predicate (judged on the experiments that carry the filtered field: the presence of a listed field
// is only inferred), walked at a page size that spreads the expected result over two pages, so that
// paging is part of it. A list too long for the budget is never read as whole: support/list-oracles.ts
// narrows or samples, and leaves what it cannot decide not verifiable. Pages are numbered as the target
// numbers them (from 0 or 1: paging.ts).
import { checks, expect, test, type T } from '../support/suite-test.ts';
import { EXPERIMENT_STATUSES, SPEC_MESSAGES } from '../index.ts';
import { carrying, expectClientError, expectMessage, expectSuccess, ok2xx, outcome } from '../support/checks.ts';
import { pager, twoPages, type Pager, type Walk } from '../support/paging.ts';
import { clausesUnder } from '../support/clauses.ts';
import {
  drawAcrossDepth,
  expectDisjointUnion,
  expectEndHolds,
  expectNothingPastTheEnd,
  expectPagesAgreeAtDepth,
  judgeFilter,
  listSample,
  type DepthOptions,
  type FilterCase,
} from '../support/list-oracles.ts';
import { drawing } from '../support/depth.ts';
import { createdMs, createdRule, fieldRule, type FieldFilterName, isoDay } from '../../core/experiment-filters.ts';

const PATH = '/console/v1/experiments';
const get = (t: T) => (query: string) => t.call('GET', query);
const sorted = (ids: string[]) => [...ids].sort();
const OP = 'listExperiments';
const MESSAGE = SPEC_MESSAGES.listExperiments;
const DAY = 86_400_000;
const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The list's pages; a refused first page of the unfiltered list is the operation's (experiments.list.path). */
const experimentPages = (t: T) => pager(get(t), PATH, 'experiments.list.path', t.listBudget);

/**
 * The unfiltered list as the checks judge it (whole, or pages drawn across its depth: list-oracles.ts),
 * where it ends, and how a filter is judged at depth; `what` names the test's draws (the run's seed mixed
 * with it: CONSOLE_LIST_SEED replays them). `stated`: the test judges the list's pagination clause too.
 */
async function fullList(t: T, what: string, stated = false) {
  const pages = await experimentPages(t);
  const limit = await pages.largestLimit();
  const random = drawing(t.listSeed, what);
  const { list, end, read } = await listSample(pages, limit, random);
  const depth: DepthOptions = { random, ...(stated ? { pagination: 'experiments.list.pagination' } : {}) };
  return { pages, limit, list, end, read, depth };
}

/** A filter of a field sent as `query`: it judges the experiments that carry the field, by the rule the load profiles use too. */
const fieldFilter = (name: FieldFilterName, value: string, query: string, what: string): FilterCase => ({ query, what, ...fieldRule(name, value) });

/**
 * The reasons a test could not decide a clause within the list budget, reported when the test ends (a
 * clause reported unchecked while one of its checks failed would hide the failure).
 */
class Undecided {
  private reasons = new Map<string, string[]>();
  add(clause: string, reason: string | undefined): void {
    if (reason) this.reasons.set(clause, [...(this.reasons.get(clause) ?? []), reason]);
  }
  report(t: T): void {
    for (const [clause, reasons] of this.reasons)
      t.uncovered(clause, `not verifiable within the list budget (CONSOLE_LIST_BUDGET=${t.listBudget} pages a walk): ${reasons.join('; ')}`, 'unverifiable');
  }
}

/**
 * A filter whose field no experiment shows (its presence is only inferred, its element shape not shown)
 * still narrows: a value no experiment can have, made for this run, selects none.
 */
async function expectNoneFor(t: T, param: string): Promise<void> {
  const r = await t.call('GET', `${PATH}?${param}=${encodeURIComponent(`cc_nobody_${t.runId}`)}`);
  const body = expectSuccess('listExperiments', r);
  expect(
    body.data.map((e: any) => e?.id),
    `${param}=cc_nobody_${t.runId}, a value made for this run, selects no experiment (the field is not shown on any, so no other value can be judged)`,
  ).toEqual([]);
}

/** The least common of `values`: a filter on it makes the sharpest check, since an ignored filter returns everything. */
function leastCommon<V>(values: V[]): V {
  const count = (v: V) => values.filter((x) => x === v).length;
  return [...new Set(values)].sort((a, b) => count(a) - count(b))[0];
}

interface TagEncoding {
  name: string;
  one: (tag: string) => string;
  /** The forms this encoding may take for two tags, each observed for what it means. */
  two: Record<string, (a: string, b: string) => string>;
}

/** The tags filter's encodings, tried in turn (spec 4.4: "Type and encoding: not shown"). */
const TAG_ENCODINGS: TagEncoding[] = [
  {
    name: 'tags=x',
    one: (x) => `&tags=${encodeURIComponent(x)}`,
    two: {
      'tags=a,b': (a, b) => `&tags=${encodeURIComponent(a)},${encodeURIComponent(b)}`,
      'tags=a&tags=b': (a, b) => `&tags=${encodeURIComponent(a)}&tags=${encodeURIComponent(b)}`,
    },
  },
  {
    name: 'tags[]=x',
    one: (x) => `&tags%5B%5D=${encodeURIComponent(x)}`,
    two: { 'tags[]=a&tags[]=b': (a, b) => `&tags%5B%5D=${encodeURIComponent(a)}&tags%5B%5D=${encodeURIComponent(b)}` },
  },
  {
    name: 'tags=["x"]',
    one: (x) => `&tags=${encodeURIComponent(JSON.stringify([x]))}`,
    two: { 'tags=["a","b"]': (a, b) => `&tags=${encodeURIComponent(JSON.stringify([a, b]))}` },
  },
];

const COMBINABLE = ['status', 'idType', 'layerID', 'creatorID'];

/**
 * Two filters and their values for which "both" and "either" select different experiments of the full
 * list, so that filters combined with OR show; of the first pair of parameters that has such values,
 * the values with the most experiments matching both (their walk then spans pages).
 */
function combination(items: any[]): { p: string; a: string; q: string; b: string; both: number } | undefined {
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  for (const [i, p] of COMBINABLE.entries()) {
    for (const q of COMBINABLE.slice(i + 1)) {
      const carry = items.filter((e) => text(e?.[p]) && text(e?.[q]));
      let best: { p: string; a: string; q: string; b: string; both: number } | undefined;
      for (const a of new Set<string>(carry.map((e) => e[p])))
        for (const b of new Set<string>(carry.map((e) => e[q]))) {
          const both = carry.filter((e) => e[p] === a && e[q] === b).length;
          const either = carry.filter((e) => e[p] === a || e[q] === b).length;
          if (both > 0 && both < either && (!best || both > best.both)) best = { p, a, q, b, both };
        }
      if (best) return best;
    }
  }
  return undefined;
}

const dayOf = (e: any) => isoDay(createdMs(e.createdTime));

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
      'pagination.fields',
      'experiments.list.limit',
      'limits.rateAndMaxPageSize',
    ),
    async ({ t }) => {
      const reply = await t.call('GET', PATH);
      // A page without its data array or its pagination object breaks the envelope of a list (2.1) and
      // what 4.4 states of this list's answer both: checked before the schema check, which blames 2.1
      // alone. (A body that is no object at all is the schema check's: envelope.successObject.)
      if (ok2xx(reply) && isObject(reply.body)) {
        await t.clause(['envelope.data', 'experiments.list.pagination'], async () => expect(Array.isArray(reply.body?.data), 'data is an array').toBe(true));
        await t.clause(['envelope.pagination', 'experiments.list.pagination'], async () =>
          expect(isObject(reply.body?.pagination), `pagination is an object: ${JSON.stringify(reply.body?.pagination)}`).toBe(true),
        );
      }
      const body = await t.clause('experiments.list.path', async () => expectSuccess('listExperiments', reply));
      expectMessage('listExperiments', body);
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
      'experiments.list.pagination',
    ),
    async ({ t }) => {
      const pages = await experimentPages(t);
      const limit = await pages.largestLimit();
      // At most 4 pages (the reference's 200 experiments whole); of a longer list, pages drawn across its
      // whole depth too, and what their pagination says held to where the list ends.
      const head = await pages.walkChecked('listExperiments', limit, 4);
      const deep = head.complete ? undefined : await drawAcrossDepth(pages, limit, '', drawing(t.listSeed, 'types'));
      for (const p of deep?.read ?? []) expectSuccess('listExperiments', p.reply);
      if (deep) expectEndHolds(deep.end, 'experiments.list.pagination');
      const list = { ...head, items: [...head.items, ...(deep?.read ?? []).flatMap((p) => p.items)] };
      expect(list.items.length, 'the target has experiments to check').toBeGreaterThan(0);
      // Types of the fields that are present; an absent one is an inferred finding of walkChecked.
      await t.clause('experiment.field.defaultConfidenceInterval', async () => {
        for (const e of list.items)
          if (e.defaultConfidenceInterval !== undefined)
            expect(
              Number.isNaN(Number(e.defaultConfidenceInterval)) || e.defaultConfidenceInterval === '',
              `defaultConfidenceInterval of ${e.id} is numeric text`,
            ).toBe(false);
      });
      await t.clause('experiment.field.inlineTargetingRulesJSON', async () => {
        for (const e of list.items)
          if (e.inlineTargetingRulesJSON !== undefined)
            expect(() => JSON.parse(e.inlineTargetingRulesJSON), `inlineTargetingRulesJSON of ${e.id} is JSON text`).not.toThrow();
      });
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
    checks('stated', 'experiments.list.query.limit', 'experiments.list.query.page', 'experiments.list.limit'),
    async ({ t }) => {
      // Pages may be numbered from 0 or from 1 (spec 4.4: default of page not shown): the first two pages are asked by the target's own numbers.
      const pages = await experimentPages(t);
      t.observe('experiments.list.limit', 'first page number', { first: pages.first, 'page=0': pages.pageZero });
      await t.clause('experiments.list.query.limit', async () => {
        for (const limit of [1, 3, 7]) {
          const body = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=${limit}&page=${pages.number(0)}`));
          expect(body.data.length, `page of limit ${limit}`).toBeLessThanOrEqual(limit);
        }
      });
      await t.clause('experiments.list.query.page', async () => {
        const one = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=2&page=${pages.number(0)}`));
        const two = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=2&page=${pages.number(1)}`));
        // By the experiments they hold, not their order: the first page reordered is no second page.
        if (one.data.length === 2 && two.data.length > 0) {
          expect(sorted(two.data.map((e: any) => e.id)), 'the second page holds other experiments than the first').not.toEqual(
            sorted(one.data.map((e: any) => e.id)),
          );
        }
      });
    },
  );

  test(
    'experiments: pages are disjoint, at most limit, and their union is the full list [inferred]',
    checks('inferred', 'paging.disjointUnion', 'paging.limit', 'experiments.list.order'),
    async ({ t }) => {
      const { pages, list: full, end, depth } = await fullList(t, 'paging');
      if (!full.complete) {
        // Too long to walk: pages drawn across its whole depth against their neighbours and another page size.
        await t.clause('paging.limit', async () => {
          for (const p of end.probes.values()) expect(p.items.length, `a page of limit ${end.limit}`).toBeLessThanOrEqual(end.limit);
        });
        await t.clause('paging.disjointUnion', async () => {
          expectEndHolds(end, undefined, 'paging.disjointUnion');
          await expectPagesAgreeAtDepth(pages, end, depth.random, 'experiment');
        });
        t.observe('experiments.list.order', 'order', { order: orderName(full.items), sameAcrossPageSizes: 'not verifiable within the list budget' });
        return;
      }
      // A small page size (7, or more when the list needs it) at which the whole list still ends within
      // the budget, with a page for its end to spare; of a list longer than the budget, three pages.
      const limit = full.complete ? Math.max(7, Math.ceil(full.ids.length / (pages.budget - 2))) : 7;
      const small = await pages.walk(limit, '', full.complete ? pages.budget : 3);
      await t.clause('paging.limit', async () => {
        for (const size of small.pageSizes) expect(size, `a page of limit ${limit}`).toBeLessThanOrEqual(limit);
      });
      const undecided = await t.clause('paging.disjointUnion', async () => expectDisjointUnion(full, small, 'experiment', pages.budget));
      t.observe('experiments.list.order', 'order', {
        order: orderName(full.items),
        sameAcrossPageSizes: full.complete && small.complete ? small.ids.join() === full.ids.join() : 'not verifiable within the list budget',
      });
      if (undecided) t.uncovered('paging.disjointUnion', `not verifiable within the list budget: ${undecided}`, 'unverifiable');
    },
  );

  test(
    'experiments: a page past the last is empty, and a page asked twice is the same [inferred]',
    checks('inferred', 'paging.beyondLast', 'paging.stable'),
    async ({ t }) => {
      const { pages, list, end } = await fullList(t, 'beyond');
      // Past a list walked whole (at limit 10), or past the end found by page number of one that was not
      // (at the size its pages had: a target may cap limit).
      const past = list.complete
        ? await t.call('GET', `${PATH}?limit=10&page=${pages.number(Math.ceil(list.ids.length / 10) + 1)}`)
        : await t.call('GET', `${PATH}?limit=${end.limit}&page=${pages.number(end.last + 2)}`);
      await t.clause('paging.beyondLast', async () => {
        if (end.past?.kind === 'repeat') expect(end.past.ids, `GET ${end.past.reply.exchange.path}, past the last page, repeats the last page`).toEqual([]);
        if (ok2xx(past)) expect(past.body?.data ?? [], 'a page past the last holds no items').toEqual([]);
        else expectClientError(past, 'a page past the last');
      });
      await t.clause('paging.stable', async () => {
        const a = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=5&page=${pages.number(1)}`));
        const b = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=5&page=${pages.number(1)}`));
        expect(
          b.data.map((e: any) => e.id),
          'the same page twice',
        ).toEqual(a.data.map((e: any) => e.id));
      });
    },
  );

  test(
    'experiments: the status filter returns exactly the experiments of that status [spec 4.4]',
    checks('stated', 'experiments.list.filters', 'experiments.list.status.enum', 'experiments.list.unfiltered.statuses', 'experiments.list.pagination'),
    async ({ t }) => {
      const { pages, limit, list, end, read, depth } = await fullList(t, 'status', true);
      const carry = carrying(OP, list.items, 'status', 'the status filter');
      if (carry.length === 0) return t.uncovered('experiments.list.filters', 'not verifiable: field absent: no experiment carries status', 'unverifiable');
      const onlyFiltered: string[] = [];
      const undecided = new Undecided();
      for (const status of EXPERIMENT_STATUSES) {
        const expected = carry.filter((e) => e.status === status).length;
        // A status of 4.4 refused is the status parameter's; a result other than the filtered list, the filters'.
        if (expected > 0) {
          const c = fieldFilter('status', status, `&status=${status}`, `status=${status}`);
          const first = <X>(read: () => Promise<X>) => t.clause('experiments.list.status.enum', read);
          const judged = await t.clause('experiments.list.filters', () => judgeFilter(pages, list, c, { limit, depth, first }));
          undecided.add('experiments.list.filters', judged.undecided);
          continue;
        }
        // The spec never says the list without a status filter holds every status (4.4: all filters
        // optional, no default shown): a status it leaves out, archived say, is judged on its own result.
        const alone = await t.clause('experiments.list.status.enum', () => pages.walk(limit, `&status=${status}`));
        if (alone.ids.length === 0) continue;
        onlyFiltered.push(status);
        const rule = fieldRule('status', status);
        const wrong = (items: any[]) => items.filter((e) => rule.judged(e) && !rule.matches(e)).map((e) => e.id);
        await t.clause('experiments.list.filters', async () => {
          const other = wrong(alone.items);
          expect(other, `status=${status}: experiments of another status`).toEqual([]);
          expect(new Set(alone.ids).size, `status=${status}: no experiment on two pages`).toBe(alone.ids.length);
          if (!alone.complete) {
            // Longer than the budget: pages drawn across its whole depth hold only that status.
            const { end, read } = await drawAcrossDepth(pages, limit, `&status=${status}`, depth.random);
            for (const p of read)
              expect(
                wrong(p.items),
                `status=${status}: experiments of another status on page ${p.index + 1} of ${end.last + 1} (GET ${p.reply.exchange.path})`,
              ).toEqual([]);
            expectEndHolds(end, 'experiments.list.pagination');
          } else if (alone.ids.length > 1) {
            const paged = await pages.walk(twoPages(alone.ids.length), `&status=${status}`);
            expect(sorted(paged.ids), `status=${status}: its pages at limit ${twoPages(alone.ids.length)} hold the same experiments`).toEqual(
              sorted(alone.ids),
            );
          }
        });
      }
      // A list that ends early shows as a date filter answering what belongs past its last page.
      if (!list.complete) await t.clause('experiments.list.filters', () => expectNothingPastTheEnd(pages, end, read));
      // A status absent from part of a list may be further on.
      t.observe(
        'experiments.list.unfiltered.statuses',
        'statuses only their filter lists',
        list.complete ? onlyFiltered : 'not verifiable within the list budget',
      );
      undecided.report(t);
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
      'experiments.list.pagination',
    ),
    async ({ t }) => {
      const { pages, limit, list, depth } = await fullList(t, 'fields', true);
      const undecided = new Undecided();
      for (const param of ['idType', 'layerID', 'creatorID', 'creatorName'] as const) {
        const carry = carrying(OP, list.items, param, `the ${param} filter`);
        if (carry.length === 0) {
          // No experiment shows the field (its presence is only inferred): the filter is still held to narrowing.
          await t.clause(`experiments.list.filter.${param}`, () => expectNoneFor(t, param));
          continue;
        }
        const values = carry.map((e) => e[param]).filter((v): v is string => typeof v === 'string' && v !== '');
        expect(values.length, `the target has experiments with a ${param}`).toBeGreaterThan(0);
        const value = leastCommon(values);
        const c = fieldFilter(param, value, `&${param}=${encodeURIComponent(value)}`, `${param}=${value}`);
        const judged = await t.clause(`experiments.list.filter.${param}`, () => judgeFilter(pages, list, c, { limit, depth }));
        undecided.add(`experiments.list.filter.${param}`, judged.undecided);
      }
      // targetApps' element shape is not shown (spec 2.2): checked when its elements are app ids (strings).
      const withApps = carrying(OP, list.items, 'targetApps', 'the targetAppID filter');
      const app = withApps.flatMap((e) => (Array.isArray(e.targetApps) ? e.targetApps : [])).find((a) => typeof a === 'string');
      if (app) {
        const c = fieldFilter('targetAppID', app, `&targetAppID=${encodeURIComponent(app)}`, `targetAppID=${app}`);
        const judged = await t.clause('experiments.list.filter.targetAppID', () => judgeFilter(pages, list, c, { limit, depth }));
        undecided.add('experiments.list.filter.targetAppID', judged.undecided);
      } else await t.clause('experiments.list.filter.targetAppID', () => expectNoneFor(t, 'targetAppID'));
      undecided.report(t);
    },
  );

  test(
    'experiments: the teamID filter never adds experiments [spec 4.4: Enterprise only]',
    checks('stated', 'experiments.list.filter.teamID'),
    async ({ t }) => {
      // Experiments carry no team field (2.5) and teamID is "Enterprise only": a 4xx is legal, a
      // success may return only experiments of the full list.
      const { list } = await fullList(t, 'teamID');
      const r = await t.call('GET', `${PATH}?teamID=${encodeURIComponent(`cc_team_${t.runId}`)}`);
      expect(r.status < 500, `teamID answered ${r.status}`).toBe(true);
      if (!ok2xx(r)) return;
      const data: any[] = expectSuccess('listExperiments', r).data;
      if (data.length === 0) return;
      // Ignored (not Enterprise): the answer is the unfiltered list's own first page, at any size of list.
      const plain = await t.call('GET', PATH);
      if (ok2xx(plain) && Array.isArray(plain.body?.data) && sorted(plain.body.data.map((e: any) => e.id)).join() === sorted(data.map((e) => e.id)).join())
        return;
      // Of a list walked in part, an experiment not in the part may be further on: judged only on a whole list.
      if (!list.complete && data.some((e) => !list.ids.includes(e.id)))
        return t.uncovered(
          'experiments.list.filter.teamID',
          `not verifiable within the list budget: the full list has more than ${list.pages} pages`,
          'unverifiable',
        );
      for (const e of data) expect(list.ids, `teamID result ${e.id} is an experiment of the full list`).toContain(e.id);
    },
  );

  test('experiments: every page answers the spec message, empty ones too [spec 2.1, 4.4]', checks('stated', 'experiments.list.message'), async ({ t }) => {
    // The spec shows one message for the list (2.1, 4.4), whether or not the page holds items: the
    // walk ends on a page past the last, and a filter that matches nothing gives another empty page.
    const { list } = await fullList(t, 'message');
    const replies = [...list.replies];
    const none = await t.call('GET', `${PATH}?creatorID=${encodeURIComponent(`cc_nobody_${t.runId}`)}`);
    if (ok2xx(none)) replies.push(none);
    // Either may be refused instead (paging.beyondLast, spec 7): then only pages with items are checked here.
    if (!replies.some((r) => Array.isArray(r.body?.data) && r.body.data.length === 0))
      t.uncovered('experiments.list.message', 'no empty page: the target refuses a page past the last and a filter that matches nothing', 'unverifiable');
    for (const r of replies) expect(r.body?.message, `message text (spec 2.1) of GET ${r.exchange.path}`).toBe(MESSAGE);
  });

  test(
    'experiments: the tags filter returns experiments carrying the tag [inferred: encoding not shown]',
    checks('inferred', 'filters.oracle', 'experiments.list.tags.encoding'),
    async ({ t }) => {
      const { pages, limit, list, depth } = await fullList(t, 'tags');
      const carry = carrying(OP, list.items, 'tags', 'the tags filter');
      const tags: string[] = carry.flatMap((e) => (Array.isArray(e.tags) ? e.tags : []));
      if (tags.length === 0) return t.uncovered('filters.oracle', 'no tagged experiment on the target', 'unverifiable');
      const tag = leastCommon(tags);
      const rule = fieldRule('tags', tag);
      // An encoding filters when its first page holds only experiments with the tag and is not the full
      // list's first page, which is what a server that ignores the parameter answers.
      const firstPage = (list.replies[0]?.body?.data ?? []).map((e: any) => e.id).join();
      let chosen: TagEncoding | undefined;
      for (const encoding of TAG_ENCODINGS) {
        const r = await t.call('GET', `${PATH}?limit=${limit}&page=${pages.number(0)}${encoding.one(tag)}`);
        const data: any[] = ok2xx(r) && Array.isArray(r.body?.data) ? r.body.data : [];
        const judged = data.filter(rule.judged);
        if (judged.length > 0 && judged.every(rule.matches) && data.map((e) => e.id).join() !== firstPage) {
          chosen = encoding;
          break;
        }
      }
      t.observe('experiments.list.tags.encoding', 'one tag', chosen?.name ?? 'none of tags=x, tags[]=x, tags=["x"] filters');
      // When none filters, the plain encoding is judged, and fails as a filter that is ignored.
      const encoding = chosen ?? TAG_ENCODINGS[0];
      const c = fieldFilter('tags', tag, encoding.one(tag), encoding.name.replace('x', tag));
      const judged = await judgeFilter(pages, list, c, { limit, depth });
      const undecided = new Undecided();
      undecided.add('filters.oracle', judged.undecided);
      undecided.report(t);
      const two = [...new Set(tags)].sort().slice(0, 2);
      // What two tags mean is told against the whole list: not within the budget of a longer one.
      if (two.length === 2 && !list.complete) t.observe('experiments.list.tags.encoding', 'two tags', 'not verifiable within the list budget');
      else if (two.length === 2) {
        const judged = new Set(carry.map((e) => e.id));
        const matches = (ids: string[], pred: (e: any) => boolean) =>
          sorted(ids.filter((id) => judged.has(id))).join() === sorted(carry.filter(pred).map((e) => e.id)).join();
        const meaning = (ids: string[]) =>
          matches(ids, (e) => two.every((x) => e.tags.includes(x)))
            ? 'every tag'
            : matches(ids, (e) => two.some((x) => e.tags.includes(x)))
              ? 'any tag'
              : 'other';
        const seen: Record<string, string> = {};
        for (const [form, query] of Object.entries(encoding.two)) seen[form] = meaning((await pages.walk(limit, query(two[0], two[1]))).ids);
        t.observe('experiments.list.tags.encoding', 'two tags', seen);
      }
    },
  );

  test(
    'experiments: two filters together return exactly the experiments matching both [inferred: spec 4.4]',
    checks('inferred', 'filters.oracle'),
    async ({ t }) => {
      const { pages, limit, list, depth } = await fullList(t, 'two filters');
      const pair = combination(list.items);
      if (!pair) return t.uncovered('filters.oracle', 'no two filters whose AND and OR differ on the target', 'unverifiable');
      const { p, a, q, b } = pair;
      const c: FilterCase = {
        query: `&${p}=${encodeURIComponent(a)}&${q}=${encodeURIComponent(b)}`,
        what: `${p}=${a}&${q}=${b}`,
        judged: (e) => e !== null && typeof e === 'object' && Object.hasOwn(e, p) && Object.hasOwn(e, q),
        matches: (e) => e[p] === a && e[q] === b,
      };
      const undecided = new Undecided();
      undecided.add('filters.oracle', (await judgeFilter(pages, list, c, { limit, depth })).undecided);
      undecided.report(t);
    },
  );

  test(
    'experiments: created dates filter by creation day [inferred: inclusiveness and time zone not shown]',
    checks('inferred', 'filters.oracle', 'experiments.list.createdDate.inclusive'),
    async ({ t }) => {
      const { pages, limit, list, depth } = await fullList(t, 'created dates');
      const carry = carrying(OP, list.items, 'createdTime', 'the created date filters').filter((e) => typeof e.createdTime === 'number');
      const days = [...new Set(carry.map(dayOf))].sort();
      if (days.length < 3) return t.uncovered('filters.oracle', 'experiments on fewer than three creation days', 'unverifiable');
      // Of the middle days, the one with the most experiments within 8 hours of its UTC bounds: there a
      // day that runs in another time zone shows (in the observation), and the margin below is needed.
      const middle = days.slice(Math.floor(days.length / 3), Math.ceil((2 * days.length) / 3));
      const nearBounds = (d: string) => {
        const s = Date.parse(`${d}T00:00:00Z`);
        return carry.filter((e) => Math.abs(createdMs(e.createdTime) - s) < DAY / 3 || Math.abs(createdMs(e.createdTime) - s - DAY) < DAY / 3).length;
      };
      const day = middle.reduce((best, d) => (nearBounds(d) > nearBounds(best) ? d : best), middle[0]);
      // Neither the bounds' inclusiveness nor their time zone is shown (4.4): only experiments created
      // more than a day outside the day's UTC span are judged (core/experiment-filters.ts createdRule).
      const startRule = createdRule({ start: day });
      const endRule = createdRule({ end: day });
      const judged = carry.filter(startRule.judged);
      const how = { limit, depth };
      const a = await judgeFilter(pages, list, { query: `&createdStartDate=${day}`, what: `createdStartDate=${day}`, ...startRule, dates: true }, how);
      const b = await judgeFilter(pages, list, { query: `&createdEndDate=${day}`, what: `createdEndDate=${day}`, ...endRule, dates: true }, how);
      if (a.undecided || b.undecided) {
        const undecided = new Undecided();
        undecided.add('filters.oracle', a.undecided);
        undecided.add('filters.oracle', b.undecided);
        undecided.report(t);
        return t.observe('experiments.list.createdDate.inclusive', 'bounds', 'not verifiable within the list budget');
      }
      const after = a.walk;
      const before = b.walk;
      const onDay = (items: any[]) => items.some((e) => typeof e.createdTime === 'number' && dayOf(e) === day);
      const start = onDay(after.items) ? 'inclusive' : 'exclusive';
      const end = onDay(before.items) ? 'inclusive' : 'exclusive';
      t.observe('experiments.list.createdDate.inclusive', 'bounds', { start, end });
      // UTC days when every experiment near the day is on the side its UTC day puts it.
      const farIds = new Set(judged.map((e) => e.id));
      const inAfter = new Set(after.ids);
      const inBefore = new Set(before.ids);
      const utc = carry
        .filter((e) => !farIds.has(e.id))
        .every(
          (e) =>
            inAfter.has(e.id) === (start === 'inclusive' ? dayOf(e) >= day : dayOf(e) > day) &&
            inBefore.has(e.id) === (end === 'inclusive' ? dayOf(e) <= day : dayOf(e) < day),
        );
      t.observe('experiments.list.createdDate.inclusive', 'days', utc ? 'UTC days' : 'not UTC days');
    },
  );

  test(
    'experiments: createdStartDate and createdEndDate take YYYY-MM-DD dates [spec 4.4]',
    checks('stated', 'experiments.list.createdDate.format'),
    async ({ t }) => {
      // Whether a bound is inclusive is not shown, but no experiment is created after 2100 or before 1971.
      const { list } = await fullList(t, 'dates format');
      expect(list.ids.length, 'the target has experiments').toBeGreaterThan(0);
      const future = expectSuccess('listExperiments', await t.call('GET', `${PATH}?createdStartDate=2100-01-01`));
      expect(future.data, 'createdStartDate=2100-01-01 leaves no experiment').toEqual([]);
      const past = expectSuccess('listExperiments', await t.call('GET', `${PATH}?createdEndDate=1971-01-01`));
      expect(past.data, 'createdEndDate=1971-01-01 leaves no experiment').toEqual([]);
      const all = expectSuccess('listExperiments', await t.call('GET', `${PATH}?createdStartDate=1971-01-01&createdEndDate=2100-01-01&limit=1`));
      expect(all.data.length, 'a range around every experiment keeps them').toBeGreaterThan(0);
      // More than one item on a page of limit 1 is the limit's failure, not the dates'.
      await t.clause('experiments.list.query.limit', async () => expect(all.data.length, 'a page of limit 1').toBeLessThanOrEqual(1));
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
