// Paging oracles that need no knowledge of the data or of the pagination fields (spec 2.1: "not
// shown"): walk pages by number until an empty or short page, bounded in requests.
import { expectSuccess } from './checks.ts';
import type { Reply } from './evidence.ts';

export const MAX_PAGES = 60;

export interface Walk {
  ids: string[];
  items: any[];
  pages: number;
  pageSizes: number[];
  complete: boolean;
}

/**
 * Walks `path` page by page with `limit` until an empty page, a non-2xx page after the first, or a page
 * of ids all seen before (a server may repeat its last page past the end: not shown, spec 4.4). Short
 * pages do not end the walk: a server may clamp `limit` to its own maximum (spec 8: not shown).
 */
export async function walk(get: (query: string) => Promise<Reply>, path: string, limit: number, extra = ''): Promise<Walk> {
  const items: any[] = [];
  const pageSizes: number[] = [];
  const seen = new Set<string>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await get(`${path}?limit=${limit}&page=${page}${extra}`);
    if (!(r.status >= 200 && r.status < 300)) {
      if (page === 1) throw new Error(`page 1 of ${path}: HTTP ${r.status}`);
      return { ids: items.map((x) => x.id), items, pages: page, pageSizes, complete: true };
    }
    const data: any[] = Array.isArray(r.body?.data) ? r.body.data : [];
    if (data.length === 0 || data.every((x) => seen.has(x.id))) return { ids: items.map((x) => x.id), items, pages: page, pageSizes, complete: true };
    pageSizes.push(data.length);
    items.push(...data);
    for (const x of data) seen.add(x.id);
  }
  return { ids: items.map((x) => x.id), items, pages: MAX_PAGES, pageSizes, complete: false };
}

/** walk, with every page that holds items held to `operationId`'s success schema, not only the first. */
export async function walkChecked(get: (query: string) => Promise<Reply>, operationId: string, path: string, limit: number): Promise<Walk> {
  const replies: Reply[] = [];
  const list = await walk(
    async (query) => {
      const r = await get(query);
      if (r.status >= 200 && r.status < 300 && r.body?.data?.length) replies.push(r);
      return r;
    },
    path,
    limit,
  );
  for (const r of replies) expectSuccess(operationId, r);
  return list;
}

/** Largest page size the target accepts among candidates (default and maximum are not shown, spec 4.4). */
export async function largestLimit(get: (query: string) => Promise<Reply>, path: string): Promise<number> {
  for (const limit of [100, 50, 20, 10]) {
    const r = await get(`${path}?limit=${limit}&page=1`);
    if (r.status >= 200 && r.status < 300 && Array.isArray(r.body?.data)) return limit;
  }
  return 10;
}
