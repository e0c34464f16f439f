// What a load profile (load/paging.ts, load/mutation.ts) gives the engine: its scenarios, its
// thresholds, a setup that runs once before the load (its answer is handed to every job), the jobs
// the scenarios start, and an optional teardown after the load.
import type { ProfileScenario } from './profiles.ts';
import type { Thresholds } from './summary-data.ts';

/** One iteration of a scenario: `iteration` counts this worker's iterations of that scenario from 0. */
export type Job<S> = (setup: S, iteration: number) => Promise<void>;

export interface Profile<S = unknown> {
  name: 'paging' | 'mutation';
  scenarios: Record<string, ProfileScenario>;
  thresholds: Thresholds;
  /** The endpoints it times (their tags), each in the summary whether or not a request of it ran. */
  endpoints: string[];
  setup: () => Promise<S>;
  jobs: Record<string, Job<S>>;
  teardown?: (setup: S) => Promise<void>;
}
