// Spec 2.6 and 4.5: list release pipelines, paged like experiments. Read-only.
import { checks, expect, observe, test, type T } from '../support/target.ts';
import { expectMessage, expectSuccess } from '../support/checks.ts';
import { largestLimit, walk } from '../support/paging.ts';
import { clausesUnder } from '../support/clauses.ts';

const PATH = '/console/v1/release_pipelines';
const get = (t: T) => (query: string) => t.call('GET', query);

test.describe('pipelines', () => {
  test('pipelines: list answers 200, the spec message and pagination [spec 4.5]', checks('stated', 'pipelines.list.status200', 'pipelines.list.message', 'pipelines.list.pagination', 'envelope.pagination'), async ({ t }, info) => {
    const body = expectSuccess('listReleasePipelines', await t.call('GET', PATH));
    expectMessage(body, 'List pipelines success');
    observe(info, 'pagination.fields', Object.keys(body.pagination ?? {}).sort());
  });

  test('pipelines: pages hold at most limit, are disjoint, and their union is the full list [inferred]', checks('inferred', 'paging.disjointUnion', 'paging.limit'), async ({ t }) => {
    const limit = await largestLimit(get(t), PATH);
    const full = await walk(get(t), PATH, limit);
    const small = await walk(get(t), PATH, 4);
    for (const size of small.pageSizes) expect(size).toBeLessThanOrEqual(4);
    expect(new Set(small.ids).size, 'no pipeline on two pages').toBe(small.ids.length);
    expect([...small.ids].sort()).toEqual([...full.ids].sort());
  });

  test('pipelines: every pipeline has the spec types, and the manifest pipelines are listed with their phases [spec 2.6]', checks('stated', ...clausesUnder('pipeline.field.')), async ({ t }) => {
    const limit = await largestLimit(get(t), PATH);
    const full = await walk(get(t), PATH, limit);
    for (let page = 1; page <= full.pages; page++) expectSuccess('listReleasePipelines', await t.call('GET', `${PATH}?limit=${limit}&page=${page}`));
    for (const trigger of t.manifest.triggers) {
      const p = full.items.find((x) => x.id === trigger.releasePipelineID);
      expect(p, `pipeline ${trigger.releasePipelineID} of the manifest is listed`).toBeTruthy();
      for (const phaseID of trigger.phaseIDs) expect(p.phases.map((ph: any) => ph.id), `phase ${phaseID}`).toContain(phaseID);
    }
  });
});
