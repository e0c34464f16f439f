// SQLite storage of the reference server. Resources are stored as JSON documents (the API's own
// shape), with the columns that lists filter and order on kept beside them.
import Database, { type Db } from './sqlite.ts';

export type { Db };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS gates (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS metrics (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS triggers (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS overrides (experiment_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pipelines (id TEXT PRIMARY KEY, created_time INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS pipelines_order ON pipelines (created_time, id);
-- rank: position in the default list order (createdTime descending, then id), fixed at seed time
-- because no operation of the spec creates or deletes experiments; an unfiltered deep page is then
-- an index seek instead of an OFFSET scan.
CREATE TABLE IF NOT EXISTS experiments (
  id TEXT PRIMARY KEY, rank INTEGER NOT NULL UNIQUE, created_time INTEGER NOT NULL, status TEXT NOT NULL,
  layer_id TEXT, id_type TEXT NOT NULL, team_id TEXT, target_app_id TEXT, creator_name TEXT NOT NULL,
  creator_id TEXT NOT NULL, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS experiment_tags (experiment_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (tag, experiment_id));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/**
 * Indexes for the filters of spec 4.4, the equality ones each followed by rank (the list order), so that a
 * filtered page is an index range in order rather than a scan of every experiment. Created after
 * the seed's bulk insert (faster than keeping them up to date row by row); IF NOT EXISTS makes it
 * cheap for a database that has them.
 */
export function ensureFilterIndexes(db: Db): void {
  for (const column of ['status', 'layer_id', 'id_type', 'team_id', 'target_app_id', 'creator_name', 'creator_id']) {
    db.exec(`CREATE INDEX IF NOT EXISTS experiments_${column} ON experiments (${column}, rank)`);
  }
  // The created-date filters select a range of days: an index range in list order (createdTime
  // descending, then id), not a scan of a large list.
  db.exec('CREATE INDEX IF NOT EXISTS experiments_created ON experiments (created_time, id)');
  // With the indexes' statistics the planner takes the created_time range when it is the narrower one.
  db.exec('ANALYZE');
}

/** A database file, a new in-memory one (`:memory:`), or an in-memory copy of an image (`Db.serialize()`'s). */
export function openDb(source: string | Buffer): Db {
  const db = new Database(source);
  if (typeof source === 'string' && source !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  return db;
}

export type DocTable = 'gates' | 'metrics' | 'triggers';

export function getDoc<T>(db: Db, table: DocTable, id: string): T | undefined {
  const row = db.prepare(`SELECT doc FROM ${table} WHERE id = ?`).get(id) as { doc: string } | undefined;
  return row ? (JSON.parse(row.doc) as T) : undefined;
}

export function putDoc(db: Db, table: DocTable, id: string, doc: unknown): void {
  db.prepare(`INSERT INTO ${table} (id, doc) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET doc = excluded.doc`).run(id, JSON.stringify(doc));
}

export function insertDoc(db: Db, table: DocTable, id: string, doc: unknown): boolean {
  const r = db.prepare(`INSERT OR IGNORE INTO ${table} (id, doc) VALUES (?, ?)`).run(id, JSON.stringify(doc));
  return r.changes === 1;
}
