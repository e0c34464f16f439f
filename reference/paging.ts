// Paging of list operations. Default and maximum of limit, the first page number and the
// pagination fields are "not shown" (spec 4.4, 2.1, 8): the reference uses default 20, pages
// numbered from 1 (variant pages-from-0: from 0), and clamps any integer limit to 1..100 and page to 1..2^53 - 1, so every request
// the contract allows (`limit`, `page`: integer) is answered; the pagination object tells the limit
// and page used. Variant paging-out-of-range-400 rejects out-of-range values instead.
import type { Ctx } from './context.ts';
import { badRequest } from './errors.ts';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface Page {
  limit: number;
  page: number;
  offset: number;
}

const clamp = (n: number, low: number, high: number) => Math.min(Math.max(n, low), high);

/** A page that starts at or after the last item holds nothing; the store is not asked (its offsets are 64-bit). */
export const pastTheEnd = (p: Page, total: number) => p.offset >= total;

export function readPage(query: { limit?: number; page?: number }, ctx: Ctx): Page {
  let limit = query.limit ?? (ctx.variant('default-limit-50') ? 50 : DEFAULT_LIMIT);
  let page = query.page ?? 1;
  if (ctx.variant('paging-out-of-range-400')) {
    if (limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    if (page < 1 || page > Number.MAX_SAFE_INTEGER) throw badRequest(`page must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`);
  }
  // Safe integers only for page: a page like 1e20 has no exact successor or predecessor for the
  // pagination fields, and is past the end of any list anyway.
  limit = clamp(limit, 1, MAX_LIMIT);
  page = clamp(page, 1, Number.MAX_SAFE_INTEGER);
  // Fault page-overlap: each page starts one item early, so consecutive pages share an item.
  const offset = Math.max(0, (page - 1) * limit - (ctx.fault('page-overlap') && page > 1 ? 1 : 0));
  return { limit, page, offset };
}

export function pagination(p: Page, totalItems: number, ctx: Ctx): Record<string, unknown> | undefined {
  if (ctx.fault('pagination-missing')) return undefined;
  const hasNext = p.page * p.limit < totalItems;
  if (ctx.variant('pagination-other-fields')) return { page: p.page, limit: p.limit, hasMore: hasNext };
  return {
    itemsPerPage: p.limit,
    pageNumber: p.page,
    totalItems,
    nextPage: hasNext ? p.page + 1 : null,
    previousPage: p.page > 1 ? p.page - 1 : null,
  };
}

export function listBody(message: string, data: unknown[], p: Page, total: number, ctx: Ctx) {
  const body: Record<string, unknown> = { message, data };
  const pg = pagination(p, total, ctx);
  if (pg) body.pagination = pg;
  return body;
}

/**
 * Variant pages-from-0: the client's page n is the reference's page n + 1 (the default of page is not
 * shown, spec 4.4). Page numbers below 0 are the first page, as those below 1 are without the variant.
 */
export function pageFromClient<Q extends { page?: number }>(query: Q, ctx: Ctx): Q {
  if (!ctx.variant('pages-from-0') || query.page === undefined) return query;
  return { ...query, page: Math.max(query.page, 0) + 1 };
}

/** Variant pages-from-0: the page numbers of a list body's pagination object as the client counts them. */
export function pageToClient(body: Record<string, unknown>, ctx: Ctx): Record<string, unknown> {
  const pg = body.pagination as Record<string, unknown> | undefined;
  if (!ctx.variant('pages-from-0') || !pg) return body;
  for (const k of ['pageNumber', 'nextPage', 'previousPage', 'page']) if (typeof pg[k] === 'number') pg[k] = (pg[k] as number) - 1;
  return body;
}
