// The SQLite driver for the store: the kernel picks it by Node version (core/sqlite.ts says why).
export { default, DRIVER, type Db, type Statement } from '../../core/sqlite.ts';
