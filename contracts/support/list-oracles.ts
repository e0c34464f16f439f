// List oracles that hold at any size of list and any page cap. A walk is bounded by the list budget
// (support/paging.ts), so the unfiltered list a check compares with may be partial: a check then never
// reads it as the whole list. It narrows (a window of created days whose list is walked whole) or
// samples soundly (every item a filter returns must match it; the items of the sample that match must
// be found when the filtered list ends within the budget), and what it still cannot decide it reports
// as not verifiable with the budget that would decide it: never a failure, never a pass.
import { expect } from './target.ts';
import { pagesNeeded, RefusedPage, twoPages, type Pager, type Walk } from './paging.ts';
import type { Json } from '../../core/json.ts';

/**
 * A walk that narrows a check: refused, it leaves the check undecided (its reason returned), never
 * failed: a filter combined with dates, or the date window itself, is judged by other checks.
 */
async function narrowingWalk(walk: () => Promise<Walk>): Promise<Walk | string> {
  try {
    return await walk();
  } catch (err) {
    if (err instanceof RefusedPage) return `refused (${err.message})`;
    throw err;
  }
}

const sorted = (ids: string[]) => [...ids].sort();
const DAY = 86_400_000;
/** Timestamps' unit is not shown (spec 2.2): values above 1e11 are read as milliseconds, others as seconds. */
export const ms = (x: number) => (x > 1e11 ? x : x * 1000);
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** One filter as a check asks it: its query and what it means. */
export interface FilterCase {
  /** The query it adds, `&status=active`. */
  query: string;
  /** How a failure names it, `status=active`. */
  what: string;
  /** Whether an experiment can be judged: it carries the filtered field (a listed field's presence is only inferred). */
  judged: (e: Json) => boolean;
  matches: (e: Json) => boolean;
}

/** A window of created days whose unfiltered list ended within the budget: the universe a filter is narrowed to. */
export interface Window {
  query: string;
  list: Walk;
}

/** What a filter check found: the filtered walk it judged, and why it could not decide when it could not. */
export interface Judged {
  walk: Walk;
  undecided?: string;
}

export interface JudgeOptions {
  /** The largest page size the target accepts: a partial list's filter is walked at it. */
  limit: number;
  /** The window a partial list's filter is narrowed to, or why there is none. */
  window?: Window | string;
  /** Runs the filter's first walk, whose refused first page is then that clause's (a status of 4.4 refused, say). */
  first?: (walk: () => Promise<Walk>) => Promise<Walk>;
}

/** The budget that would let `w` end, as a reason's tail. */
function wouldDecide(w: Walk, budget: number): string {
  const n = pagesNeeded(w);
  return n !== undefined && n > budget ? `CONSOLE_LIST_BUDGET=${n} would decide it` : `a CONSOLE_LIST_BUDGET above ${budget} would decide it`;
}

/** Every item of a filtered walk that can be judged matches the filter: sound on any part of any list. */
function expectEveryItemMatches(filtered: Walk, c: FilterCase): void {
  const wrong = filtered.items.filter((e) => c.judged(e) && !c.matches(e)).map((e) => e.id);
  expect(wrong, `${c.what}: experiments that do not match the filter`).toEqual([]);
}

/**
 * The filtered result judged on the experiments of `list` that can be judged: those of them in the result
 * are exactly those that match (when `filtered` is whole), and the result holds nothing the list does
 * not (when `list` is whole).
 */
function expectAgainst(filtered: Walk, list: Walk, c: FilterCase): void {
  if (list.complete) {
    const all = new Set(list.ids);
    expect(
      filtered.ids.filter((id) => !all.has(id)),
      `${c.what}: experiments the full list does not hold`,
    ).toEqual([]);
  }
  if (!filtered.complete) return;
  const got = new Set(filtered.ids);
  const carry = list.items.filter(c.judged);
  if (list.complete) {
    expect(sorted(filtered.ids.filter((id) => carry.some((e) => e.id === id))), c.what).toEqual(sorted(carry.filter(c.matches).map((e) => e.id)));
  } else {
    const missing = carry.filter((e) => c.matches(e) && !got.has(e.id)).map((e) => e.id);
    expect(missing, `${c.what}: experiments of the list's first ${list.pages} pages that match, missing from the filtered list`).toEqual([]);
  }
}

/**
 * Judges one filter against the unfiltered `list` (the budget's walk of it, whole or not). A whole list
 * gives the exact oracle: the filtered list, walked at a page size that spreads it over two pages, is
 * the list filtered. A partial one gives the sound part: the filtered list's first pages match the
 * filter, and when it ends there it holds every match of the sample; when it does not, the filter is
 * narrowed to `window` (the same filter within a window of days whose list ended within the budget) and
 * must answer exactly that list filtered. A narrowed answer that differs is left undecided, not failed:
 * it joins two filters, and how filters combine is only inferred (filters.oracle judges that).
 */
export async function judgeFilter(pages: Pager, list: Walk, c: FilterCase, how: JudgeOptions): Promise<Judged> {
  const { limit, window } = how;
  const first = how.first ?? ((w: () => Promise<Walk>) => w());
  const expected = list.items.filter((e) => c.judged(e) && c.matches(e)).length;
  if (list.complete) {
    const filtered = await first(() => pages.walk(twoPages(expected), c.query));
    expectEveryItemMatches(filtered, c);
    expectAgainst(filtered, list, c);
    if (filtered.complete) return { walk: filtered };
    return { walk: filtered, undecided: `${c.what}: the filtered list has more than ${pages.budget} pages; ${wouldDecide(filtered, pages.budget)}` };
  }
  // Two pages: a filter that ignores page shows as a second page that repeats the first.
  const head = await first(() => pages.walk(limit, c.query, 2));
  expectEveryItemMatches(head, c);
  expectAgainst(head, list, c);
  if (head.complete) return { walk: head };
  const partial = `${c.what}: the full list has more than ${list.pages} pages at limit ${limit}, and so has the filtered one`;
  if (typeof window === 'string' || window === undefined)
    return { walk: head, undecided: `${partial}; ${window ?? 'no narrower list'}; ${wouldDecide(list, pages.budget)}` };
  const inWindow = window.list.items.filter((e) => c.judged(e) && c.matches(e)).length;
  const narrowed = await narrowingWalk(() => pages.walk(twoPages(inWindow), `${window.query}${c.query}`));
  if (typeof narrowed === 'string')
    return { walk: head, undecided: `${partial}; narrowed to ${window.query.slice(1)}, it was ${narrowed}; ${wouldDecide(list, pages.budget)}` };
  const wanted = new Set(window.list.items.filter((e) => c.judged(e) && c.matches(e)).map((e) => e.id));
  const judged = new Set(window.list.items.filter(c.judged).map((e) => e.id));
  const all = new Set(window.list.ids);
  const exact =
    narrowed.complete && narrowed.ids.every((id) => all.has(id)) && sorted(narrowed.ids.filter((id) => judged.has(id))).join() === sorted([...wanted]).join();
  if (exact) return { walk: head };
  return {
    walk: head,
    undecided: narrowed.complete
      ? `${partial}; narrowed to ${window.query.slice(1)}, it did not answer that window's list filtered (filters combined otherwise than AND? filters.oracle judges that); ${wouldDecide(list, pages.budget)}`
      : `${partial}; narrowed to ${window.query.slice(1)}, it still has more than ${pages.budget} pages; ${wouldDecide(narrowed, pages.budget)}`,
  };
}

/**
 * A window of two created days, of the days the sample of a partial list holds, whose unfiltered list
 * ends within the budget: the universe a filter is narrowed to, or why there is none. The dates' time
 * zone and bounds are not shown (4.4): the window is whatever the target answers for it, and a filter
 * within it is compared with that same answer.
 */
export async function createdWindow(pages: Pager, list: Walk, limit: number): Promise<Window | string> {
  const days = [...new Set(list.items.filter((e) => typeof e?.createdTime === 'number').map((e) => isoDay(ms(e.createdTime))))].sort();
  if (days.length === 0) return 'no experiment of the sample carries createdTime to narrow by';
  const day = days[Math.floor(days.length / 2)];
  const next = isoDay(Date.parse(`${day}T00:00:00Z`) + DAY);
  const query = `&createdStartDate=${day}&createdEndDate=${next}`;
  const w = await narrowingWalk(() => pages.walk(limit, query));
  if (typeof w === 'string') return `the window ${query.slice(1)} was ${w}`;
  if (!w.complete) return `the window ${query.slice(1)} also has more than ${pages.budget} pages`;
  if (w.ids.length === 0) return `the window ${query.slice(1)} lists no experiment`;
  return { query, list: w };
}

/**
 * Pages of a small limit are disjoint and together the full list: the union is judged only when both
 * walks ended within the budget; otherwise it is returned as undecided (the disjointness is judged on
 * what was walked). `noun` names the items.
 */
export function expectDisjointUnion(full: Walk, small: Walk, noun: string, budget: number): string | undefined {
  expect(new Set(small.ids).size, `no ${noun} appears on two pages`).toBe(small.ids.length);
  if (!full.complete || !small.complete)
    return `the list has more than ${budget} pages at ${full.complete ? 'the small' : 'the largest'} page size: whether the pages together hold exactly the full list is not verifiable; ${wouldDecide(full.complete ? small : full, budget)}`;
  expect(sorted(small.ids), 'the pages together hold exactly the full list').toEqual(sorted(full.ids));
  return undefined;
}
