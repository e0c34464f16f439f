// The storage layer: switches that change what is written and read back, by wrapping the store
// (store/store.ts) an operation's handler sees. A handler answers what the store says it holds, so a
// write stored wrongly is answered wrongly too; a write "answered but not stored" returns what it was
// given without storing it. Applied by store/layered.ts.
//
// Each switch says as data which operations it acts on, which calls of the store (the rows they write,
// the page they read) and what changes there (StorageEdit); one wrapper, storage(), makes that the
// change the layer applies.
import { SPEC_LIMITS } from '../../contracts/index.ts';
import { badRequest, HttpError } from '../errors.ts';
import type { Doc, ListPage, ListQuery, Overrides, Store } from '../store/store.ts';
import type { StorageChange, StorageSwitch } from './types.ts';

const LISTS = ['listExperiments', 'listReleasePipelines'];
const LOS_ANGELES = 8 * 3_600_000;
const DAY = 86_400_000;
/** Where the deep-list faults start: past the head a suite reads, well within a list of 50,000. */
const DEEP = 10_000;
/** A list the deep-list faults show on: past DEEP by a few hundred pages of 20. */
const DEEP_SCALE = 20_000;
/**
 * Where metric-id-name-truncated cuts the name part of an id: half the longest name the spec allows
 * (4.6, 8), so that a name the spec takes is cut whatever the bound is after a revision.
 */
const NAME_CUT = Math.floor(SPEC_LIMITS.createMetric.name.maxLength / 2);

// ------------------------------------------------------------------ a storage change as data

/** The calls of the store a switch may change: the writes, and the two lists. */
type Call = 'putGate' | 'createMetric' | 'putMetric' | 'putTrigger' | 'putOverrides' | 'listExperiments' | 'listPipelines';
type Args<C extends Call> = Parameters<Store[C]>;
type Result<C extends Call> = ReturnType<Store[C]>;

/** What a change of a call sees: the store it wraps, the server's clock, and its own state. */
interface Ctx<S> {
  next: Store;
  now(): number;
  state: S;
}

/** What a switch does to one call of the store. */
interface CallEdit<C extends Call, S> {
  /** Before the store is called: a refusal (throws: the handler's transaction leaves everything as it was), or a write of its own. */
  before?(sent: Args<C>, ctx: Ctx<S>): void;
  /**
   * What the store is called with instead of what the handler sent (the rows written, the page asked
   * for); undefined: it is not called, and the write is answered without being stored.
   */
  args?(sent: Args<C>, ctx: Ctx<S>): Args<C> | undefined;
  /**
   * What the call answers instead of what the store answered (`got`: undefined when it was not
   * called), from what the handler sent. Without it, a call not made answers the row it was sent.
   */
  answer?(got: Result<C> | undefined, sent: Args<C>, ctx: Ctx<S>): Result<C>;
}

/** A storage switch's change: the operations whose store it wraps, and what it does to which calls. */
interface StorageEdit<S> {
  operations: readonly string[];
  calls: { [C in Call]?: CallEdit<C, S> };
  /** State kept per server and operation (a counter, the ids reserved), made when the store is wrapped. */
  state?: () => S;
}

/** The row a write was sent (the overrides of putOverrides, after the experiment's id). */
const rowOf = (call: Call, sent: readonly unknown[]) => (call === 'putOverrides' ? sent[1] : sent[0]);

/** The one wrapper: a StorageEdit as the change store/layered.ts wraps around the store. */
function storage<S = undefined>(edit: StorageEdit<S>): StorageChange {
  return {
    operations: edit.operations,
    wrap: (next, env) => {
      const ctx: Ctx<S> = { next, now: env.now, state: edit.state?.() as S };
      const wrapped: Record<string, (...sent: unknown[]) => unknown> = {};
      for (const [call, e] of Object.entries(edit.calls) as [Call, CallEdit<Call, S>][]) {
        const store = next[call] as (...args: unknown[]) => unknown;
        wrapped[call] = (...sent) => {
          const as = sent as Args<Call>;
          e.before?.(as, ctx);
          const args = e.args ? e.args(as, ctx) : as;
          const got = args === undefined ? undefined : (store(...args) as Result<Call>);
          if (e.answer) return e.answer(got, as, ctx);
          return args === undefined ? rowOf(call, sent) : got;
        };
      }
      return wrapped as Partial<Store>;
    },
  };
}

/** The same change of the page asked for, on both lists. */
const bothLists = (query: <Q extends ListQuery>(q: Q) => Q): StorageEdit<undefined> => ({
  operations: LISTS,
  calls: { listExperiments: { args: ([q]) => [query(q)] }, listPipelines: { args: ([q]) => [query(q)] } },
});

/** A change of the page list experiments answers, from the query asked and the store behind. */
const experimentsPage = (page: (got: ListPage, q: Args<'listExperiments'>[0], next: Store) => ListPage): StorageEdit<undefined> => ({
  operations: ['listExperiments'],
  calls: { listExperiments: { answer: (got, [q], { next }) => page(got as ListPage, q, next) } },
});

/** The query list experiments asks the store, changed. */
const experimentsQuery = (query: (q: Args<'listExperiments'>[0], next: Store) => Args<'listExperiments'>[0]): StorageEdit<undefined> => ({
  operations: ['listExperiments'],
  calls: { listExperiments: { args: ([q], { next }) => [query(q, next)] } },
});

/** Whether a list query carries a filter of spec 4.4. */
const filtered = (f: { equals: Record<string, unknown>; tags: string[]; createdFrom?: number; createdBefore?: number }) =>
  Object.values(f.equals).some((v) => v !== undefined) || f.tags.length > 0 || f.createdFrom !== undefined || f.createdBefore !== undefined;

/**
 * The gate add-rules is about to store, with `change(added)` applied to the rules it adds: those after
 * the ones the store holds (the reference appends, spec 4.1 leaves it open).
 */
function withAddedRules(next: Store, gate: Doc, change: (added: Doc[], kept: Doc[]) => Doc[]): Doc {
  const held = next.getGate(gate.id)?.rules.length ?? 0;
  const kept = gate.rules.slice(0, held);
  return {
    ...gate,
    rules: change(
      gate.rules.slice(held).map((r: Doc) => ({ ...r })),
      kept,
    ),
  };
}

/** The overrides of an experiment after a patch that appends what it sends to what is held. */
const appended = (next: Store, id: string, o: Overrides): Overrides => {
  const before = next.getOverrides(id) ?? { overrides: [], userIDOverrides: [] };
  return { overrides: [...before.overrides, ...o.overrides], userIDOverrides: [...before.userIDOverrides, ...o.userIDOverrides] };
};

/** What add rules does to the gate it stores: one change of its putGate. */
const addRules = (edit: CallEdit<'putGate', undefined>): StorageEdit<undefined> => ({ operations: ['addGateRules'], calls: { putGate: edit } });

/** Add rules stores, after the rules the gate held, `rows(added, kept)` of the rules it adds (copies). */
const storesRules = (rows: (added: Doc[], kept: Doc[]) => Doc[]): CallEdit<'putGate', undefined> => ({
  args: ([g], { next }) => [withAddedRules(next, g, rows)],
});

/** Each rule add-rules adds, edited before it is stored. */
const eachAddedRule = (edit: (rule: Doc) => void): StorageEdit<undefined> =>
  addRules(
    storesRules((added, kept) => {
      added.forEach(edit);
      return [...kept, ...added];
    }),
  );

/** Create metric stores the metric under another id, made from the metric. */
const metricId = (id: (m: Doc) => string): StorageEdit<undefined> => ({
  operations: ['createMetric'],
  calls: { createMetric: { args: ([m, o]) => [{ ...m, id: id(m) }, o] } },
});

/** A dry-run update stores one field of the update (and nothing else), then answers as a dry run does. */
const dryRunStoresOnly = (field: string): StorageEdit<undefined> => ({
  operations: ['updateMetric'],
  calls: {
    putMetric: {
      before: ([m, o], { next }) => {
        const stored = next.getMetric(m.id);
        if (o.dryRun && stored) next.putMetric({ ...stored, [field]: m[field] }, { dryRun: false });
      },
    },
  },
});

/** The trigger is stored, and what the write answers is its release pipeline (a join that returns the wrong side). */
const answersPipeline = (operation: string): StorageEdit<undefined> => ({
  operations: [operation],
  calls: { putTrigger: { answer: (_got, [t], { next }) => next.getPipeline(t.releasePipelineID) as Doc } },
});

/** A page past the first 1000 results, refused (deep-pages-refused). */
const refuseDeep = ([q]: [{ offset: number }]) => {
  if (q.offset >= 1000) throw new HttpError(422, 'Only the first 1000 results are available');
};

/** `<N>` of rules-cap (default 50), or the reason it is not one. */
export function parseRulesCap(text: string | undefined): number | string {
  if (text === undefined) return 50;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 1_000_000) return `variant "rules-cap:${text}" must be rules-cap:<N>, N an integer from 1 to 1000000`;
  return n;
}

export const STORAGE_SWITCHES = [
  // ------------------------------------------------------------------ gates (spec 4.1 to 4.3)
  {
    name: 'rules-without-id',
    kind: 'fault',
    layer: 'storage',
    description: 'added rules come back without id and baseID',
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: storage(
      eachAddedRule((r) => {
        delete r.id;
        delete r.baseID;
      }),
    ),
  },
  {
    name: 'rules-environments-omitted',
    kind: 'fault',
    layer: 'storage',
    description: 'rules without environments omit the field instead of null',
    clause: 'gates.addRules.environments.null',
    level: 'stated',
    change: storage(
      eachAddedRule((r) => {
        if (r.environments === null) delete r.environments;
      }),
    ),
  },
  // Go's omitempty and Jackson's NON_EMPTY drop a zero or an empty list, where the spec states the field's presence (2.3).
  {
    name: 'rule-zero-pass-omitted',
    kind: 'fault',
    layer: 'storage',
    description: 'a rule with passPercentage 0 comes back without passPercentage (omitempty)',
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: storage(
      eachAddedRule((r) => {
        if (r.passPercentage === 0) delete r.passPercentage;
      }),
    ),
  },
  {
    name: 'rule-passpercentage-truncated',
    kind: 'fault',
    layer: 'storage',
    description: 'passPercentage is stored as an integer (12.5 comes back 12)',
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: storage(
      eachAddedRule((r) => {
        r.passPercentage = Math.trunc(r.passPercentage);
      }),
    ),
  },
  {
    name: 'rules-conditions-empty-omitted',
    kind: 'fault',
    layer: 'storage',
    description: 'a rule with no conditions comes back without conditions (omitempty)',
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: storage(
      eachAddedRule((r) => {
        if (Array.isArray(r.conditions) && r.conditions.length === 0) delete r.conditions;
      }),
    ),
  },
  {
    name: 'add-rules-duplicates',
    kind: 'fault',
    layer: 'storage',
    description: 'each added rule is stored (and returned) twice',
    clause: 'gates.addRules.response.gate',
    level: 'stated',
    change: storage(addRules(storesRules((added, kept) => [...kept, ...added, ...added.map((r) => structuredClone(r))]))),
  },
  {
    name: 'disable-keeps-enabled',
    kind: 'fault',
    layer: 'storage',
    description: 'disable leaves isEnabled true',
    clause: 'gates.disable.isEnabled',
    level: 'stated',
    change: storage({ operations: ['disableGate'], calls: { putGate: { args: ([g]) => [{ ...g, isEnabled: true }] } } }),
  },
  {
    name: 'disable-not-persisted',
    kind: 'fault',
    layer: 'storage',
    description: 'disable answers isEnabled false but the stored gate keeps its state',
    clause: 'gates.disable.isEnabled',
    level: 'stated',
    change: storage({ operations: ['disableGate'], calls: { putGate: { args: () => undefined } } }),
  },
  {
    name: 'disable-refuses-disabled',
    kind: 'fault',
    layer: 'storage',
    description: 'disable of a gate already disabled is refused with 409, where spec 3 disables a gate with any isEnabled',
    clause: 'gates.disable.anyState',
    level: 'stated',
    change: storage({
      operations: ['disableGate'],
      calls: {
        putGate: {
          before: ([g], { next }) => {
            if (next.getGate(g.id)?.isEnabled === false) throw new HttpError(409, `gate ${g.id} is already disabled`);
          },
        },
      },
    }),
  },
  {
    name: 'rules-first-only-stored',
    kind: 'fault',
    layer: 'storage',
    description:
      'of several rules added at once only the first is stored, while the answer is built from the request and shows them all (a batch insert that stops after its first row)',
    clause: 'gates.addRules.response.gate',
    level: 'stated',
    change: storage(addRules({ ...storesRules((added, kept) => [...kept, ...added.slice(0, 1)]), answer: (_got, [g]) => g })),
  },
  {
    name: 'rules-replace',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'add rules replaces the existing rules (spec 4.1)',
    clause: 'gates.addRules.merge',
    level: 'open',
    change: storage(addRules(storesRules((added) => added))),
  },
  {
    name: 'rules-cap',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description:
      'add rules is refused with 400 (nothing stored) when the gate would then hold more than 50 rules, the ones it holds counted; rules-cap:<N> sets the cap (spec 7: failure codes not shown; real servers cap lists)',
    clause: 'errors.shape',
    level: 'open',
    parameter: {
      syntax: 'rules-cap:<N>',
      configure: (text) => {
        const cap = parseRulesCap(text);
        if (typeof cap === 'string') return cap;
        return storage(
          addRules({
            before: ([g]) => {
              if (g.rules.length > cap) throw badRequest(`a gate holds at most ${cap} rules; gate ${g.id} would hold ${g.rules.length}`);
            },
          }),
        );
      },
    },
  },

  // ------------------------------------------------------------------ metrics (spec 4.6, 4.7)
  {
    name: 'metric-id-shape-wrong',
    kind: 'fault',
    layer: 'storage',
    description: 'metric id is the bare name, not <name>::<type>',
    clause: 'metric.id.shape',
    level: 'stated',
    change: storage(metricId((m) => m.name)),
  },
  {
    name: 'metric-id-name-lowercased',
    kind: 'fault',
    layer: 'storage',
    description: 'the name part of a metric id is lower-cased',
    clause: 'metric.id.shape',
    level: 'stated',
    change: storage(metricId((m) => `${m.name.toLowerCase()}::${m.type}`)),
  },
  {
    name: 'metric-id-name-truncated',
    kind: 'fault',
    layer: 'storage',
    description: `the name part of a metric id is cut to ${NAME_CUT} characters, half the longest name the spec allows`,
    clause: 'metric.id.shape',
    level: 'stated',
    change: storage(metricId((m) => `${m.name.slice(0, NAME_CUT)}::${m.type}`)),
  },
  {
    name: 'metric-dryrun-persists',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun create persists the metric',
    clause: 'metrics.create.dryRun',
    level: 'stated',
    change: storage({ operations: ['createMetric'], calls: { createMetric: { args: ([m]) => [m, { dryRun: false }] } } }),
  },
  {
    name: 'metric-update-dryrun-persists',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the change',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: storage({ operations: ['updateMetric'], calls: { putMetric: { args: ([m]) => [m, { dryRun: false }] } } }),
  },
  {
    name: 'metric-update-dryrun-persists-tags',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the tags (only)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: storage(dryRunStoresOnly('tags')),
  },
  {
    name: 'metric-update-dryrun-persists-description',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the description (only)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: storage(dryRunStoresOnly('description')),
  },
  {
    name: 'metric-update-dryrun-persists-warehousenative',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the warehouseNative object (only)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: storage(dryRunStoresOnly('warehouseNative')),
  },
  {
    name: 'metric-update-not-persisted',
    kind: 'fault',
    layer: 'storage',
    description: 'an update (not dryRun) answers the updated metric but does not store it',
    clause: 'metrics.update.applies',
    level: 'stated',
    change: storage({ operations: ['updateMetric'], calls: { putMetric: { args: ([m, o]) => (o.dryRun ? [m, o] : undefined) } } }),
  },
  {
    name: 'metric-write-version',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description:
      'metrics carry version (1 when created, one more on every stored write) and updatedTime, fields that record writes and that 2.8 does not list (part 2 does not close the objects)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: storage({
      operations: ['createMetric', 'updateMetric'],
      calls: {
        createMetric: { args: ([m, o]) => [{ ...m, version: 1, updatedTime: m.createdTime }, o] },
        putMetric: {
          args: ([m, o], { next, now }) => (o.dryRun ? [m, o] : [{ ...m, version: (next.getMetric(m.id)?.version ?? 1) + 1, updatedTime: now() }, o]),
        },
      },
    }),
  },

  // ------------------------------------------------------------------ overrides (spec 4.11)
  {
    name: 'overrides-not-persisted',
    kind: 'fault',
    layer: 'storage',
    description: 'patched overrides are not stored',
    clause: 'overrides.patch.persisted',
    level: 'stated',
    change: storage({
      operations: ['patchExperimentOverrides'],
      calls: { putOverrides: { args: () => undefined, answer: (_got, [id], { next }) => next.getOverrides(id) ?? { overrides: [], userIDOverrides: [] } } },
    }),
  },
  {
    name: 'overrides-merge',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'patched overrides are appended to the existing ones (spec 4.11)',
    clause: 'overrides.patch.merge',
    level: 'open',
    change: storage({ operations: ['patchExperimentOverrides'], calls: { putOverrides: { args: ([id, o], { next }) => [id, appended(next, id, o)] } } }),
  },
  {
    name: 'overrides-merge-user-ids-not-stored',
    kind: 'fault',
    layer: 'storage',
    description:
      'patched overrides are appended to the existing ones, but the userIDOverrides sent are not stored: the answer is built from the request and shows them, the next patch does not',
    clause: 'overrides.patch.persisted',
    level: 'stated',
    change: storage({
      operations: ['patchExperimentOverrides'],
      calls: {
        putOverrides: {
          // Stored: the overrides appended, the user ID overrides held before. Answered: both appended.
          args: ([id, o], { next }) => [id, { ...appended(next, id, o), userIDOverrides: next.getOverrides(id)?.userIDOverrides ?? [] }],
          answer: (got, [, o]) => ({ overrides: got?.overrides ?? [], userIDOverrides: [...(got?.userIDOverrides ?? []), ...o.userIDOverrides] }),
        },
      },
    }),
  },
  {
    name: 'overrides-one-per-target',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'one override is kept per type, id and environment: the last one sent for it (spec 4.11: merge and the items that matter are not shown)',
    clause: 'overrides.patch.merge',
    level: 'open',
    change: storage({
      operations: ['patchExperimentOverrides'],
      calls: {
        putOverrides: {
          args: ([id, o]) => {
            const byTarget = new Map<string, Record<string, unknown>>();
            for (const item of o.overrides) byTarget.set(JSON.stringify([item.type, item.id, item.environment ?? null]), item);
            return [id, { ...o, overrides: [...byTarget.values()] }];
          },
        },
      },
    }),
  },

  // ------------------------------------------------------------------ inferred: metrics
  {
    name: 'metric-duplicate-500',
    kind: 'fault',
    layer: 'storage',
    description: "creating a metric whose <name>::<type> exists answers 500 (the store's unique constraint, unhandled)",
    clause: 'metric.id.unique',
    level: 'inferred',
    change: storage({
      operations: ['createMetric'],
      calls: {
        createMetric: {
          answer: (got, [m]) => {
            if (!got) throw new HttpError(500, `UNIQUE constraint failed: metrics.id (${m.id})`);
            return got;
          },
        },
      },
    }),
  },
  {
    name: 'metric-dryrun-reserves-name',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun create reserves its <name>::<type>: the real create after it answers 409, though nothing was stored',
    clause: 'writes.dryRunNoChange',
    level: 'inferred',
    // One store per operation and server: the reservations are this server's.
    change: storage({
      operations: ['createMetric'],
      state: () => new Set<string>(),
      calls: {
        createMetric: {
          // A real create of a reserved id is answered as a duplicate (undefined) without reaching the store.
          args: ([m, o], { state: reserved }) => (!o.dryRun && reserved.has(m.id) ? undefined : [m, o]),
          answer: (got, [m, o], { state: reserved }) => {
            if (o.dryRun && got) reserved.add(m.id);
            return got;
          },
        },
      },
    }),
  },

  // ------------------------------------------------------------------ triggers (spec 4.9, 4.10)
  {
    name: 'skip-answers-pipeline',
    kind: 'fault',
    layer: 'storage',
    description: 'skip stores the trigger, then answers its release pipeline (2.6) instead of the trigger (2.7)',
    clause: 'triggers.skip.response',
    level: 'stated',
    change: storage(answersPipeline('skipTriggerPhase')),
  },
  {
    name: 'unpause-answers-pipeline',
    kind: 'fault',
    layer: 'storage',
    description: 'unpause stores the trigger, then answers its release pipeline (2.6) instead of the trigger (2.7)',
    clause: 'triggers.unpause.response',
    level: 'stated',
    change: storage(answersPipeline('unpauseTrigger')),
  },

  // ------------------------------------------------------------------ lists (spec 4.4, 4.5)
  {
    name: 'page-overlap',
    kind: 'fault',
    layer: 'storage',
    description: 'consecutive pages share an item',
    clause: 'paging.disjointUnion',
    level: 'inferred',
    // Each page after the first starts one item early.
    change: storage(bothLists((q) => ({ ...q, offset: Math.max(0, q.offset - 1) }))),
  },
  {
    name: 'limit-ignored',
    kind: 'fault',
    layer: 'storage',
    description: 'pages hold more items than limit',
    clause: 'paging.limit',
    level: 'inferred',
    change: storage(bothLists((q) => ({ ...q, limit: q.limit + 5 }))),
  },
  {
    name: 'filters-or-combined',
    kind: 'fault',
    layer: 'storage',
    description: 'several filters are combined with OR instead of AND',
    clause: 'filters.oracle',
    level: 'inferred',
    change: storage(experimentsQuery((q) => ({ ...q, filter: { ...q.filter, anyOf: true } }))),
  },
  {
    name: 'page-past-last-repeats',
    kind: 'fault',
    layer: 'storage',
    description: 'a page of experiments past the last one answers the last page again',
    clause: 'paging.beyondLast',
    level: 'inferred',
    change: storage(
      experimentsPage((page, q, next) =>
        page.docs.length > 0 || q.offset === 0 || page.total === 0
          ? page
          : next.listExperiments({ ...q, offset: Math.floor((page.total - 1) / q.limit) * q.limit }),
      ),
    ),
  },
  {
    name: 'page-order-unstable',
    kind: 'fault',
    layer: 'storage',
    description: 'every second answer of list experiments holds its page in reverse order (ties broken by whichever row came first)',
    clause: 'paging.stable',
    level: 'inferred',
    change: storage({
      operations: ['listExperiments'],
      state: () => ({ answers: 0 }),
      calls: {
        listExperiments: {
          answer: (got, _sent, { state }) => {
            const page = got as ListPage;
            return ++state.answers % 2 === 0 ? { ...page, docs: [...page.docs].reverse() } : page;
          },
        },
      },
    }),
  },
  // Defects of large lists that live past the first pages, as real list endpoints ship them: each acts only
  // from DEEP items on (200 pages of 50), so that a suite that reads the head of a list sees none of them.
  {
    name: 'deep-filter-forgotten',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `past the first ${DEEP} items of a filtered list, its pages are the unfiltered list's (a filter lost on a later query of a paginated join)`,
    clause: 'experiments.list.filters',
    level: 'stated',
    change: storage(
      experimentsPage((page, q, next) =>
        q.offset < DEEP || !filtered(q.filter) ? page : { total: page.total, docs: next.listExperiments({ ...q, filter: { equals: {}, tags: [] } }).docs },
      ),
    ),
  },
  {
    name: 'deep-pages-empty',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `pages that start past item ${DEEP} answer empty while the pagination still counts every item (an offset the store will not serve)`,
    clause: 'experiments.list.pagination',
    level: 'stated',
    change: storage(experimentsPage((page, q) => (q.offset >= DEEP ? { total: page.total, docs: [] } : page))),
  },
  {
    name: 'deep-boundary-repeats',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `past item ${DEEP}, each page starts one item early: the last item of a page is the first of the next (a keyset boundary taken inclusive)`,
    clause: 'paging.disjointUnion',
    level: 'inferred',
    change: storage(experimentsQuery((q) => (q.offset >= DEEP ? { ...q, offset: q.offset - 1 } : q))),
  },
  {
    name: 'deep-boundary-skips',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `past item ${DEEP}, each page starts one item late: an item is lost at every page boundary (a keyset boundary skipped)`,
    clause: 'paging.disjointUnion',
    level: 'inferred',
    change: storage(experimentsQuery((q) => (q.offset >= DEEP ? { ...q, offset: q.offset + Math.floor(q.offset / DEEP) } : q))),
  },
  {
    name: 'count-capped',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `the total is capped at ${DEEP} items, and with it the next page: the list claims to end at item ${DEEP} while later pages hold items (a capped count)`,
    clause: 'experiments.list.pagination',
    level: 'stated',
    change: storage(experimentsPage((page) => ({ ...page, total: Math.min(page.total, DEEP) }))),
  },
  {
    name: 'old-dates-unreadable',
    kind: 'fault',
    layer: 'storage',
    description:
      'with a created-date filter, experiments created more than 120 days before the newest are left out (an old partition the date index does not cover)',
    clause: 'experiments.list.filters',
    level: 'stated',
    change: storage(
      experimentsQuery((q, next) => {
        if (q.filter.createdFrom === undefined && q.filter.createdBefore === undefined) return q;
        const newest = JSON.parse(next.listExperiments({ filter: { equals: {}, tags: [] }, limit: 1, offset: 0 }).docs[0] ?? '{"createdTime":0}').createdTime;
        return { ...q, filter: { ...q.filter, createdFrom: Math.max(q.filter.createdFrom ?? 0, newest - 120 * DAY) } };
      }),
    ),
  },
  {
    name: 'last-partial-page-dropped',
    kind: 'fault',
    layer: 'storage',
    description: 'the last page of a list, when it holds fewer than limit items, answers empty (an off-by-one in the page count)',
    clause: 'experiments.list.pagination',
    level: 'stated',
    change: storage(
      experimentsPage((page, q) =>
        q.offset > 0 && page.docs.length < q.limit && q.offset + page.docs.length >= page.total ? { total: page.total, docs: [] } : page,
      ),
    ),
  },
  {
    name: 'deep-pages-refused',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description:
      'pages past the first 1000 results of a list are refused with 422 and a JSON message, as GitHub search does (spec 4.4: maximum page and ordering not shown)',
    clause: 'experiments.list.limit',
    level: 'open',
    change: storage({ operations: LISTS, calls: { listExperiments: { before: refuseDeep }, listPipelines: { before: refuseDeep } } }),
  },
  {
    name: 'order-by-id',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'lists are ordered by id (spec 4.4)',
    clause: 'experiments.list.order',
    level: 'open',
    change: storage({
      operations: LISTS,
      calls: {
        listExperiments: { args: ([q]) => [{ ...q, order: { by: 'id' } }] },
        listPipelines: { args: ([q]) => [{ ...q, order: { by: 'id', descending: true } }] },
      },
    }),
  },
  {
    name: 'unfiltered-hides-archived',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'archived experiments are listed only under status=archived, not in the list without a status filter (spec 4.4: all filters optional)',
    clause: 'experiments.list.unfiltered.statuses',
    level: 'open',
    change: storage(experimentsQuery((q) => (q.filter.equals.status === undefined ? { ...q, filter: { ...q.filter, notStatus: 'archived' } } : q))),
  },
  {
    name: 'created-dates-los-angeles',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'createdStartDate and createdEndDate are days of UTC-8 (Los Angeles standard time), not UTC (spec 4.4: YYYY-MM-DD, time zone not shown)',
    clause: 'experiments.list.createdDate.inclusive',
    level: 'open',
    // A day starts at 08:00 UTC.
    change: storage(
      experimentsQuery(({ filter: f, ...q }) => ({
        ...q,
        filter: {
          ...f,
          ...(f.createdFrom === undefined ? {} : { createdFrom: f.createdFrom + LOS_ANGELES }),
          ...(f.createdBefore === undefined ? {} : { createdBefore: f.createdBefore + LOS_ANGELES }),
        },
      })),
    ),
  },
  {
    name: 'created-time-ties',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description:
      "every experiment of a UTC day shows one created time, the day's start: hundreds share it on a large list (spec 2.5: createdTime is an integer; its resolution is not shown)",
    clause: 'experiment.timestamps.unit',
    level: 'open',
    // The day filters and the list order read the stored time, which lies within the same UTC day, so
    // what a client sees stays consistent: filters by day, order by time (ties in the stored order).
    change: storage(
      experimentsPage((page) => ({
        ...page,
        docs: page.docs.map((doc) => {
          const e = JSON.parse(doc);
          return JSON.stringify({ ...e, createdTime: e.createdTime - (e.createdTime % DAY) });
        }),
      })),
    ),
  },
] as const satisfies readonly StorageSwitch[];
