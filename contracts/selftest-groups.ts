// The groups of legal variants that `conformance:selftest --grouped` (npm test) runs together, one
// server per group: data only, so that scripts/selftest-groups.test.ts can hold it to the reference's list.

/**
 * The legal variants that may share one server in a --grouped run: within a group no two touch the same
 * behaviour (no two error shapes, page rules or override rules), and none hides another's effect (a
 * server that refuses the suite's override groups would leave the merge variants unexercised, so it is
 * in a group without them). A group of one runs alone: a variant that changes every request (a rate
 * limit) or every write's timing would hide the others' effects, and alone names itself when it fails.
 */
/**
 * A large list, as real stagings hold: more experiments than the list budget (CONSOLE_LIST_BUDGET, 12
 * pages) can walk, at the largest page size and behind a page cap, is legal (the spec shows neither a size
 * nor a maximum page size) and must pass with every stated clause decided; the list faults must still be
 * caught at that size, those that live only past the first 10,000 items too. 50,000 experiments are 500
 * pages of 100 and 2,500 of 20, seeded in a few seconds.
 */
export const LARGE_LISTS = {
  scale: 50_000,
  variants: [[], ['page-cap:20'], ['deep-pages-refused'], ['created-time-ties']],
  faults: [
    'filter-status-ignored',
    'filtered-page-ignored',
    'filters-or-combined',
    'deep-filter-forgotten',
    'deep-pages-empty',
    'deep-boundary-repeats',
    'deep-boundary-skips',
    'count-capped',
    'old-dates-unreadable',
    'last-partial-page-dropped',
  ],
};

export const VARIANT_GROUPS: string[][] = [
  [
    'errors-422-other-shape',
    'default-limit-50',
    'overrides-merge',
    'create-metric-201',
    'dryrun-create-summary',
    'order-by-id',
    'rules-replace',
    'conditions-normalized',
    'timestamps-seconds',
    'extra-response-fields',
    'tags-brackets',
  ],
  [
    'errors-problem-json',
    'pages-from-0',
    'overrides-one-per-target',
    'metric-write-version',
    'overrides-toplevel-response',
    'pagination-other-fields',
    'unfiltered-hides-archived',
    'skip-message-other',
    'vendor-extra-fields',
  ],
  ['errors-plain-text', 'paging-out-of-range-400', 'created-dates-los-angeles', 'enum-values-beyond-seen'],
  ['unauthorized-403', 'overrides-known-groups-only', 'page-cap'],
  ['rules-cap', 'deep-pages-refused', 'created-time-ties'],
  ['steady-429'],
  ['write-conflict-409'],
];

/**
 * Variants whose run mostly waits: steady-429's refusals are waited out one second each (80 s of a run,
 * 8 s of it CPU, measured alone). Such a run takes no lane of the self-test: it starts at once beside
 * the lanes, whose runs keep both cores busy while it waits, instead of holding one core idle.
 */
export const WAITING_VARIANTS: readonly string[] = ['steady-429'];
