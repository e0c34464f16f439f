// Paging of list operations. Default and maximum of limit and the pagination fields are "not shown"
// (spec 4.4, 2.1, 8): the reference uses default 20, maximum 100, pages numbered from 1.
import type { Ctx } from './context.ts';
import { badRequest } from './errors.ts';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface Page { limit: number; page: number; offset: number }

/** A page that starts at or after the last item holds nothing; the store is not asked (its offsets are 64-bit). */
export const pastTheEnd = (p: Page, total: number) => p.offset >= total;

export function readPage(query: { limit?: number; page?: number }, ctx: Ctx): Page {
  let limit = query.limit ?? (ctx.variant('default-limit-50') ? 50 : DEFAULT_LIMIT);
  const page = query.page ?? 1;
  if (limit > MAX_LIMIT && ctx.variant('limit-clamped')) limit = MAX_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  // Safe integers only: a page like 1e20 has no exact successor or predecessor for the pagination fields.
  if (!Number.isSafeInteger(page) || page < 1) throw badRequest(`page must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`);
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
