// The store each operation's handler sees: the store with the storage layer's changes for that
// operation wrapped around it (layers/storage.ts). The first change of the layer is the outermost, so
// it sees a call first and the changes after it see what it passes on. Made once per operation.
import type { StorageChange } from '../layers/types.ts';
import type { Store } from './store.ts';

export function layeredStore(base: Store, changes: readonly StorageChange[], env: { now(): number }): (operationId: string) => Store {
  const made = new Map<string, Store>();
  return (operationId) => {
    let store = made.get(operationId);
    if (!store) {
      store = changes.filter((c) => c.operations.includes(operationId)).reduceRight<Store>((next, c) => ({ ...next, ...c.wrap(next, env) }), base);
      made.set(operationId, store);
    }
    return store;
  };
}
