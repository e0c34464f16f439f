// A list judged at any depth in a bounded number of requests. A list longer than the list budget is
// not walked: its end is found by page number (the pagination's total as a first guess, then doubling
// and bisecting: a logarithmic number of pages), and pages are drawn across its whole depth with the
// run's seed (CONSOLE_LIST_SEED, in the report), so a defect that lives on page 400 is as visible as one
// on page 1 and a failure replays. What the pages say of themselves (their size, their pagination,
// the page past the last) is held to where the list was found to end.
import type { Reply } from './evidence.ts';
import type { Json } from '../../core/json.ts';
import { seededRandom } from '../../core/random.ts';

/** One page read by its index (0 = the target's first page): what it held. */
export interface Probe {
  index: number;
  /** items: a 2xx holding items; empty: a 2xx holding none; refused: any other answer; repeat: the page before it again. */
  kind: 'items' | 'empty' | 'refused' | 'repeat';
  ids: string[];
  items: Json[];
  reply: Reply;
}

/** Reads the page of index `index` (0-based) of the list at `limit`, with the query `extra`. */
export type PageAt = (limit: number, index: number, extra: string) => Promise<Reply>;

/** Where a list ends at one page size, and every page read to find it. */
export interface ListEnd {
  limit: number;
  extra: string;
  /** Items on the first page: the page size the target uses at this limit (it may cap it). */
  size: number;
  /** Index of the last page that holds items; -1 for an empty list. */
  last: number;
  lastSize: number;
  /** Items the pages hold, when the list ends (not refused first): size × last + lastSize. */
  count?: number;
  /** The page that showed the end: empty, a repeat of the last, or refused (then the end is unknown). */
  past?: Probe;
  /** Every page read, by index. */
  probes: Map<number, Probe>;
}

const sameIds = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const ok = (r: Reply) => r.status >= 200 && r.status < 300;
/** Pages are asked at most up to this index while doubling: a list that still holds items there never ends. */
const MAX_INDEX = 2 ** 40;

/** Reads pages by index, each at most once per reader (with no writes between, a page read twice is paging.stable's question). */
export function pageReader(at: PageAt) {
  const cache = new Map<string, Promise<Probe>>();
  return (limit: number, index: number, extra = ''): Promise<Probe> => {
    const key = `${limit}|${extra}|${index}`;
    let p = cache.get(key);
    if (!p) {
      p = at(limit, index, extra).then((reply): Probe => {
        const data: Json[] | undefined = ok(reply) && Array.isArray(reply.body?.data) ? reply.body.data : undefined;
        if (!data) return { index, kind: 'refused', ids: [], items: [], reply };
        const ids = data.map((x) => String(x?.id));
        return { index, kind: data.length ? 'items' : 'empty', ids, items: data, reply };
      });
      cache.set(key, p);
    }
    return p;
  };
}
export type Reader = ReturnType<typeof pageReader>;

/**
 * Finds the last page of the list at `limit`: the pagination's total, when one is there, gives a first
 * guess (two pages confirm it); otherwise, or when the guess is wrong, pages 1, 2, 4, ... until one holds
 * nothing, then bisection between the last that held items and the first that did not. A page that
 * repeats the one asked before it (a server may answer the last page again past the end) ends the list
 * as an empty page would. A refused page bounds the search too: past it the end is unknown.
 */
export async function findEnd(read: Reader, limit: number, extra = ''): Promise<ListEnd> {
  const probes = new Map<number, Probe>();
  const get = async (i: number) => {
    const p = await read(limit, i, extra);
    probes.set(i, p);
    return p;
  };
  const first = await get(0);
  const base = { limit, extra, probes };
  if (first.kind !== 'items') return { ...base, size: 0, last: -1, lastSize: 0, count: 0, past: first };
  const size = first.items.length;
  /** Ids of a page that every page past the end repeats, once two pages far apart are found the same. */
  let repeated: string[] | undefined;
  /** A page holds items of its own: not empty, not refused, not the page the list repeats past its end. */
  const holds = async (i: number): Promise<boolean> => (await get(i)).kind === 'items' && !(repeated && sameIds(repeated, probes.get(i)!.ids));
  /** Page `i` holds what page `j` (< i) holds: past the end, the server answers its last page again. */
  const repeats = (i: number, j: number) =>
    probes.get(i)?.kind === 'items' && probes.get(j)?.kind === 'items' && sameIds(probes.get(i)!.ids, probes.get(j)!.ids);
  let lo = 0;
  let hi: number | undefined;
  const total = paginationOf(first.reply.body).total;
  if (total !== undefined && total > size) {
    const guess = Math.ceil(total / size) - 1;
    if (guess < MAX_INDEX) {
      if (await holds(guess)) {
        lo = guess;
        const after = await get(guess + 1);
        if (after.kind !== 'items' || repeats(guess + 1, guess)) hi = guess + 1;
      } else hi = guess;
    }
  }
  if (hi === undefined) {
    let before = lo > 0 ? 0 : -1;
    let i = Math.max(1, lo * 2);
    while (i <= MAX_INDEX && (await holds(i))) {
      if (repeats(i, lo)) {
        // Pages from the last one on all hold the same ids: the end is the first of them, after `before`.
        repeated = probes.get(i)!.ids;
        hi = lo;
        lo = before;
        break;
      }
      before = lo;
      lo = i;
      i *= 2;
    }
    hi ??= i;
  }
  if (repeated && (lo < 0 || !(await holds(lo)))) {
    lo = -1;
    hi = 0;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await holds(mid)) lo = mid;
    else hi = mid;
  }
  // Of the repeated pages the first is the true last page; the one after it, the first repeat.
  if (repeated) {
    lo = hi;
    hi = lo + 1;
    await get(hi);
  }
  if (repeats(hi, lo)) probes.set(hi, { ...probes.get(hi)!, kind: 'repeat' });
  const last = probes.get(lo)!;
  const past = probes.get(hi);
  const lastSize = last.items.length;
  // A refused page past one that said it was the last (or was short) is the end; past a full page that
  // said nothing or "more", it is a page the target will not serve (real servers refuse deep pages).
  const refused = past?.kind === 'refused' && paginationOf(last.reply.body).next?.value !== false && lastSize >= size;
  return { ...base, size, last: lo, lastSize, ...(refused ? {} : { count: size * lo + lastSize }), past };
}

/**
 * Indices of pages across the whole depth of a list whose last page is `last`: the first, the last, and
 * one drawn at random from each of `k` equal strata between them (fewer when the list is short).
 */
export function acrossDepth(last: number, k: number, random: () => number): number[] {
  const out = new Set<number>([0, Math.max(0, last)]);
  const inner = last - 1;
  if (inner >= 1) {
    const strata = Math.min(k, inner);
    for (let s = 0; s < strata; s++) {
      const from = 1 + Math.floor((s * inner) / strata);
      const to = 1 + Math.floor(((s + 1) * inner) / strata);
      out.add(from + Math.floor(random() * Math.max(1, to - from)));
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** A generator of the run's seed mixed with what is drawn (a test, a filter), so each draw replays alone. */
export function drawing(seed: number, what: string): () => number {
  let h = seed >>> 0;
  for (const ch of what) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return seededRandom(h);
}

/** Up to `n` of `xs`, drawn without replacement. */
export function pick<X>(xs: X[], n: number, random: () => number): X[] {
  const pool = [...xs];
  const out: X[] = [];
  while (out.length < n && pool.length) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
  return out;
}

/** What a page's pagination says of what follows it (its fields are not shown, spec 2.1: known names only). */
export interface PaginationSays {
  /** The field that says whether a next page exists, and what it says. */
  next?: { field: string; value: boolean };
  /** A total of items, where one is given. */
  total?: number;
}

const NEXT_FIELDS = ['nextPage', 'next', 'next_page', 'nextPageUrl', 'hasNext', 'hasNextPage', 'hasMore', 'has_more'];
const TOTAL_FIELDS = ['totalItems', 'total', 'totalCount', 'total_count', 'totalResults', 'total_results'];

export function paginationOf(body: Json): PaginationSays {
  const p = body?.pagination;
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return {};
  const out: PaginationSays = {};
  const field = NEXT_FIELDS.find((f) => Object.hasOwn(p, f) && (p[f] === null || ['boolean', 'number', 'string'].includes(typeof p[f])));
  if (field) out.next = { field, value: p[field] !== null && p[field] !== false && p[field] !== '' };
  const total = TOTAL_FIELDS.map((f) => p[f]).find((x) => Number.isSafeInteger(x) && x >= 0);
  if (total !== undefined) out.total = total;
  return out;
}

/**
 * Whether the pagination of page `p` says a next page exists: its next field when it has one, else its
 * total against the items up to and including the page (pages before it full). Undefined: it says nothing.
 */
function saysNext(p: Probe, size: number): { value: boolean; how: string } | undefined {
  const says = paginationOf(p.reply.body);
  if (says.next) return { value: says.next.value, how: `pagination.${says.next.field} = ${JSON.stringify(p.reply.body.pagination[says.next.field])}` };
  if (says.total !== undefined) {
    const through = size * p.index + p.items.length;
    return { value: through < says.total, how: `pagination total ${says.total}, ${through} items up to this page` };
  }
  return undefined;
}

/** A contradiction between what pages said and where the list ends, with the pages that show it. */
export interface Contradiction {
  message: string;
  replies: Reply[];
}

/**
 * The pagination held to where the list ends (spec 2.1: "metadata for deciding whether a next page
 * exists"): a page followed by one that holds items must not say there is no next page (a client would
 * stop there and lose the rest); the last page must not say there is one when it is short, when the page
 * after it repeats it, or when its total, too, counts more items than the pages hold. A full last page that says "maybe more" with no total
 * is left alone: a cursor store cannot know until it looks.
 */
export function paginationContradictions(end: ListEnd): Contradiction[] {
  if (end.last < 0) return [];
  const out: Contradiction[] = [];
  const at = (i: number) => end.probes.get(i);
  const lastProbe = at(end.last)!;
  const path = (p: Probe) => `page ${p.index + 1} of ${end.extra ? `the list with ${end.extra.slice(1)}` : 'the list'} at limit ${end.limit}`;
  for (const p of [...end.probes.values()].sort((a, b) => a.index - b.index)) {
    if (p.kind !== 'items' || p.index >= end.last) continue;
    const says = saysNext(p, end.size);
    if (says && !says.value)
      out.push({
        message: `${path(p)} says there is no next page (${says.how}), but page ${end.last + 1} holds ${end.lastSize} items`,
        replies: [p.reply, lastProbe.reply],
      });
  }
  const past = end.past;
  if (past && past.kind !== 'refused') {
    const says = saysNext(lastProbe, end.size);
    const total = paginationOf(lastProbe.reply.body).total;
    const short = end.lastSize < end.size;
    const overcounts = total !== undefined && end.count !== undefined && total > end.count;
    // A page that repeats the last one instead of a next page the pagination promised: one of the two is wrong.
    if (says?.value && (short || overcounts || past.kind === 'repeat'))
      out.push({
        message: `${path(lastProbe)} says a next page exists (${says.how}), but page ${past.index + 1} is ${past.kind === 'repeat' ? 'a repeat of it' : 'empty'}: the pages hold ${end.count} items${total !== undefined ? `, the pagination counts ${total}` : ''}`,
        replies: [lastProbe.reply, past.reply],
      });
  }
  return out;
}

/** Pages before the last that hold fewer items than the first page: a gap in the list at that depth. */
export function shortPages(end: ListEnd): Probe[] {
  return [...end.probes.values()].filter((p) => p.kind === 'items' && p.index < end.last && p.items.length < end.size);
}
