// List oracles that hold at any size of list and any page cap. A list that ends within the list budget
// (support/paging.ts) is walked whole and judged exactly. A longer one is judged at depth
// (support/depth.ts): its end found by page number, pages drawn across its whole depth with the run's
// seed, every item of every page drawn judged against the filter, and experiments drawn from the whole
// unfiltered list looked for in the filter's answer narrowed to their own day. Two answers of one server
// that contradict each other fail the clause they break; only what the budget could not reach on a server
// that answered consistently is left not verifiable, with the budget that would decide it.
import { expect } from './suite-test.ts';
import { checkAs } from './blame.ts';
import { acrossDepth, paginationContradictions, paginationOf, pick, shortPages, type ListEnd, type Probe } from './depth.ts';
import { pagesNeeded, RefusedPage, twoPages, type Pager, type Walk } from './paging.ts';
import type { Json } from '../../core/json.ts';
import { createdMs, isoDay } from '../../core/experiment-filters.ts';

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
// Timestamps' unit is not shown (spec 2.2): read as core/experiment-filters.ts reads them.
const ms = createdMs;

/** One filter as a check asks it: its query and what it means. */
export interface FilterCase {
  /** The query it adds, `&status=active`. */
  query: string;
  /** How a failure names it, `status=active`. */
  what: string;
  /** Whether an experiment can be judged: it carries the filtered field (a listed field's presence is only inferred). */
  judged: (e: Json) => boolean;
  matches: (e: Json) => boolean;
  /** A filter of created dates: not narrowed by a window of created dates (its membership is judged only on a list walked whole). */
  dates?: true;
}

/** What a filter check found: the filtered walk it judged, and why it could not decide when it could not. */
export interface Judged {
  walk: Walk;
  undecided?: string;
}

/** How a list longer than the budget is judged at depth. */
export interface DepthOptions {
  /** The run's seed mixed with what is drawn (support/depth.ts, drawing). */
  random: () => number;
  /** The list's pagination clause, which a page's pagination that contradicts where the list ends fails (a stated test's). */
  pagination?: string;
}

export interface JudgeOptions {
  /** The largest page size the target accepts: a partial list's filter is read at it. */
  limit: number;
  depth: DepthOptions;
  /** Runs the filter's first read, whose refused first page is then that clause's (a status of 4.4 refused, say). */
  first?: <X>(read: () => Promise<X>) => Promise<X>;
}

/** The budget that would let `w` end, as a reason's tail. */
function wouldDecide(w: Walk, budget: number): string {
  const n = pagesNeeded(w);
  return n !== undefined && n > budget ? `CONSOLE_LIST_BUDGET=${n} would decide it` : `a CONSOLE_LIST_BUDGET above ${budget} would decide it`;
}

/** Every item of a filtered read that can be judged matches the filter: sound on any part of any list. */
function expectEveryItemMatches(items: Json[], c: FilterCase, where = ''): void {
  const wrong = items.filter((e) => c.judged(e) && !c.matches(e)).map((e) => e.id);
  expect(wrong, `${c.what}: experiments that do not match the filter${where}`).toEqual([]);
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
    expect(missing, `${c.what}: experiments drawn from the unfiltered list that match, missing from the filtered list`).toEqual([]);
  }
}

/** A page as a failure message names it. */
const named = (p: Probe, end: ListEnd) => `GET ${p.reply.exchange.path} (page ${p.index + 1} at limit ${end.limit})`;

/**
 * What a list's pages say of themselves, held to where it was found to end: a pagination that contradicts
 * it fails the list's pagination clause (`pagination`, stated); a page before the last holding fewer items
 * than the first is a gap (`gaps`: paging.disjointUnion, inferred). Each where the test names it.
 */
export function expectEndHolds(end: ListEnd, pagination?: string, gaps?: string): void {
  if (pagination) {
    const found = paginationContradictions(end);
    checkAs(pagination, () =>
      expect(
        found.map((f) => `${f.message} (${f.replies.map((r) => `GET ${r.exchange.path}: ${r.status}`).join('; ')})`),
        'the pagination says what the pages hold',
      ).toEqual([]),
    );
  }
  if (gaps)
    checkAs(gaps, () =>
      expect(
        shortPages(end).map((p) => `${named(p, end)} holds ${p.items.length} items, the first page ${end.size}, and page ${end.last + 1} still holds items`),
        'pages before the last are full',
      ).toEqual([]),
    );
}

/**
 * Pages drawn across the depth of a list too long to walk: each is disjoint from the page after it, holds
 * the same items as the same range read at half the page size, and the list ends after as many items at
 * both sizes (paging.disjointUnion: no duplicates or gaps, at any depth). `noun` names the items.
 */
export async function expectPagesAgreeAtDepth(pages: Pager, end: ListEnd, random: () => number, noun: string): Promise<void> {
  if (end.last < 1) return;
  const { limit, size } = end;
  const half = size >= 2 && size % 2 === 0 ? size / 2 : undefined;
  for (const i of acrossDepth(end.last, 3, random).filter((x) => x < end.last)) {
    const page = await pages.read(limit, i);
    const next = await pages.read(limit, i + 1);
    const shared = page.ids.filter((id) => next.ids.includes(id));
    expect(shared, `${noun}s on both ${named(page, end)} and ${named(next, end)}`).toEqual([]);
    if (!half || page.items.length !== size) continue;
    const a = await pages.read(half, 2 * i);
    const b = await pages.read(half, 2 * i + 1);
    expect(
      sorted([...a.ids, ...b.ids]),
      `${named(page, end)} holds the same ${noun}s as pages ${2 * i + 1} and ${2 * i + 2} at limit ${half} (GET ${a.reply.exchange.path}, GET ${b.reply.exchange.path})`,
    ).toEqual(sorted(page.ids));
  }
  // The pages hold as many items as the pagination counts: fewer is a gap somewhere in the depth, more a
  // duplicate (a total may be an estimate: inferred, as the union of the pages is).
  const total = paginationOf(end.probes.get(0)!.reply.body).total;
  if (total !== undefined && end.count !== undefined)
    expect(end.count, `the pages at limit ${limit} hold ${end.count} ${noun}s to page ${end.last + 1}, the pagination counts ${total}`).toBe(total);
  if (half && end.count !== undefined) {
    const other = await pages.end(half);
    if (other.count !== undefined)
      expect(
        other.count,
        `the list ends after ${end.count} ${noun}s at limit ${limit} (page ${end.last + 1}) and after ${other.count} at limit ${half} (page ${other.last + 1})`,
      ).toBe(end.count);
  }
}

/** The pages of a list (with `extra`) drawn across its whole depth at `limit`: its end, and every page read that holds items. */
export async function drawAcrossDepth(pages: Pager, limit: number, extra: string, random: () => number, draws = 3): Promise<{ end: ListEnd; read: Probe[] }> {
  const end = await pages.end(limit, extra);
  const drawn = acrossDepth(end.last, draws, random);
  // One at a time, as a client pages: a burst of deep pages is not what the target is being asked to serve.
  for (const i of drawn) await pages.read(limit, i, extra);
  const read = await Promise.all([...new Set([...end.probes.keys(), ...drawn])].map((i) => pages.read(limit, i, extra)));
  return { end, read: read.filter((p) => p.kind === 'items').sort((a, b) => a.index - b.index) };
}

/** A partial list as a walk: the pages read of it, in order of their depth. */
export function sampleWalk(read: Probe[]): Walk {
  const items = read.flatMap((p) => p.items);
  return {
    ids: items.map((x) => x.id),
    items,
    pages: read.length,
    pageSizes: read.map((p) => p.items.length),
    complete: false,
    replies: read.map((p) => p.reply),
  };
}

/** The unfiltered list as the checks judge it, and where it ends. */
export interface ListSample {
  /** Walked whole when it ends within the budget; else its pages drawn across its whole depth (`complete` false). */
  list: Walk;
  end: ListEnd;
  /** The pages drawn, by their index, when the list was not walked whole ([] when it was). */
  read: Probe[];
}

export async function listSample(pages: Pager, limit: number, random: () => number): Promise<ListSample> {
  const end = await pages.end(limit);
  if (end.count !== undefined && end.last + 2 <= pages.budget) {
    const list = await pages.walk(limit);
    if (list.complete) return { list, end, read: [] };
  }
  const { read } = await drawAcrossDepth(pages, limit, '', random, 4);
  return { list: sampleWalk(read), end, read };
}

const nextDay = (d: string, n = 1) => isoDay(Date.parse(`${d}T00:00:00Z`) + n * DAY);

/**
 * Experiment `e`, which matches the filter, is in the filter's answer narrowed to its own created day.
 * The day's time zone and bounds are not shown (4.4), so the one-day window is not assumed to hold `e`:
 * its answer, read whole, must hold `e` when it holds experiments created both before and after it (a
 * window of dates is an interval of time, whatever its zone). Otherwise the window from two days before
 * to two days after is read: it holds `e`'s time in any zone within a day of UTC, with its bounds
 * included or not, so `e` must be in it. Returns why it could not decide, or nothing when it held.
 */
async function expectMember(pages: Pager, c: FilterCase, e: Json, limit: number): Promise<string | undefined> {
  const t0 = ms(e.createdTime);
  const d = isoDay(t0);
  const seen = `${c.what}: experiment ${e.id} (created ${new Date(t0).toISOString()}) is in the unfiltered list and matches the filter, but the filter narrowed to`;
  const narrowed = async (from: string, to: string): Promise<{ query: string; w: Walk | string }> => {
    const query = `&createdStartDate=${from}&createdEndDate=${to}`;
    return { query, w: await narrowingWalk(() => pages.walk(limit, `${query}${c.query}`)) };
  };
  const undecidedBy = (query: string, w: Walk | string) =>
    typeof w === 'string'
      ? `${c.what} narrowed to ${query.slice(1)} was ${w}`
      : w.items.some((x) => c.judged(x) && !c.matches(x))
        ? `${c.what} narrowed to ${query.slice(1)} answers experiments that do not match ${c.what}: the target combines filters otherwise than AND (filters.oracle judges that), so no narrowed answer can decide it`
        : `${c.what} narrowed to ${query.slice(1)} has more than ${pages.budget} pages; ${wouldDecide(w, pages.budget)}`;
  const day = await narrowed(d, nextDay(d));
  if (typeof day.w !== 'string' && day.w.complete) {
    if (day.w.ids.includes(e.id)) return undefined;
    const times = day.w.items
      .map((x) => x?.createdTime)
      .filter((x): x is number => typeof x === 'number')
      .map(ms);
    if (times.some((x) => x <= t0) && times.some((x) => x >= t0))
      expect(day.w.ids, `${seen} ${day.query.slice(1)} lacks it while holding experiments created before and after it`).toContain(e.id);
  }
  const around = await narrowed(nextDay(d, -2), nextDay(d, 2));
  if (typeof around.w === 'string' || !around.w.complete) return undecidedBy(around.query, around.w);
  expect(around.w.ids, `${seen} ${around.query.slice(1)}, which holds its time in any time zone, lacks it`).toContain(e.id);
  return undefined;
}

/**
 * Judges one filter against the unfiltered `list` (whole, or a sample drawn across its depth). A whole list
 * gives the exact oracle: the filtered list, walked at a page size that spreads it over two pages, is
 * the list filtered. Against a sample, a filtered list that ends within the budget is walked whole: it
 * holds only matches, and every match of the sample. A longer one is judged at depth: pages drawn across
 * it hold only matches, its pagination agrees with where it ends, and two experiments of the sample that
 * match are in its answer narrowed to their own day.
 */
export async function judgeFilter(pages: Pager, list: Walk, c: FilterCase, how: JudgeOptions): Promise<Judged> {
  const { limit, depth } = how;
  const first = how.first ?? (<X>(read: () => Promise<X>) => read());
  const expected = list.items.filter((e) => c.judged(e) && c.matches(e)).length;
  if (list.complete) {
    const filtered = await first(() => pages.walk(twoPages(expected), c.query));
    expectEveryItemMatches(filtered.items, c);
    expectAgainst(filtered, list, c);
    if (filtered.complete) return { walk: filtered };
    return { walk: filtered, undecided: `${c.what}: the filtered list has more than ${pages.budget} pages; ${wouldDecide(filtered, pages.budget)}` };
  }
  const end = await first(() => pages.end(limit, c.query));
  if (end.count !== undefined && end.last + 2 <= pages.budget) {
    const filtered = await pages.walk(limit, c.query);
    if (filtered.complete) {
      expectEveryItemMatches(filtered.items, c);
      expectAgainst(filtered, list, c);
      if (depth.pagination) expectEndHolds(end, depth.pagination);
      return { walk: filtered };
    }
  }
  const { read } = await drawAcrossDepth(pages, limit, c.query, depth.random);
  for (const p of read) expectEveryItemMatches(p.items, c, ` on page ${p.index + 1} of ${end.last + 1} (GET ${p.reply.exchange.path})`);
  if (depth.pagination) expectEndHolds(end, depth.pagination);
  if (c.dates)
    return {
      walk: sampleWalk(read),
      undecided: `${c.what}: whether it holds every experiment it should is judged only on a list walked whole; ${wouldDecide(sampleWalk(read), pages.budget)}`,
    };
  const drawn = pick(
    list.items.filter((e) => c.judged(e) && c.matches(e) && typeof e?.createdTime === 'number'),
    2,
    depth.random,
  );
  const undecided: string[] = [];
  for (const e of drawn) {
    const reason = await expectMember(pages, c, e, limit);
    if (reason) undecided.push(reason);
  }
  const walk = sampleWalk(read);
  if (drawn.length > 0 && undecided.length === drawn.length) return { walk, undecided: undecided.join('; ') };
  return { walk };
}

/** Whether every page read, in the order of their depth, lists experiments by createdTime descending or ascending. */
function createdOrder(read: Json[][]): 'descending' | 'ascending' | undefined {
  const times = read.flat().map((e) => (typeof e?.createdTime === 'number' ? ms(e.createdTime) : Number.NaN));
  if (times.length < 2 || times.some(Number.isNaN)) return undefined;
  if (times.every((t, i) => i === 0 || t <= times[i - 1])) return 'descending';
  if (times.every((t, i) => i === 0 || t >= times[i - 1])) return 'ascending';
  return undefined;
}

/**
 * A list found to end where its pages, in created order, still have older (or newer) experiments to list:
 * when every page read lists experiments by createdTime, an experiment created strictly before the last
 * page's last one (after it, for an ascending list) belongs after the last page, so a created-date filter
 * that answers one shows the list ended early (experiments.list.filters: a filter narrows the list). The
 * order is not shown (4.4): a list in no created order is not judged; only experiments of the statuses
 * the list itself shows count (a list may leave archived ones to their own filter).
 */
export async function expectNothingPastTheEnd(pages: Pager, end: ListEnd, read: Probe[]): Promise<void> {
  if (end.count === undefined || end.last < 1 || end.past?.kind === 'refused') return;
  const inOrder = [...read].sort((a, b) => a.index - b.index);
  if (inOrder.at(-1)?.index !== end.last) return;
  const order = createdOrder(inOrder.map((p) => p.items));
  if (!order) return;
  const lastItem = inOrder.at(-1)!.items.at(-1);
  const edge = ms(lastItem.createdTime);
  const statuses = new Set(inOrder.flatMap((p) => p.items.map((e) => e?.status)));
  const day = isoDay(edge + (order === 'descending' ? -2 : 2) * DAY);
  const query = order === 'descending' ? `&createdEndDate=${day}` : `&createdStartDate=${day}`;
  const probe = await pages.read(end.limit, 0, query);
  const beyond = probe.items.filter(
    (e) => typeof e?.createdTime === 'number' && statuses.has(e?.status) && (order === 'descending' ? ms(e.createdTime) < edge : ms(e.createdTime) > edge),
  );
  expect(
    beyond.map((e) => `${e.id} (created ${new Date(ms(e.createdTime)).toISOString()})`),
    `the list, in createdTime ${order} order on every page read, ends on page ${end.last + 1} (at limit ${end.limit}) with ${lastItem.id} created ${new Date(edge).toISOString()}, but GET ${probe.reply.exchange.path} answers experiments created ${order === 'descending' ? 'before' : 'after'} it: they belong past the last page`,
  ).toEqual([]);
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
