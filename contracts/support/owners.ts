// Who writes what on a target: the ownership map of the manifest's resources.
//
// The suite runs fullyParallel on two workers (playwright.config.ts), so tests of different files, and
// of one file, run at the same moment. A target may refuse a write to a resource while another write to
// that same resource is in flight (a 409 or any 4xx: failure codes are not shown, spec 7), and a test that
// met such a refusal would read it as a contract failure, a lost write or, for a trigger, as "not the
// current phase". So each resource has one owner, and two tests that can run at the same time never
// write the same resource:
//
// | resource              | owner                                                                              |
// |-----------------------|------------------------------------------------------------------------------------|
// | gates[0]              | gates.spec.ts (its tests in order, in one worker): add rules (read back by an      |
// |                       | enable), a rule without                                                            |
// |                       | environments, disable, rejected rules, concurrent adds                             |
// | gates[1]              | gates.spec.ts: keep-or-replace, every rule field, enable                           |
// | gates[2]              | envelope.spec.ts (in order)                                                        |
// | gates[3]              | auth.spec.ts                                                                       |
// | experiments[0]        | overrides.spec.ts (in order; the most overrides read back by a patch of no item;   |
// |                       | three concurrent patches, then a patch of no item)                                 |
// | experiments[1]        | envelope.spec.ts                                                                   |
// | experiments[2]        | auth.spec.ts                                                                       |
// | every trigger         | triggers.spec.ts (in order): the current phase is found by trying them all         |
// | the worker's metric   | the tests of one worker, one at a time (worker-metric.ts)                          |
// | a metric a test makes | that test                                                                          |
//
// A write is any request with the key and a write method to the resource, accepted or refused: a target
// may take its lock before it validates the body, so the generated bad bodies of negative data go to
// each resource from the file that owns it (negative.ts). A request without the right key is refused at
// authentication (spec 5) and starts no write; auth.spec.ts sends its probes to its own gate and
// experiment all the same, and to a trigger id no target has (triggers.spec.ts probes the real ones
// without the key where their current phase is found). Ids that exist nowhere (cc_missing_...) are
// nobody's. A test whose subject is concurrency writes its own resource from several requests at once
// and takes a 4xx as a refusal, never as a lost write.
//
// Rules one run adds (a target that takes every rule sent, as the reference does): gates[0] 7 (2 + 1
// + 4 concurrent; the disable test adds one only when the gate carries no rule without environments),
// gates[1] 7 (2 for keep-or-replace, 4 observed, 1 with every field), gates[2] and gates[3] none. A
// manifest with fewer gates or experiments makes owners share (index modulo the count): its resources
// then take the sum, and a target that refuses concurrent writes may refuse some of the suite's.
import type { Manifest } from '../../core/config.ts';

const GATES = { gatesA: 0, gatesB: 1, envelope: 2, auth: 3 } as const;
const EXPERIMENTS = { overrides: 0, envelope: 1, auth: 2 } as const;

/** The manifest gate `owner` writes (the map above). */
export const gateOf = (m: Manifest, owner: keyof typeof GATES): string => m.gates[GATES[owner] % m.gates.length];

/** The manifest experiment `owner` writes (the map above). */
export const experimentOf = (m: Manifest, owner: keyof typeof EXPERIMENTS): string => m.experiments[EXPERIMENTS[owner] % m.experiments.length];

/**
 * The manifest experiment `owner` patches, when the manifest gives its overrides to the suite ("overrides":
 * "suite", core/config.ts); undefined otherwise. The spec has no read of overrides and does not say
 * whether a patch merges or replaces (4.11): on a target that replaces, any patch destroys the owners'.
 */
export const ownedExperimentOf = (m: Manifest, owner: keyof typeof EXPERIMENTS): string | undefined =>
  // Among the experiments given so, by the same map (owners share when there are fewer of them).
  m.overridesOwned.length > 0 ? m.overridesOwned[EXPERIMENTS[owner] % m.overridesOwned.length] : undefined;

/** Why overrides are not written to experiment `id`, with the fix (a resource the user can give). */
export const overridesNotOwned = (id: string) =>
  `experiment ${id}: the manifest does not give its overrides to the suite, and a patch may replace what its owners set (spec 4.11: merge or replace not shown; no read of overrides): to check overrides, write its entry as {"id": "${id}", "overrides": "suite"} for an experiment whose overrides may be overwritten`;
