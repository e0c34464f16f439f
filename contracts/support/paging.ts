// Paging oracles that need no knowledge of the data or of the pagination fields (spec 2.1: "not
// shown"): walk pages by number until an empty or short page, bounded in requests by the list budget
// (CONSOLE_LIST_BUDGET, core/config.ts): a walk that reaches it is partial (`complete` false), and no
// check may read a partial walk as the whole list.
import { expectSuccess } from './checks.ts';
import { claim } from './blame.ts';
import type { Reply } from './evidence.ts';
import { DEFAULT_LIST_BUDGET } from '../../core/config.ts';
import type { Json } from '../../core/json.ts';
import { findEnd, pageReader, paginationOf, type ListEnd, type Reader } from './depth.ts';

export type Get = (query: string) => Promise<Reply>;

/** The first page of a walk was refused (a non-2xx answer). */
export class RefusedPage extends Error {}

export interface Walk {
  ids: string[];
  items: Json[];
  pages: number;
  pageSizes: number[];
  complete: boolean;
  /** Every 2xx page asked, in order, the empty one that ended the walk included. */
  replies: Reply[];
}

const ok = (r: Reply) => r.status >= 200 && r.status < 300;

/**
 * Walks `path` page by page with `limit`, from page number `first`, until an empty page, a non-2xx page
 * after the first, or a page of ids all seen before (a server may repeat its last page past the end:
 * not shown, spec 4.4). Short pages do not end the walk: a server may clamp `limit` to its own maximum
 * (spec 8: not shown).
 */
export async function walkPages(get: Get, path: string, limit: number, extra = '', first = 1, refused?: string, budget = DEFAULT_LIST_BUDGET): Promise<Walk> {
  const items: Json[] = [];
  const pageSizes: number[] = [];
  const replies: Reply[] = [];
  const seen = new Set<string>();
  const done = (pages: number, complete: boolean): Walk => ({ ids: items.map((x) => x.id), items, pages, pageSizes, complete, replies });
  for (let page = first; page < first + budget; page++) {
    const r = await get(`${path}?limit=${limit}&page=${page}${extra}`);
    if (!ok(r)) {
      // A first page refused without a filter is the list operation's (`refused`); with one, the check around the walk's.
      if (page === first) throw claim(new RefusedPage(`page ${page} of ${path}${extra}: HTTP ${r.status}`), refused && !extra ? [refused] : []);
      // A refused page ends the list only where the page before it said it was the last (or was short):
      // real servers also refuse pages deep in a list they cannot serve that far (GitHub's search past 1000).
      const before = replies.at(-1)!;
      const endedBefore = paginationOf(before.body).next?.value === false || before.body.data.length < pageSizes[0];
      return done(page - first + 1, endedBefore);
    }
    replies.push(r);
    // A page answered without its `data` array breaks the envelope (spec 2.1), not the test's precondition
    // that the list holds items: read as an empty page, it would end the walk and blame every clause after.
    if (!Array.isArray(r.body?.data))
      throw claim(new Error(`page ${page} of ${path}${extra}: a success without a data array: ${JSON.stringify(r.body)?.slice(0, 200)}`), ['envelope.data']);
    const data: Json[] = r.body.data;
    if (data.length === 0 || data.every((x) => seen.has(x.id))) return done(page - first + 1, true);
    pageSizes.push(data.length);
    items.push(...data);
    for (const x of data) seen.add(x.id);
  }
  return done(budget, false);
}

/**
 * A hint of how many pages walking the list of `w` whole would take, for the reason of a check left
 * undecided: from a total its last page shows (pagination's fields are not shown, spec 2.1: only a hint).
 */
export function pagesNeeded(w: Walk): number | undefined {
  const last = w.replies.at(-1)?.body?.pagination;
  const total = [last?.totalItems, last?.total, last?.totalCount].find((x) => Number.isInteger(x) && x >= 0);
  const size = Math.max(...w.pageSizes, 1);
  return total === undefined ? undefined : Math.ceil(total / size) + 1;
}

/** How the target numbers its pages, learnt from its answers (spec 4.4: "default of page: not shown"). */
export interface PageBase {
  /** The number of the first page: 1, or 0 for a target that counts from 0. */
  first: 0 | 1;
  /** How page=0 was answered, for the observation. */
  pageZero: string;
}

/**
 * Compares page=0 with page=1 and with no page at a small limit. A target counting from 1 refuses
 * page 0, answers it empty, or clamps it to page 1; one counting from 0 answers it with the first page
 * (the one given when no page is sent), which page=1 is not. Anything else is read as counting from 1.
 * Pages are compared by the items they hold, not their order: a page that comes back reshuffled is
 * paging.stable's failure (its own test), and must not make every walk start from the wrong page.
 */
export async function pageBase(get: Get, path: string): Promise<PageBase> {
  const ids = (r: Reply) =>
    ok(r) && Array.isArray(r.body?.data)
      ? r.body.data
          .map((x: Json) => String(x?.id))
          .sort()
          .join()
      : undefined;
  const zero = await get(`${path}?limit=2&page=0`);
  if (!ok(zero)) return { first: 1, pageZero: `refused (${zero.status})` };
  const z = ids(zero);
  if (!z) return { first: 1, pageZero: 'empty' };
  if (z === ids(await get(`${path}?limit=2&page=1`))) return { first: 1, pageZero: 'the same as page 1' };
  if (z === ids(await get(`${path}?limit=2`))) return { first: 0, pageZero: 'the first page (page 1 is the second)' };
  return { first: 1, pageZero: 'neither page 1 nor the first page' };
}

/** One list of the target, with the page numbering learnt once: every walk starts from its first page. */
export interface Pager extends PageBase {
  /** The page number of the `n`th page, counted from 0. */
  number(n: number): number;
  /** Pages one walk may ask (CONSOLE_LIST_BUDGET). */
  budget: number;
  /** Walks at most `pages` pages (the budget when not given). */
  walk(limit: number, extra?: string, pages?: number): Promise<Walk>;
  /** walk, with every page that holds items held to `operationId`'s success schema, not only the first. */
  walkChecked(operationId: string, limit: number, pages?: number): Promise<Walk>;
  /** Largest page size the target accepts among candidates (default and maximum are not shown, spec 4.4). */
  largestLimit(): Promise<number>;
  /** Reads one page by its index from 0, each at most once per pager. */
  read: Reader;
  /** Where the list (with `extra`) ends at `limit`, found in a logarithmic number of pages (support/depth.ts). */
  end(limit: number, extra?: string): Promise<ListEnd>;
}

/** `refused`: the clause of the list operation itself, which a refused first page of the unfiltered list fails. */
export async function pager(send: Get, path: string, refused?: string, budget = DEFAULT_LIST_BUDGET): Promise<Pager> {
  const base = await pageBase(send, path);
  const number = (n: number) => base.first + n;
  // With no writes to the list between them, a page a walk asks and one the depth sample asks are one
  // answer: asked once (asking a page twice is paging.stable's check, made apart).
  const answers = new Map<string, Promise<Reply>>();
  const get: Get = (query) => {
    if (!answers.has(query)) answers.set(query, send(query));
    return answers.get(query)!;
  };
  const read = pageReader((limit, index, extra) => get(`${path}?limit=${limit}&page=${number(index)}${extra}`));
  const walkHere = (limit: number, extra = '', pages = budget) => walkPages(get, path, limit, extra, base.first, refused, Math.min(pages, budget));
  return {
    ...base,
    number,
    budget,
    read,
    end: (limit, extra = '') => findEnd(read, limit, extra),
    walk: walkHere,
    async walkChecked(operationId, limit, pages) {
      const list = await walkHere(limit, '', pages);
      for (const r of list.replies) if (r.body?.data?.length) expectSuccess(operationId, r);
      return list;
    },
    async largestLimit() {
      for (const limit of [100, 50, 20, 10]) {
        const r = await get(`${path}?limit=${limit}&page=${number(0)}`);
        if (ok(r) && Array.isArray(r.body?.data)) return limit;
      }
      return 10;
    },
  };
}

/**
 * A page size at which `expected` items take two pages, so that a walk of a filtered list needs its
 * second page (a filter that ignores page then shows): one for fewer than two items.
 */
export const twoPages = (expected: number) => Math.max(1, Math.ceil(expected / 2));
