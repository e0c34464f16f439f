// Paging load profile: walks experiments (each limit, each filter) and release pipelines page
// by page, like a dashboard (page 1, a filter, sometimes page 2) and an export job (every page) would,
// plus a deep page. Run it with `npm run load:paging -- --profile smoke|baseline|stress`.
import { createdMs, createdRule, fieldRule, type FieldFilterName, isoDay } from '../core/experiment-filters.ts';
import type { Experiment, ListBody, ReleasePipeline } from './lib/bodies.ts';
import { CALIBRATION_ENDPOINT as CALIBRATION } from '../core/formats.ts';
import { calibrationScenario } from './lib/calibration.ts';
import { checkSuccess, checkThat, parse, transportReason } from './lib/checks.ts';
import { type ProfileName, STRICT } from './lib/env.ts';
import { ANY_STATUS, timedCall, query } from './lib/http.ts';
import { byProfile, ownArrivals, SHARED } from './lib/profiles.ts';
import type { Profile } from './lib/profile.ts';
import { count } from './lib/runtime.ts';
import { abort, checkTarget } from './lib/reachability.ts';
import { endpointThresholds, type Limits, type Thresholds, verdictThresholds } from './lib/thresholds.ts';
import { calibration } from './lib/calibration.ts';

/**
 * The page sizes the dashboard asks for in turn, and the export walk's: part of the profile's mix, so
 * written here only. Setup keeps those the target takes (the maximum is not shown, spec 4.4).
 */
const PAGE_SIZES = { limits: [10, 20, 50, 100], exportLimit: 100 };

const pagesWalked = 'paging_pages_walked';

interface PagingProfile {
  /** Iterations of the one export VU, and how many experiment pages each walks at most. */
  exportIterations: number;
  exportPages: number;
  /** Latency limits (ms) of a single page, of the export walk, and of the calibration request. */
  page: Limits;
  walk: Limits;
  calibration: Limits;
}

const PROFILE_TABLE: Record<ProfileName, PagingProfile> = {
  smoke: {
    exportIterations: 1,
    exportPages: 5,
    page: { p95: 500, p99: 1000 },
    walk: { p95: 800, p99: 1500 },
    calibration: { p95: 300, p99: 600 },
  },
  baseline: {
    exportIterations: 3,
    exportPages: 40,
    page: { p95: 300, p99: 600 },
    walk: { p95: 500, p99: 1000 },
    calibration: { p95: 100, p99: 200 },
  },
  stress: {
    exportIterations: 4,
    exportPages: 60,
    page: { p95: 1500, p99: 3000 },
    walk: { p95: 2000, p99: 4000 },
    calibration: { p95: 1000, p99: 2000 },
  },
};
const P = byProfile(PROFILE_TABLE);

// The mix of jobs: twice as many dashboards as deep pages, at the rate of the profile's shape file
// (load/shapes/paging.<profile>.yml), the one export walk beside them.
const own = ownArrivals('paging', { dashboard: { exec: 'dashboard', weight: 2 }, deep: { exec: 'deepPage', weight: 1 } }, 1);
const scenarios = {
  ...own.scenarios,
  export: { kind: 'sequence' as const, exec: 'exportWalk', iterations: P.exportIterations },
  [CALIBRATION]: calibrationScenario(own.seconds),
};
/** The latency limits (ms) of each endpoint the profile times: every one is in the summary, with its count (0 when none ran). */
const endpointLimits: Record<string, Limits> = {
  'listExperiments.page1': P.page,
  'listExperiments.filter': P.page,
  'listExperiments.deep': P.page,
  'listExperiments.walk': P.walk,
  listReleasePipelines: P.page,
  [CALIBRATION]: P.calibration,
};

const thresholds: Thresholds = {
  http_req_failed: [{ stat: 'rate', op: '<', value: 0.01 }],
  ...verdictThresholds(SHARED.checks, STRICT, SHARED.maxEndpointErrorRate),
  ...endpointThresholds(endpointLimits, SHARED.maxEndpointErrorRate),
};

/** The list filters the profile exercises; teamID is left out (see learnFilters). */
type FilterName = FieldFilterName | 'createdStartDate';
interface Filter {
  name: FilterName;
  /** The value items must match; `params` is how it is asked for. */
  value: string;
  params: Record<string, string>;
}
interface Setup {
  filters: Filter[];
  deepPage: number;
  deepLimit: number;
  /** The page sizes of PAGE_SIZES the target takes (a larger one may be refused: the maximum is not shown, spec 4.4). */
  limits: number[];
  exportLimit: number;
}

const DAY = 86_400_000;

/**
 * Filter values are learned from the target's own first page, so the profile needs no knowledge of
 * the data. teamID is left out: experiments do not return their team (spec 2.5), so no value is known.
 */
function learnFilters(items: Experiment[]): Filter[] {
  const first = <T>(f: (e: Experiment) => T | null | undefined): T | undefined => {
    for (const e of items) {
      const v = f(e);
      if (v !== null && v !== undefined && v !== '') return v;
    }
    return undefined;
  };
  const out: Filter[] = [];
  const add = (name: FilterName, value: string | undefined, extra: Record<string, string> = {}) => {
    if (value !== undefined) out.push({ name, value, params: { [name]: value, ...extra } });
  };
  add(
    'status',
    first((e) => e.status),
  );
  add(
    'idType',
    first((e) => e.idType),
  );
  add(
    'layerID',
    first((e) => e.layerID),
  );
  add(
    'targetAppID',
    first((e) => (Array.isArray(e.targetApps) && typeof e.targetApps[0] === 'string' ? e.targetApps[0] : undefined)),
  );
  add(
    'creatorID',
    first((e) => e.creatorID),
  );
  add(
    'creatorName',
    first((e) => e.creatorName),
  );
  add(
    'tags',
    first((e) => (Array.isArray(e.tags) ? e.tags[0] : undefined)),
  );
  const created = first((e) => e.createdTime);
  if (typeof created === 'number') {
    const ms = createdMs(created);
    add('createdStartDate', isoDay(ms - 7 * DAY), { createdEndDate: isoDay(ms) });
  }
  return out;
}

/**
 * Whether an item answered for filter `f` matches it: true, false, or undefined when the item cannot be
 * judged (it does not carry the field: its presence is only inferred, docs/presence.md). The rules are
 * the conformance suite's (core/experiment-filters.ts).
 */
function matcher(f: Filter): (e: Experiment) => boolean | undefined {
  const rule = f.name === 'createdStartDate' ? createdRule({ start: f.params.createdStartDate, end: f.params.createdEndDate }) : fieldRule(f.name, f.value);
  return (e) => (rule.judged(e) ? rule.matches(e) : undefined);
}

/**
 * The tags filter in the encoding the target reads: its type and encoding are not shown (4.4), and a
 * server may read tags[]=x or a JSON list where the suite would send tags=x. The first encoding whose
 * first page holds only tagged experiments and differs from the unfiltered first page is used, as in
 * the conformance suite; when none does, tags=x, and its inferred check says what came back.
 */
async function tagsAsTheTargetReadsThem(f: Filter, unfiltered: Experiment[]): Promise<Filter> {
  const all = unfiltered.map((e) => String(e.id)).join(',');
  const encodings: Record<string, string>[] = [{ tags: f.value }, { 'tags[]': f.value }, { tags: JSON.stringify([f.value]) }];
  for (const params of encodings) {
    const res = await timedCall('GET', `/console/v1/experiments${query({ ...params, limit: unfiltered.length })}`, { endpoint: 'setup', expected: ANY_STATUS });
    const items = transportReason(res) || res.status !== 200 ? undefined : (parse(res) as ListBody<Experiment> | undefined)?.data;
    if (!Array.isArray(items) || items.length === 0) continue;
    const tagged = items.every((e) => Array.isArray(e.tags) && e.tags.indexOf(f.value) >= 0);
    if (tagged && items.map((e) => String(e.id)).join(',') !== all) return { ...f, params };
  }
  return f;
}

/**
 * The clause of each filter's check, as in the conformance suite; the encoding of tags and the bounds of
 * dates are not shown (4.4), so those two are held to the inferred filters.oracle.
 */
const FILTER_CLAUSE: Record<FilterName, string> = {
  status: 'experiments.list.filters',
  idType: 'experiments.list.filter.idType',
  layerID: 'experiments.list.filter.layerID',
  targetAppID: 'experiments.list.filter.targetAppID',
  creatorID: 'experiments.list.filter.creatorID',
  creatorName: 'experiments.list.filter.creatorName',
  tags: 'filters.oracle',
  createdStartDate: 'filters.oracle',
};

async function listExperiments(endpoint: string, params: Record<string, string | number | undefined>): Promise<Experiment[] | undefined> {
  const res = await timedCall('GET', `/console/v1/experiments${query(params)}`, { endpoint });
  const body = checkSuccess<ListBody<Experiment>>('listExperiments', endpoint, res);
  if (!body) return undefined;
  // Without a limit the page size is the target's default (not shown, 4.4): nothing to hold it to.
  if (params.limit !== undefined) checkThat(endpoint, 'page holds at most limit items', body.data.length <= Number(params.limit), 'paging.limit');
  return body.data;
}

/**
 * A list page setup needs. A page that fails its checks still serves when it holds a data array: the
 * failed check counts (a stated one fails the run, exit 1), where stopping here would say only that
 * the run could not be carried out. No usable answer, or no data array, stops the run with the reason.
 */
async function setupAnswer(what: string, path: string): Promise<ListBody<Experiment>> {
  const res = await timedCall('GET', path, { endpoint: 'setup', expected: ANY_STATUS });
  const network = transportReason(res);
  if (network) abort(`${what}: no usable answer: ${network}`);
  const body = checkSuccess<ListBody<Experiment>>('listExperiments', 'setup', res) ?? (parse(res) as ListBody<Experiment> | undefined);
  if (!body || !Array.isArray(body.data)) abort(`${what}: HTTP ${res.status} without a data array: see the check failure above`);
  return body as ListBody<Experiment>;
}

/**
 * The largest page size of PAGE_SIZES that the target takes: a target may refuse a limit above its maximum
 * with a 4xx instead of clamping it (spec 4.4: the maximum is not shown). undefined when it takes none.
 */
async function largestLimit(): Promise<{ limit: number | undefined; first: ListBody<Experiment> }> {
  const sizes = PAGE_SIZES.limits
    .concat([PAGE_SIZES.exportLimit])
    .filter((n, k, all) => all.indexOf(n) === k)
    .sort((a, b) => b - a);
  for (const limit of sizes) {
    const res = await timedCall('GET', `/console/v1/experiments${query({ limit })}`, { endpoint: 'setup', expected: ANY_STATUS });
    const network = transportReason(res);
    if (network) abort(`list experiments (limit ${limit}): no usable answer: ${network}`);
    if (res.status >= 400 && res.status < 500) continue;
    return { limit, first: await setupAnswer(`list experiments (limit ${limit})`, `/console/v1/experiments${query({ limit })}`) };
  }
  return { limit: undefined, first: await setupAnswer('list experiments (no limit)', '/console/v1/experiments') };
}

async function setup(): Promise<Setup> {
  await checkTarget();
  const { limit: largest, first: body } = await largestLimit();
  if (body.data.length === 0) abort('the target lists no experiments: the paging profile needs some');
  if (largest === undefined) abort(`the target refuses every page size of ${PAGE_SIZES.limits.join(', ')} with a 4xx`);
  const limits = PAGE_SIZES.limits.filter((n) => n <= (largest as number));
  if (largest !== PAGE_SIZES.exportLimit) console.warn(`setup: the target refuses list limits above ${largest}: pages of ${limits.join(', ')} only`);
  const deepLimit = Math.min(20, largest as number);
  // totalItems is the reference's pagination field (a "not shown" item, spec 2.1); without it the last
  // page is found by doubling then bisecting, which needs no pagination fields at all.
  let last: number;
  const total = body.pagination?.totalItems;
  if (typeof total === 'number') {
    last = Math.max(1, Math.ceil(total / deepLimit));
  } else {
    const nonEmpty = async (p: number) =>
      (await setupAnswer(`list experiments (page ${p})`, `/console/v1/experiments${query({ limit: deepLimit, page: p })}`)).data.length > 0;
    let hi = 2;
    while ((await nonEmpty(hi)) && hi < 1 << 20) hi *= 2;
    let lo = hi / 2;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await nonEmpty(mid)) lo = mid;
      else hi = mid;
    }
    last = lo;
  }
  // "Deep" is 90% of the way down: far from the first pages, still a full page.
  const filters: Filter[] = [];
  for (const f of learnFilters(body.data)) filters.push(f.name === 'tags' ? await tagsAsTheTargetReadsThem(f, body.data) : f);
  return {
    filters,
    deepPage: Math.max(1, Math.floor(last * 0.9)),
    deepLimit,
    limits,
    exportLimit: Math.min(PAGE_SIZES.exportLimit, largest as number),
  };
}

/** Whether every item of `items` that can be judged matches `match` (an item without the field cannot be). */
const allMatch = (items: Experiment[], match: (e: Experiment) => boolean | undefined) => items.every((e) => match(e) !== false);

/** A dashboard view: page 1 unfiltered, or one filter at one limit, sometimes its page 2; now and then the pipelines. */
async function dashboard(s: Setup, i: number): Promise<void> {
  const slot = i % (s.filters.length + 1);
  if (slot === 0) {
    await listExperiments('listExperiments.page1', {});
  } else {
    const f = s.filters[slot - 1];
    const limit = s.limits[Math.floor(i / (s.filters.length + 1)) % s.limits.length];
    const match = matcher(f);
    const clause = FILTER_CLAUSE[f.name];
    const page1 = await listExperiments('listExperiments.filter', { ...f.params, limit });
    if (page1) checkThat('listExperiments.filter', `every item matches filter ${f.name}`, allMatch(page1, match), clause);
    if (page1 && page1.length === limit && i % 3 === 0) {
      const page2 = await listExperiments('listExperiments.filter', { ...f.params, limit, page: 2 });
      if (page2) {
        checkThat('listExperiments.filter', `every item matches filter ${f.name}`, allMatch(page2, match), clause);
        const seen: Record<string, true> = {};
        for (const e of page1) seen[String(e.id)] = true;
        checkThat(
          'listExperiments.filter',
          'page 2 shares no item with page 1',
          page2.every((e) => !seen[String(e.id)]),
          'paging.disjointUnion',
        );
      }
    }
  }
  if (i % 5 === 0) {
    const limit = Math.min(10, s.exportLimit);
    const body = checkSuccess<ListBody<ReleasePipeline>>(
      'listReleasePipelines',
      'listReleasePipelines',
      await timedCall('GET', `/console/v1/release_pipelines${query({ limit })}`, { endpoint: 'listReleasePipelines' }),
    );
    if (body) checkThat('listReleasePipelines', 'page holds at most limit items', body.data.length <= limit, 'paging.limit');
  }
}

async function deepPage(s: Setup): Promise<void> {
  const items = await listExperiments('listExperiments.deep', { limit: s.deepLimit, page: s.deepPage });
  // Inferred: a page short of the limit before the last page says the pages do not cover the list.
  if (items) checkThat('listExperiments.deep', 'deep page is a full page', items.length === s.deepLimit, 'paging.disjointUnion');
}

/** An export job: every page of the pipelines, then experiments page by page up to a bound; no page repeats an item. */
async function exportWalk(s: Setup): Promise<void> {
  const seen: Record<string, true> = {};
  let dup = 0;
  for (let page = 1; page <= 1000; page++) {
    const body = checkSuccess<ListBody<ReleasePipeline>>(
      'listReleasePipelines',
      'listReleasePipelines',
      await timedCall('GET', `/console/v1/release_pipelines${query({ limit: s.exportLimit, page })}`, { endpoint: 'listReleasePipelines' }),
    );
    if (!body) break;
    count(pagesWalked, 1);
    for (const p of body.data) {
      if (seen[String(p.id)]) dup++;
      seen[String(p.id)] = true;
    }
    if (body.data.length < s.exportLimit) break;
  }
  checkThat('listReleasePipelines', 'pages share no item', dup === 0, 'paging.disjointUnion');
  const ids: Record<string, true> = {};
  dup = 0;
  for (let page = 1; page <= P.exportPages; page++) {
    const items = await listExperiments('listExperiments.walk', { limit: s.exportLimit, page });
    if (!items) break;
    count(pagesWalked, 1);
    for (const e of items) {
      if (ids[String(e.id)]) dup++;
      ids[String(e.id)] = true;
    }
    if (items.length < s.exportLimit) break;
  }
  checkThat('listExperiments.walk', 'pages share no item', dup === 0, 'paging.disjointUnion');
}

export const paging: Profile<Setup> = {
  name: 'paging',
  scenarios,
  thresholds,
  endpoints: Object.keys(endpointLimits),
  setup,
  jobs: { dashboard, deepPage, exportWalk, calibration },
};
