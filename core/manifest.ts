// The target manifest's type, defined once (docs/architecture.md, "The target manifest"): what the suite
// may touch on a target it cannot create through the API. core/config.ts reads and checks the file into
// `Manifest`; the load, its paired runs and the reference's seed take the part they need with Pick<>.
// Types only, so a module bundled into Artillery's workers may import it without pulling in Node's fs.

/** A trigger the manifest gives the suite: its release pipeline and the phases a run may skip. */
export interface ManifestTrigger {
  id: string;
  releasePipelineID: string;
  phaseIDs: string[];
}

/** Clauses the user leaves out on purpose: a glob over clause ids (`*` any characters) and why. */
export interface Waiver {
  clauses: string;
  reason: string;
}

/**
 * What a run may consume of the target, where a resource is finite and the spec has no way to give it
 * back: trigger phases (a skipped phase stays skipped), metrics (no delete) and gate rules (no delete).
 * The conformance suite takes only what its stated clauses need; the load takes these, and against a
 * target other than the reference server it starts, nothing beyond them.
 */
export interface Budget {
  triggerPhasesPerRun: number;
  metricsPerRun: number;
  rulesPerGatePerRun: number;
}

/** A manifest as read and checked by core/config.ts's loadManifest. */
export interface Manifest {
  gates: string[];
  /** The ids of the manifest's experiments (an entry is an id, or {"id", "overrides": "suite"}). */
  experiments: string[];
  /**
   * The experiments whose overrides the manifest gives the suite to overwrite (an entry's "overrides":
   * "suite"). The spec has no read of overrides and does not say whether a patch merges or replaces
   * (4.11): on a target that replaces, any patch destroys what the owners set, so overrides are written
   * only on these, and their checks are left unchecked (INCOMPLETE) on any other.
   */
  overridesOwned: string[];
  triggers: ManifestTrigger[];
  metricPrefix: string;
  /** Clauses left out on purpose, each with a reason: listed as waived in every report, never as passed. */
  waive?: Waiver[];
  /** What the load may consume per run against a target (defaults: DEFAULT_LOAD_BUDGET). */
  budget?: Partial<Budget>;
  [key: string]: unknown;
}

/** The manifest's file as written, before loadManifest turns each experiment entry into its id. */
export type ManifestFile = Pick<Manifest, 'gates' | 'triggers' | 'metricPrefix' | 'waive' | 'budget'> & {
  experiments: (string | { id: string; overrides?: 'suite' })[];
  [key: string]: unknown;
};

/**
 * What one run of the mutation profile may touch on one side (the `manifest` of its mutation.json):
 * the manifest's part the load writes to, its experiments narrowed to those whose overrides it owns.
 */
export type RunManifest = Pick<Manifest, 'gates' | 'experiments' | 'triggers' | 'metricPrefix'> & {
  /** The owner updates may name (the manifest's metricOwner), when it names one. */
  metricOwner?: { email: string; ownerID: string };
  /** Override groups the side's experiments take (default control, test). */
  overrideGroupIDs: string[];
};
