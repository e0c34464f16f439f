import type { Store } from './store/store.ts';

/**
 * What every route needs. Routes hold what the spec says and nothing else: faults and variants
 * change the server in the layers around them (layers/), never through this.
 */
export interface Ctx {
  /** The store as the operation's handler sees it (the storage layer's changes for it applied); call once per route. */
  store(operationId: string): Store;
  now(): number;
  /** No fault and no variant is on: responses may be assembled from stored JSON without re-encoding. */
  pristine: boolean;
}

/** Who the reference server records as the actor of a write: the API key's holder. */
export const ACTOR = { id: 'console_api', name: 'Console API', email: 'console-api@example.com' };
