// The parts of the response bodies the scripts read, after checkSuccess has checked them against the
// operation's response schema (contracts/schemas), so the fields read here are known to hold these types.
// Only what the scripts use is listed; the schemas are the full shapes.

/** The success envelope (spec 2.1). */
export interface Envelope<T> {
  message: string;
  data: T;
}

/** A list's envelope; its pagination fields are not shown (spec 2.1): totalItems is the reference's. */
export interface ListBody<T> extends Envelope<T[]> {
  pagination?: { totalItems?: unknown };
}

/** An experiment as the list answers it: the schema requires none of its fields (spec 2.5). */
export interface Experiment {
  id?: string;
  status?: string;
  idType?: string;
  layerID?: string | null;
  targetApps?: unknown[];
  creatorID?: string;
  creatorName?: string;
  tags?: string[];
  /** Unit not shown (spec 2.2). */
  createdTime?: number;
}

export interface ReleasePipeline {
  id?: string;
}

export interface Metric {
  id: string;
  name: string;
  description?: string;
}

export interface Gate {
  id: string;
  isEnabled?: boolean;
  rules?: { name: string }[];
}

export interface Override {
  type: string;
  id: string;
  environment?: string;
  groupID: string;
}

/** Overrides answered in the envelope, or as the spec example's top-level arrays (4.11). */
export interface OverridesResult {
  overrides?: Override[];
}
export type OverridesBody = OverridesResult | Envelope<OverridesResult>;

export interface TriggerBody {
  id: string;
  releasePipelineID: string;
  status: string;
  currentPhaseID: string;
}
