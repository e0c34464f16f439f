// Spec 2.6 and 4.5: list release pipelines, paged like experiments. Read-only.
import { checks, expect, test, type T } from '../support/suite-test.ts';
import { expectMessage, expectSuccess, ok2xx, whenPresent } from '../support/checks.ts';
import { drawAcrossDepth, expectDisjointUnion, expectEndHolds, expectPagesAgreeAtDepth } from '../support/list-oracles.ts';
import { drawing } from '../support/depth.ts';
import { pager } from '../support/paging.ts';
import { clausesUnder } from '../support/clauses.ts';
import { SPEC_MESSAGES, SPEC_OPERATIONS } from '../index.ts';

const PATH = '/console/v1/release_pipelines';
const get = (t: T) => (query: string) => t.call('GET', query);
/** The list's pages; a refused first page of the unfiltered list is the operation's (pipelines.list.path). */
const pipelinePages = (t: T) => pager(get(t), PATH, 'pipelines.list.path', t.listBudget);
const sorted = (ids: string[]) => [...ids].sort();
const MESSAGE = SPEC_MESSAGES.listReleasePipelines;
const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

test.describe('pipelines', () => {
  test(
    `pipelines: list answers ${SPEC_OPERATIONS.listReleasePipelines.successStatus}, the spec message and pagination [spec 4.5]`,
    checks(
      'stated',
      'pipelines.list.status200',
      'pipelines.list.message',
      'pipelines.list.pagination',
      'pipelines.list.path',
      'envelope.data',
      'envelope.pagination',
      'envelope.successObject',
      'pagination.fields',
    ),
    async ({ t }) => {
      const reply = await t.call('GET', PATH);
      // A page without its data array or its pagination object breaks the envelope of a list (2.1) and
      // what 4.5 states of this list's answer both: checked before the schema check, which blames 2.1
      // alone. (A body that is no object at all is the schema check's: envelope.successObject.)
      if (ok2xx(reply) && isObject(reply.body)) {
        await t.clause(['envelope.data', 'pipelines.list.pagination'], async () => expect(Array.isArray(reply.body?.data), 'data is an array').toBe(true));
        await t.clause(['envelope.pagination', 'pipelines.list.pagination'], async () =>
          expect(isObject(reply.body?.pagination), `pagination is an object: ${JSON.stringify(reply.body?.pagination)}`).toBe(true),
        );
      }
      // Refused: the operation of 4.5; a 2xx other than 200: pipelines.list.status200 (expectSuccess).
      const body = await t.clause('pipelines.list.path', async () => expectSuccess('listReleasePipelines', reply));
      expectMessage('listReleasePipelines', body);
      t.observe('pagination.fields', 'listReleasePipelines', Object.keys(body.pagination).sort(), reply);
    },
  );

  test('pipelines: every page answers the spec message, empty ones too [spec 2.1, 4.5]', checks('stated', 'pipelines.list.message'), async ({ t }) => {
    // The spec shows one message for the list (2.1, 4.5), whether or not the page holds items: the walk ends on a page past the last.
    const pages = await pipelinePages(t);
    const list = await pages.walk(4);
    // A page past the last may be refused instead (paging.beyondLast): then only pages with items are checked here.
    if (!list.replies.some((r) => Array.isArray(r.body?.data) && r.body.data.length === 0))
      t.uncovered('pipelines.list.message', 'no empty page: the target refuses a page past the last', 'unverifiable');
    for (const r of list.replies) expect(r.body?.message, `message text (spec 2.1) of GET ${r.exchange.path}`).toBe(MESSAGE);
  });

  test(
    'pipelines: limit bounds a page and page numbers select pages [spec 4.5]',
    checks('stated', 'pipelines.list.query.limit', 'pipelines.list.query.page', 'pipelines.list.firstPage'),
    async ({ t }) => {
      // Pages may be numbered from 0 or from 1 (4.5 gives page's type only): the first two are asked by the target's own numbers.
      const pages = await pipelinePages(t);
      t.observe('pipelines.list.firstPage', 'first page number', { first: pages.first, 'page=0': pages.pageZero });
      // A page of limit 2 refused: limit or page, the answer does not say which.
      const [one, two] = await t.clause(['pipelines.list.query.limit', 'pipelines.list.query.page'], async () => [
        expectSuccess('listReleasePipelines', await t.call('GET', `${PATH}?limit=2&page=${pages.number(0)}`)),
        expectSuccess('listReleasePipelines', await t.call('GET', `${PATH}?limit=2&page=${pages.number(1)}`)),
      ]);
      await t.clause('pipelines.list.query.limit', async () => {
        expect(one.data.length, 'page of limit 2').toBeLessThanOrEqual(2);
        expect(two.data.length, 'page of limit 2').toBeLessThanOrEqual(2);
      });
      // By the pipelines they hold, not their order: the first page reordered is no second page.
      await t.clause('pipelines.list.query.page', async () => {
        if (one.data.length === 2 && two.data.length > 0)
          expect(sorted(two.data.map((p: any) => p.id)), 'the second page holds other pipelines than the first').not.toEqual(
            sorted(one.data.map((p: any) => p.id)),
          );
      });
    },
  );

  test(
    'pipelines: pages hold at most limit, are disjoint, and their union is the full list [inferred]',
    checks('inferred', 'paging.disjointUnion', 'paging.limit', 'paging.beyondLast'),
    async ({ t }) => {
      const pages = await pipelinePages(t);
      const full = await pages.walk(await pages.largestLimit());
      if (!full.complete) {
        // Too long to walk: pages drawn across its whole depth against their neighbours and another page size.
        const end = await pages.end(await pages.largestLimit());
        await t.clause('paging.limit', async () => {
          for (const p of end.probes.values()) expect(p.items.length, `a page of limit ${end.limit}`).toBeLessThanOrEqual(end.limit);
        });
        await t.clause('paging.disjointUnion', async () => {
          expectEndHolds(end, undefined, 'paging.disjointUnion');
          await expectPagesAgreeAtDepth(pages, end, drawing(t.listSeed, 'pipelines paging'), 'pipeline');
        });
        await t.clause('paging.beyondLast', async () => {
          if (end.past?.kind === 'repeat') expect(end.past.ids, `GET ${end.past.reply.exchange.path}, past the last page, repeats the last page`).toEqual([]);
        });
        return;
      }
      const small = await pages.walk(4);
      await t.clause('paging.limit', async () => {
        for (const size of small.pageSizes) expect(size).toBeLessThanOrEqual(4);
      });
      const undecided = await t.clause('paging.disjointUnion', async () => expectDisjointUnion(full, small, 'pipeline', pages.budget));
      // Past a list walked whole, or past any list a budget could walk when it was not.
      const beyond = full.complete ? Math.ceil(full.ids.length / 4) + 1 : 10_000_000;
      const past = await t.call('GET', `${PATH}?limit=4&page=${pages.number(beyond)}`);
      await t.clause('paging.beyondLast', async () => {
        if (ok2xx(past)) expect(past.body?.data ?? [], 'a page past the last holds no items').toEqual([]);
      });
      if (undecided) t.uncovered('paging.disjointUnion', `not verifiable within the list budget: ${undecided}`, 'unverifiable');
    },
  );

  test(
    'pipelines: every pipeline has the spec types, and the manifest pipelines are listed with their phases [spec 2.6]',
    checks('stated', ...clausesUnder('pipeline.field.'), 'pipelines.list.pagination'),
    async ({ t }) => {
      const pages = await pipelinePages(t);
      const limit = await pages.largestLimit();
      const full = await pages.walkChecked('listReleasePipelines', limit);
      if (!full.complete) {
        // Pages drawn across the whole depth hold pipelines of the spec types; what the pagination says holds to where the list ends.
        const deep = await drawAcrossDepth(pages, limit, '', drawing(t.listSeed, 'pipelines types'));
        for (const p of deep.read) expectSuccess('listReleasePipelines', p.reply);
        expectEndHolds(deep.end, 'pipelines.list.pagination');
        full.items.push(...deep.read.flatMap((p) => p.items).filter((x) => !full.ids.includes(x.id)));
      }
      for (const trigger of t.manifest.triggers) {
        const found = full.items.find((x) => x.id === trigger.releasePipelineID);
        // Of a list walked in part, a pipeline not in the part may be further on.
        if (!found && !full.complete) {
          t.uncovered(
            'pipeline.field.phases',
            `not verifiable within the list budget: pipeline ${trigger.releasePipelineID} is not in the list's first ${full.pages} pages`,
            'unverifiable',
          );
          continue;
        }
        const p = await t.clause('pipeline.field.id', async () => {
          expect(found, `pipeline ${trigger.releasePipelineID} of the manifest is listed`).toBeTruthy();
          return found;
        });
        await t.clause('pipeline.field.phases', async () =>
          whenPresent(t, 'pipeline.field.phases', p, 'phases', (phases) => {
            for (const phaseID of trigger.phaseIDs)
              expect(
                phases.map((ph: any) => ph.id),
                `phase ${phaseID}`,
              ).toContain(phaseID);
          }),
        );
      }
    },
  );
});
