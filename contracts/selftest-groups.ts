// The groups of legal variants that `conformance:selftest --grouped` (npm test) runs together, one
// server per group: data only, so that scripts/selftest-groups.test.ts can hold it to the reference's list.

/**
 * The legal variants that may share one server in a --grouped run: within a group no two touch the same
 * behaviour (no two error shapes, page rules or override rules), and none hides another's effect (a
 * server that refuses the suite's override groups would leave the merge variants unexercised, so it is
 * in a group without them). A group of one runs alone: a variant that changes every request (a rate
 * limit) or every write's timing would hide the others' effects, and alone names itself when it fails.
 */
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
  ['rules-cap'],
  ['steady-429'],
  ['write-conflict-409'],
];
