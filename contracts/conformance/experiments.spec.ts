// Spec 2.5 and 4.4: list experiments, page by page and with every filter. Read-only.
import { checks, expect, observe, test, type T } from '../support/target.ts';
import { EXPERIMENT_STATUSES, expectClientError, expectMessage, expectSuccess } from '../support/checks.ts';
import { largestLimit, walk } from '../support/paging.ts';
import { clausesUnder } from '../support/clauses.ts';

const PATH = '/console/v1/experiments';
const get = (t: T) => (query: string) => t.call('GET', query);

async function fullList(t: T) {
  const limit = await largestLimit(get(t), PATH);
  return { limit, list: await walk(get(t), PATH, limit) };
}

test.describe('experiments', () => {
  test('experiments: list answers the envelope, the spec message and pagination [spec 2.1, 4.4]', checks('stated', 'experiments.list.message', 'experiments.list.pagination', 'envelope.message', 'envelope.data', 'envelope.pagination'), async ({ t }, info) => {
    const body = expectSuccess('listExperiments', await t.call('GET', PATH));
    expectMessage(body, 'Experiments listed successfully.');
    expect(Array.isArray(body.data), 'data is an array').toBe(true);
    expect(typeof body.pagination === 'object' && body.pagination !== null, 'pagination is an object').toBe(true);
    observe(info, 'pagination.fields', Object.keys(body.pagination).sort());
    observe(info, 'experiments.list.limit', { defaultPageSize: body.data.length });
  });

  test('experiments: every experiment of every page has the spec types [spec 2.5]', checks('stated', ...clausesUnder('experiment.field.')), async ({ t }) => {
    const limit = await largestLimit(get(t), PATH);
    const list = await walk(get(t), PATH, limit);
    // Every page, not only the first, is held to the schema.
    for (let page = 1; page <= list.pages; page++) expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=${limit}&page=${page}`));
    expect(list.items.length, 'the target has experiments to check').toBeGreaterThan(0);
    for (const e of list.items) {
      expect(Number.isNaN(Number(e.defaultConfidenceInterval)), `defaultConfidenceInterval of ${e.id} is numeric text`).toBe(false);
      expect(() => JSON.parse(e.inlineTargetingRulesJSON), `inlineTargetingRulesJSON of ${e.id} is JSON text`).not.toThrow();
    }
  });

  test('experiments: a page holds at most limit items [inferred]', checks('inferred', 'paging.limit'), async ({ t }) => {
    for (const limit of [1, 3, 7]) {
      const body = expectSuccess('listExperiments', await t.call('GET', `${PATH}?limit=${limit}&page=1`));
      expect(body.data.length, `page of limit ${limit}`).toBeLessThanOrEqual(limit);
    }
  });

  test('experiments: pages are disjoint and their union is the full list [inferred]', checks('inferred', 'paging.disjointUnion'), async ({ t }, info) => {
    const { list: full } = await fullList(t);
    const small = await walk(get(t), PATH, 7);
    expect(new Set(small.ids).size, 'no experiment appears on two pages').toBe(small.ids.length);
    expect([...small.ids].sort(), 'the pages together hold exactly the full list').toEqual([...full.ids].sort());
    observe(info, 'experiments.list.order', small.ids.join(',') === full.ids.join(',') ? 'stable across page sizes' : 'differs across page sizes');
  });

  test('experiments: the status filter returns exactly the experiments of that status [spec 4.4]', checks('stated', 'experiments.list.filters', 'experiments.list.status.enum'), async ({ t }) => {
    const { limit, list } = await fullList(t);
    for (const status of EXPERIMENT_STATUSES) {
      const filtered = await walk(get(t), PATH, limit, `&status=${status}`);
      expect(filtered.ids.sort(), `status=${status}`).toEqual(list.items.filter((e) => e.status === status).map((e) => e.id).sort());
    }
  });

  test('experiments: idType, layerID, targetAppID, creatorID and creatorName filters equal the filtered full list [spec 4.4]', checks('stated', 'experiments.list.filters'), async ({ t }) => {
    const { limit, list } = await fullList(t);
    const sample = list.items.slice(0, 40);
    const cases: [string, (e: any) => string | null | undefined][] = [
      ['idType', (e) => e.idType], ['layerID', (e) => e.layerID], ['creatorID', (e) => e.creatorID], ['creatorName', (e) => e.creatorName],
    ];
    for (const [param, field] of cases) {
      const value = sample.map(field).find((v) => typeof v === 'string' && v !== '');
      if (!value) continue;
      const filtered = await walk(get(t), PATH, limit, `&${param}=${encodeURIComponent(value)}`);
      expect(filtered.ids.sort(), `${param}=${value}`).toEqual(list.items.filter((e) => field(e) === value).map((e) => e.id).sort());
    }
    const app = sample.flatMap((e) => (Array.isArray(e.targetApps) ? e.targetApps : [])).find((a) => typeof a === 'string');
    if (app) {
      const filtered = await walk(get(t), PATH, limit, `&targetAppID=${encodeURIComponent(app)}`);
      expect(filtered.ids.sort(), `targetAppID=${app}`).toEqual(list.items.filter((e) => e.targetApps.includes(app)).map((e) => e.id).sort());
    }
  });

  test('experiments: the tags filter returns experiments carrying the tag [inferred: encoding not shown]', checks('inferred', 'filters.oracle'), async ({ t }, info) => {
    const { limit, list } = await fullList(t);
    const tag = list.items.flatMap((e) => e.tags)[0];
    test.info().annotations.push({ type: 'note', description: tag ? `tag ${tag}` : 'no tagged experiment on the target' });
    if (!tag) return;
    const filtered = await walk(get(t), PATH, limit, `&tags=${encodeURIComponent(tag)}`);
    expect(filtered.ids.sort(), `tags=${tag}`).toEqual(list.items.filter((e) => e.tags.includes(tag)).map((e) => e.id).sort());
    const two = [...new Set(list.items.flatMap((e) => e.tags))].slice(0, 2);
    if (two.length === 2) {
      const comma = await walk(get(t), PATH, limit, `&tags=${two.map(encodeURIComponent).join(',')}`);
      const all = list.items.filter((e) => two.every((x) => e.tags.includes(x))).map((e) => e.id).sort();
      const any = list.items.filter((e) => two.some((x) => e.tags.includes(x))).map((e) => e.id).sort();
      observe(info, 'experiments.list.tags.encoding', comma.ids.sort().join() === all.join() ? 'comma list, every tag' : comma.ids.sort().join() === any.join() ? 'comma list, any tag' : 'other');
    }
  });

  test('experiments: created dates filter by creation day [inferred: inclusiveness not shown]', checks('inferred', 'filters.oracle', 'experiments.list.createdDate.format'), async ({ t }, info) => {
    const { limit, list } = await fullList(t);
    const times = list.items.map((e) => e.createdTime).filter((x) => typeof x === 'number').sort((a, b) => a - b);
    if (times.length === 0) return;
    // Timestamps' unit is not shown (spec 2.2): milliseconds if large, else seconds.
    const ms = (x: number) => (x > 1e11 ? x : x * 1000);
    const mid = times[Math.floor(times.length / 2)];
    const day = new Date(ms(mid)).toISOString().slice(0, 10);
    const after = await walk(get(t), PATH, limit, `&createdStartDate=${day}`);
    const before = await walk(get(t), PATH, limit, `&createdEndDate=${day}`);
    const dayOf = (e: any) => new Date(ms(e.createdTime)).toISOString().slice(0, 10);
    // Either bound may be inclusive or exclusive: the experiments of the bound's own day are not asserted.
    for (const e of list.items.filter((x) => dayOf(x) > day)) expect(after.ids, `createdStartDate=${day} keeps ${e.id}`).toContain(e.id);
    for (const e of list.items.filter((x) => dayOf(x) < day)) expect(before.ids, `createdEndDate=${day} keeps ${e.id}`).toContain(e.id);
    for (const id of after.ids) expect(dayOf(list.items.find((e) => e.id === id)) >= day, `createdStartDate=${day} excludes earlier ${id}`).toBe(true);
    for (const id of before.ids) expect(dayOf(list.items.find((e) => e.id === id)) <= day, `createdEndDate=${day} excludes later ${id}`).toBe(true);
    observe(info, 'experiments.list.createdDate.inclusive', { start: after.items.some((e) => dayOf(e) === day), end: before.items.some((e) => dayOf(e) === day) });
  });

  test('experiments: an unknown status or a malformed date is rejected with a 4xx [inferred]', checks('inferred', 'errors.badInput.4xx'), async ({ t }) => {
    expectClientError(await t.call('GET', `${PATH}?status=running`), 'status=running');
    expectClientError(await t.call('GET', `${PATH}?createdStartDate=31-12-2026`), 'createdStartDate=31-12-2026');
    expectClientError(await t.call('GET', `${PATH}?limit=abc`), 'limit=abc');
  });
});
