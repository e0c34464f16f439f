// What the handlers read and write, as operations on the API's own documents: the one interface the
// storage layer (reference/layers/storage.ts) wraps, and its SQLite implementation. Every method is
// synchronous and runs inside the caller's transaction when there is one, so a write that a wrapper
// refuses or a handler abandons leaves nothing behind.
import type { Statement } from './sqlite.ts';
import { type Db, getDoc, insertDoc, putDoc } from './db.ts';
import type { JsonObject } from '../../core/json.ts';

export type Doc = JsonObject;

export interface Overrides {
  overrides: Record<string, unknown>[];
  userIDOverrides: Record<string, unknown>[];
}

/** The order of a list: the reference's own (see each list) unless a layer asks for the ids' order. */
export interface ListOrder {
  by: 'id';
  descending?: boolean;
}

export interface ListQuery {
  limit: number;
  offset: number;
  order?: ListOrder;
}

/** The experiment filters of spec 4.4, as the store applies them. */
export interface ExperimentFilter {
  /** Equality filters, by the API's names. */
  equals: Partial<Record<(typeof EQUALITY_FILTERS)[number][0], string>>;
  /** createdTime from this instant (inclusive) and before the next (exclusive), ms. */
  createdFrom?: number;
  createdBefore?: number;
  /** Every one of these tags. */
  tags: string[];
  /** Leave out experiments of this status. */
  notStatus?: string;
  /** Match any one of the conditions instead of all of them. */
  anyOf?: boolean;
}

/** One page of a list: the total the filter selects and the page's documents as stored JSON text. */
export interface ListPage {
  total: number;
  docs: string[];
}

export interface Store {
  /** Runs `fn` in one transaction: all of its writes, or none when it throws. */
  transaction<T>(fn: () => T): T;
  getGate(id: string): Doc | undefined;
  /** Stores the gate; returns the gate as stored. */
  putGate(gate: Doc): Doc;
  getMetric(id: string): Doc | undefined;
  /** Stores a new metric (not when `dryRun`); returns it as stored, or undefined when its id exists. */
  createMetric(metric: Doc, o: { dryRun: boolean }): Doc | undefined;
  /** Stores the metric over the one of its id (not when `dryRun`); returns it as stored. */
  putMetric(metric: Doc, o: { dryRun: boolean }): Doc;
  getTrigger(id: string): Doc | undefined;
  /** Stores the trigger; returns it as stored. */
  putTrigger(trigger: Doc): Doc;
  getPipeline(id: string): Doc | undefined;
  getExperiment(id: string): Doc | undefined;
  getOverrides(experimentId: string): Overrides | undefined;
  /** Stores an experiment's overrides; returns them as stored. */
  putOverrides(experimentId: string, o: Overrides): Overrides;
  listExperiments(q: ListQuery & { filter: ExperimentFilter }): ListPage;
  listPipelines(q: ListQuery): ListPage;
}

/** API name of each equality filter and its column (spec 4.4). */
const EQUALITY_FILTERS = [
  ['layerID', 'layer_id'],
  ['idType', 'id_type'],
  ['teamID', 'team_id'],
  ['status', 'status'],
  ['targetAppID', 'target_app_id'],
  ['creatorName', 'creator_name'],
  ['creatorID', 'creator_id'],
] as const;

export function sqliteStore(db: Db): Store {
  // Prepared once per distinct SQL text: preparing is a large share of a small query's cost.
  // pluck(): rows come back as the doc strings themselves, without a row object each.
  const statements = new Map<string, Statement<unknown[]>>();
  const stmt = (sql: string) => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql).pluck();
      statements.set(sql, s);
    }
    return s;
  };
  const writes = new Map<string, Statement<unknown[]>>();
  const write = (sql: string) => {
    let s = writes.get(sql);
    if (!s) {
      s = db.prepare(sql);
      writes.set(sql, s);
    }
    return s;
  };
  // Totals per filter set: experiments never change through this API, so a count is computed once.
  const experimentTotals = new Map<string, number>();
  const parsed = (text: unknown) => (typeof text === 'string' ? (JSON.parse(text) as Doc) : undefined);

  return {
    transaction: (fn) => db.transaction(fn)(),
    getGate: (id) => getDoc<Doc>(db, 'gates', id),
    putGate: (gate) => {
      putDoc(db, 'gates', gate.id, gate);
      return gate;
    },
    getMetric: (id) => getDoc<Doc>(db, 'metrics', id),
    createMetric: (metric, o) => {
      if (getDoc(db, 'metrics', metric.id)) return undefined;
      if (!o.dryRun) insertDoc(db, 'metrics', metric.id, metric);
      return metric;
    },
    putMetric: (metric, o) => {
      if (!o.dryRun) putDoc(db, 'metrics', metric.id, metric);
      return metric;
    },
    getTrigger: (id) => getDoc<Doc>(db, 'triggers', id),
    putTrigger: (trigger) => {
      putDoc(db, 'triggers', trigger.id, trigger);
      return trigger;
    },
    getPipeline: (id) => parsed(stmt('SELECT doc FROM pipelines WHERE id = ?').get(id)),
    getExperiment: (id) => parsed(stmt('SELECT doc FROM experiments WHERE id = ?').get(id)),
    getOverrides: (id) => parsed(stmt('SELECT doc FROM overrides WHERE experiment_id = ?').get(id)) as Overrides | undefined,
    putOverrides: (id, o) => {
      write('INSERT INTO overrides (experiment_id, doc) VALUES (?, ?) ON CONFLICT(experiment_id) DO UPDATE SET doc = excluded.doc').run(id, JSON.stringify(o));
      return o;
    },

    listExperiments: ({ filter: f, limit, offset, order }) => {
      const where: string[] = [];
      const args: unknown[] = [];
      for (const [name, column] of EQUALITY_FILTERS) {
        if (f.equals[name] !== undefined) {
          where.push(`${column} = ?`);
          args.push(f.equals[name]);
        }
      }
      if (f.createdFrom !== undefined) {
        where.push('created_time >= ?');
        args.push(f.createdFrom);
      }
      if (f.createdBefore !== undefined) {
        where.push('created_time < ?');
        args.push(f.createdBefore);
      }
      for (const tag of f.tags) {
        where.push('EXISTS (SELECT 1 FROM experiment_tags t WHERE t.tag = ? AND t.experiment_id = e.id)');
        args.push(tag);
      }
      if (f.notStatus !== undefined) {
        where.push('status <> ?');
        args.push(f.notStatus);
      }
      const filter = where.length ? `WHERE ${where.join(f.anyOf ? ' OR ' : ' AND ')}` : '';
      const key = JSON.stringify([filter, args]);
      let total = experimentTotals.get(key);
      if (total === undefined) {
        total = stmt(`SELECT count(*) FROM experiments e ${filter}`).get(...args) as number;
        experimentTotals.set(key, total);
      }
      // A page that starts at or after the last item holds nothing; SQLite is not asked (its offsets
      // are 64-bit integers, and a page like 2^53 - 1 times 100 is not one).
      if (offset >= total) return { total, docs: [] };
      // Unfiltered, the list order (createdTime descending, then id): rank is the position, so a deep
      // page is an index seek instead of an OFFSET scan.
      if (filter === '' && !order)
        return { total, docs: stmt('SELECT doc FROM experiments e WHERE e.rank >= ? ORDER BY e.rank LIMIT ?').all(offset, limit) as string[] };
      // With a created-date filter, the list order by its columns (rank is that order: createdTime
      // descending, then id), which the created_time index serves for a range of any width.
      const dated = f.createdFrom !== undefined || f.createdBefore !== undefined;
      const by = order ? `e.id${order.descending ? ' DESC' : ''}` : dated ? 'e.created_time DESC, e.id' : 'e.rank';
      return { total, docs: stmt(`SELECT doc FROM experiments e ${filter} ORDER BY ${by} LIMIT ? OFFSET ?`).all(...args, limit, offset) as string[] };
    },

    listPipelines: ({ limit, offset, order }) => {
      const total = stmt('SELECT count(*) FROM pipelines').get() as number;
      if (offset >= total) return { total, docs: [] };
      // The list order: createdTime ascending, then id.
      const by = order ? `id${order.descending ? ' DESC' : ''}` : 'created_time, id';
      return { total, docs: stmt(`SELECT doc FROM pipelines ORDER BY ${by} LIMIT ? OFFSET ?`).all(limit, offset) as string[] };
    },
  };
}
