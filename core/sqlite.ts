// The one place that loads the SQLite driver, so that the project runs on Node 20, 22 and 24. In the
// kernel because two folders use it: the reference server's store and the run history (core/history.ts).
//
// better-sqlite3 13 is the driver wherever Node-API 10 is there (Node >= 22.14, and 24). Before 13
// its Statement derived from node::ObjectWrap, whose destructor changed in Node 24.19: there any
// Statement that the garbage collector took aborted the process. 13 is built for Node-API 10 and
// cannot load on Node 20 (Node-API 9), so there, and on Node 22.12 and 22.13, the same API comes
// from 12.11.1, installed under the alias better-sqlite3-node20 (package.json). Both have one API
// and one set of types (@types/better-sqlite3). When Node 20 is dropped, so are the alias and this
// choice.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The package this process uses: the Node-API version decides, as it decides which one can load. */
export const DRIVER = Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20';

// createRequire: both packages are CommonJS, and the choice is made once, synchronously, at load.
const Database = createRequire(import.meta.url)(DRIVER) as typeof BetterSqlite3;

export default Database;
export type Db = BetterSqlite3.Database;
export type Statement<P extends unknown[] | object = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;
