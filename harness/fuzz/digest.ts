// A digest of everything the reference server has stored: every row of every table, in rowid order.
// Read through a separate read-only connection to the database file, so it sees what is on disk
// (committed), not what the server's own connection holds.
import { createHash } from 'node:crypto';
import Database, { type Db } from '../../reference/store/sqlite.ts';

export function openReadOnly(file: string): Db {
  return new Database(file, { readonly: true, fileMustExist: true });
}

export function dbDigest(db: Db): string {
  const hash = createHash('sha256');
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
  for (const { name } of tables) {
    hash.update(`\u0000table ${name}\u0000`);
    for (const row of db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw().iterate()) hash.update(JSON.stringify(row));
  }
  return hash.digest('hex');
}
