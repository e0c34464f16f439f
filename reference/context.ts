import type { FaultName, VariantName } from './faults.ts';
import type { Db } from './store/db.ts';

/** What every route needs: the database, the injected faults and legal variants (reference/faults.ts). */
export interface Ctx {
  db: Db;
  fault(name: FaultName): boolean;
  variant(name: VariantName): boolean;
  now(): number;
  /** No fault and no variant is on: responses may be assembled from stored JSON without re-encoding. */
  pristine: boolean;
}

/** Who the reference server records as the actor of a write: the API key's holder. */
export const ACTOR = { id: 'console_api', name: 'Console API', email: 'console-api@example.com' };
