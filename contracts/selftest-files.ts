// The suite files that exercise each hand-written fault, for the self-test (which stops at the first
// failure in them) and the proof map (which runs them whole): data only, so that in-process tests read it.

// The suite files that exercise each fault (by name pattern). A fault with no entry runs the whole suite.
const FILES: [RegExp, string[]][] = [
  // Faults of inferred clauses whose tests are in another file than their name suggests.
  [/^(disable-500-after-write|success-text-plain|update-ignores-unknown-fields)$/, ['envelope']],
  [/^concurrent-write-500$/, ['gates', 'metrics']],
  [/^page-(past-last-repeats|order-unstable)$/, ['experiments']],
  [/^(deep-|count-capped|old-dates-unreadable|last-partial-page-dropped)/, ['experiments']],
  [/^unknown-phase-skips-current$/, ['triggers']],
  [/^(errors-echo-headers|pipelines-not-under-v1)$/, ['auth']],
  [/^unknown-id-500$/, ['gates']],
  // A 500 to a request sent only to observe (a condition operator the spec leaves open): any answer is judged.
  [/^observed-operator-500$/, ['gates']],
  [/^gate-rules-lost-on-overlap$/, ['gates']],
  // The general clauses of spec 1, 2 and 4.0: a list that is no object shows on the list's first test; the
  // envelope of every operation is envelope.spec.ts's; the case of a rule's field, the media type of a
  // body and the optional review header are met first in gates.spec.ts.
  [/^pipelines-bare-array$/, ['pipelines']],
  [/^update-metric-unwrapped$/, ['envelope']],
  [/^(add-rules-baseid-camelcase|json-body-charset-required|enable-review-header-required)$/, ['gates']],
  // The optional review header is sent once on each write, by the files that own its resources.
  [/^review-header-500$/, ['gates', 'metrics', 'overrides', 'triggers']],
  // Skip and unpause without a key show only where the current phase is found.
  [/^auth-(skip|unpause)-/, ['triggers']],
  [/^auth-/, ['auth']],
  [/add-rules|gate-updated|disable-|^rules-/, ['gates']],
  [/page-overlap|limit-ignored|pagination-missing/, ['experiments', 'pipelines']],
  [/experiments|^filter|created-time|envelope-data/, ['experiments']],
  [/pipelines/, ['pipelines']],
  [/metric|directionality/, ['metrics']],
  [/overrides/, ['overrides']],
  [/phaseid|^trigger-/, ['triggers']],
  [/validation-500/, ['negative', 'metrics']],
  [/^teamid-500$/, ['experiments']],
  [/^(skip|unpause)-answers-pipeline$/, ['triggers']],
];

/** The suite files (paths) that exercise a hand-written fault; [] for the whole suite. */
export function filesFor(fault: string): string[] {
  const match = FILES.find(([re]) => re.test(fault));
  return match ? match[1].map((f) => `contracts/conformance/${f}.spec.ts`) : [];
}

/**
 * Faults the suite catches only with an option that is off by default, and the environment that turns it
 * on: wrong keys derived from the real one are sent only with --auth-probes derived (for a throwaway
 * key), so a server that compares keys ignoring case or by a prefix passes a default run, on purpose.
 */
const FAULT_OPTIONS: [RegExp, NodeJS.ProcessEnv][] = [[/^auth-key-(case-insensitive|prefix-only)$/, { CONSOLE_AUTH_PROBES: 'derived' }]];

/** The environment a hand-written fault is caught with beside the self-test's own ({} for most). */
export function optionsFor(fault: string): NodeJS.ProcessEnv {
  return FAULT_OPTIONS.find(([re]) => re.test(fault))?.[1] ?? {};
}

/**
 * Legal variants that leave stated clauses undecided, and the waiver a user of such a target writes: a
 * server that keeps only an experiment's own groups refuses the suite's marker groups, so what a patch
 * keeps cannot be told on it. Undecided is never a pass: without the waiver the run is INCOMPLETE.
 */
const VARIANT_OPTIONS: [RegExp, NodeJS.ProcessEnv][] = [
  [
    /^overrides-known-groups-only$/,
    {
      CONSOLE_WAIVE: [
        "overrides.patch.persisted=the target keeps only an experiment's own groups: the suite's marker groups are refused",
        "overrides.patch.response.items=the target keeps only an experiment's own groups: the suite's marker groups are refused",
      ].join('\n'),
    },
  ],
];

/** The environment a run of legal variants needs beside the self-test's own: the waivers of each. */
export function variantOptions(variants: string[]): NodeJS.ProcessEnv {
  const waive = variants.flatMap((v) => VARIANT_OPTIONS.filter(([re]) => re.test(v)).map(([, env]) => env.CONSOLE_WAIVE ?? ''));
  return waive.length ? { CONSOLE_WAIVE: waive.filter(Boolean).join('\n') } : {};
}
