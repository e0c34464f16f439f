// Paging of list operations. Default and maximum of limit, the first page number and the
// pagination fields are "not shown" (spec 4.4, 2.1, 8): the reference uses default 20, pages
// numbered from 1, and clamps any integer limit to 1..100 and page to 1..2^53 - 1, so every request
// the contract allows (`limit`, `page`: integer) is answered; the pagination object tells the limit
// and page used. (Variants read them otherwise: default-limit-50, pages-from-0, paging-out-of-range-400
// in layers/request.ts; pagination-other-fields in layers/response.ts.)

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface Page {
  limit: number;
  page: number;
  offset: number;
}

const clamp = (n: number, low: number, high: number) => Math.min(Math.max(n, low), high);

export function readPage(query: { limit?: number; page?: number }): Page {
  // Safe integers only for page: a page like 1e20 has no exact successor or predecessor for the
  // pagination fields, and is past the end of any list anyway.
  const limit = clamp(query.limit ?? DEFAULT_LIMIT, 1, MAX_LIMIT);
  const page = clamp(query.page ?? 1, 1, Number.MAX_SAFE_INTEGER);
  return { limit, page, offset: (page - 1) * limit };
}

export function pagination(p: Page, totalItems: number): Record<string, unknown> {
  const hasNext = p.page * p.limit < totalItems;
  return {
    itemsPerPage: p.limit,
    pageNumber: p.page,
    totalItems,
    nextPage: hasNext ? p.page + 1 : null,
    previousPage: p.page > 1 ? p.page - 1 : null,
  };
}

export function listBody(message: string, data: unknown[], p: Page, total: number): Record<string, unknown> {
  return { message, data, pagination: pagination(p, total) };
}
