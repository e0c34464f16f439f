// The suite files that exercise each hand-written fault, for the self-test (which stops at the first
// failure in them) and the proof map (which runs them whole): data only, so that in-process tests read it.

// The suite files that exercise each fault (by name pattern). A fault with no entry runs the whole suite.
const FILES: [RegExp, string[]][] = [
  // Faults of inferred clauses whose tests are in another file than their name suggests.
  [/^(disable-500-after-write|success-text-plain|update-ignores-unknown-fields)$/, ['envelope']],
  [/^concurrent-write-500$/, ['gates', 'metrics']],
  [/^page-(past-last-repeats|order-unstable)$/, ['experiments']],
  [/^unknown-phase-skips-current$/, ['triggers']],
  [/^(errors-echo-headers|pipelines-not-under-v1)$/, ['auth']],
  [/^unknown-id-500$/, ['gates']],
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
];

/** The suite files (paths) that exercise a hand-written fault; [] for the whole suite. */
export function filesFor(fault: string): string[] {
  const match = FILES.find(([re]) => re.test(fault));
  return match ? match[1].map((f) => `contracts/conformance/${f}.spec.ts`) : [];
}
