// The storage layer: switches that change what is written and read back, by wrapping the store
// (store/store.ts) an operation's handler sees. A handler answers what the store says it holds, so a
// write stored wrongly is answered wrongly too; a write "answered but not stored" returns what it was
// given without storing it. Applied by store/layered.ts.
import { badRequest, HttpError } from '../errors.ts';
import type { Doc, Overrides, Store } from '../store/store.ts';
import type { StorageChange, StorageSwitch } from './types.ts';

const GATE_TOGGLES = ['enableGate', 'disableGate'];
const LISTS = ['listExperiments', 'listReleasePipelines'];
const LOS_ANGELES = 8 * 3_600_000;
const DAY = 86_400_000;
/** Where the deep-list faults start: past the head a suite reads, well within a list of 50,000. */
const DEEP = 10_000;
/** A list the deep-list faults show on: past DEEP by a few hundred pages of 20. */
const DEEP_SCALE = 20_000;
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

/** A storage change that edits each rule add-rules adds, before it is stored. */
const eachAddedRule = (edit: (rule: Doc) => void): StorageChange => ({
  operations: ['addGateRules'],
  wrap: (next) => ({
    putGate: (g) =>
      next.putGate(
        withAddedRules(next, g, (added, kept) => {
          added.forEach(edit);
          return [...kept, ...added];
        }),
      ),
  }),
});

/** A dry-run update stores one field of the update (and nothing else), then answers as a dry run does. */
const dryRunStoresOnly = (field: string): StorageChange => ({
  operations: ['updateMetric'],
  wrap: (next) => ({
    putMetric: (m, o) => {
      const stored = next.getMetric(m.id);
      if (o.dryRun && stored) next.putMetric({ ...stored, [field]: m[field] }, { dryRun: false });
      return next.putMetric(m, o);
    },
  }),
});

/** The trigger is stored, and what the write answers is its release pipeline (a join that returns the wrong side). */
const answersPipeline = (operation: string): StorageChange => ({
  operations: [operation],
  wrap: (next) => ({
    putTrigger: (t) => {
      next.putTrigger(t);
      return next.getPipeline(t.releasePipelineID) as Doc;
    },
  }),
});

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
    change: eachAddedRule((r) => {
      delete r.id;
      delete r.baseID;
    }),
  },
  {
    name: 'rules-environments-omitted',
    kind: 'fault',
    layer: 'storage',
    description: 'rules without environments omit the field instead of null',
    clause: 'gates.addRules.environments.null',
    level: 'stated',
    change: eachAddedRule((r) => {
      if (r.environments === null) delete r.environments;
    }),
  },
  // Go's omitempty and Jackson's NON_EMPTY drop a zero or an empty list, where the spec states the field's presence (2.3).
  {
    name: 'rule-zero-pass-omitted',
    kind: 'fault',
    layer: 'storage',
    description: 'a rule with passPercentage 0 comes back without passPercentage (omitempty)',
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: eachAddedRule((r) => {
      if (r.passPercentage === 0) delete r.passPercentage;
    }),
  },
  {
    name: 'rule-passpercentage-truncated',
    kind: 'fault',
    layer: 'storage',
    description: 'passPercentage is stored as an integer (12.5 comes back 12)',
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: eachAddedRule((r) => {
      r.passPercentage = Math.trunc(r.passPercentage);
    }),
  },
  {
    name: 'rules-conditions-empty-omitted',
    kind: 'fault',
    layer: 'storage',
    description: 'a rule with no conditions comes back without conditions (omitempty)',
    clause: 'gates.addRules.rules.fields',
    level: 'stated',
    change: eachAddedRule((r) => {
      if (Array.isArray(r.conditions) && r.conditions.length === 0) delete r.conditions;
    }),
  },
  {
    name: 'add-rules-duplicates',
    kind: 'fault',
    layer: 'storage',
    description: 'each added rule is stored (and returned) twice',
    clause: 'gates.addRules.response.gate',
    level: 'stated',
    change: {
      operations: ['addGateRules'],
      wrap: (next) => ({
        putGate: (g) => next.putGate(withAddedRules(next, g, (added, kept) => [...kept, ...added, ...added.map((r) => structuredClone(r))])),
      }),
    },
  },
  {
    name: 'disable-keeps-enabled',
    kind: 'fault',
    layer: 'storage',
    description: 'disable leaves isEnabled true',
    clause: 'gates.disable.isEnabled',
    level: 'stated',
    change: { operations: ['disableGate'], wrap: (next) => ({ putGate: (g) => next.putGate({ ...g, isEnabled: true }) }) },
  },
  {
    name: 'disable-not-persisted',
    kind: 'fault',
    layer: 'storage',
    description: 'disable answers isEnabled false but the stored gate keeps its state',
    clause: 'gates.disable.isEnabled',
    level: 'stated',
    change: { operations: ['disableGate'], wrap: () => ({ putGate: (g) => g }) },
  },
  {
    name: 'disable-refuses-disabled',
    kind: 'fault',
    layer: 'storage',
    description: 'disable of a gate already disabled is refused with 409, where spec 3 disables a gate with any isEnabled',
    clause: 'gates.disable.anyState',
    level: 'stated',
    change: {
      operations: ['disableGate'],
      wrap: (next) => ({
        putGate: (g) => {
          // Thrown inside the handler's transaction: the gate is left as it was.
          if (next.getGate(g.id)?.isEnabled === false) throw new HttpError(409, `gate ${g.id} is already disabled`);
          return next.putGate(g);
        },
      }),
    },
  },
  {
    name: 'rules-first-only-stored',
    kind: 'fault',
    layer: 'storage',
    description:
      'of several rules added at once only the first is stored, while the answer is built from the request and shows them all (a batch insert that stops after its first row)',
    clause: 'gates.addRules.response.gate',
    level: 'stated',
    change: {
      operations: ['addGateRules'],
      wrap: (next) => ({
        putGate: (g) => {
          next.putGate(withAddedRules(next, g, (added, kept) => [...kept, ...added.slice(0, 1)]));
          return g;
        },
      }),
    },
  },
  {
    name: 'rules-replace',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'add rules replaces the existing rules (spec 4.1)',
    clause: 'gates.addRules.merge',
    level: 'open',
    change: { operations: ['addGateRules'], wrap: (next) => ({ putGate: (g) => next.putGate(withAddedRules(next, g, (added) => added)) }) },
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
        return {
          operations: ['addGateRules'],
          wrap: (next) => ({
            putGate: (g) => {
              // Thrown inside the handler's transaction: the gate is left as it was.
              if (g.rules.length > cap) throw badRequest(`a gate holds at most ${cap} rules; gate ${g.id} would hold ${g.rules.length}`);
              return next.putGate(g);
            },
          }),
        };
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
    change: { operations: ['createMetric'], wrap: (next) => ({ createMetric: (m, o) => next.createMetric({ ...m, id: m.name }, o) }) },
  },
  {
    name: 'metric-id-name-lowercased',
    kind: 'fault',
    layer: 'storage',
    description: 'the name part of a metric id is lower-cased',
    clause: 'metric.id.shape',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      wrap: (next) => ({ createMetric: (m, o) => next.createMetric({ ...m, id: `${m.name.toLowerCase()}::${m.type}` }, o) }),
    },
  },
  {
    name: 'metric-id-name-truncated',
    kind: 'fault',
    layer: 'storage',
    description: 'the name part of a metric id is cut to 100 characters',
    clause: 'metric.id.shape',
    level: 'stated',
    change: {
      operations: ['createMetric'],
      wrap: (next) => ({ createMetric: (m, o) => next.createMetric({ ...m, id: `${m.name.slice(0, 100)}::${m.type}` }, o) }),
    },
  },
  {
    name: 'metric-dryrun-persists',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun create persists the metric',
    clause: 'metrics.create.dryRun',
    level: 'stated',
    change: { operations: ['createMetric'], wrap: (next) => ({ createMetric: (m) => next.createMetric(m, { dryRun: false }) }) },
  },
  {
    name: 'metric-update-dryrun-persists',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the change',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: { operations: ['updateMetric'], wrap: (next) => ({ putMetric: (m) => next.putMetric(m, { dryRun: false }) }) },
  },
  {
    name: 'metric-update-dryrun-persists-tags',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the tags (only)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: dryRunStoresOnly('tags'),
  },
  {
    name: 'metric-update-dryrun-persists-description',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the description (only)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: dryRunStoresOnly('description'),
  },
  {
    name: 'metric-update-dryrun-persists-warehousenative',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun update persists the warehouseNative object (only)',
    clause: 'metrics.update.dryRun',
    level: 'stated',
    change: dryRunStoresOnly('warehouseNative'),
  },
  {
    name: 'metric-update-not-persisted',
    kind: 'fault',
    layer: 'storage',
    description: 'an update (not dryRun) answers the updated metric but does not store it',
    clause: 'metrics.update.applies',
    level: 'stated',
    change: { operations: ['updateMetric'], wrap: (next) => ({ putMetric: (m, o) => (o.dryRun ? next.putMetric(m, o) : m) }) },
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
    change: {
      operations: ['createMetric', 'updateMetric'],
      wrap: (next, env) => ({
        createMetric: (m, o) => next.createMetric({ ...m, version: 1, updatedTime: m.createdTime }, o),
        putMetric: (m, o) => {
          if (o.dryRun) return next.putMetric(m, o);
          const stored = next.getMetric(m.id);
          return next.putMetric({ ...m, version: (stored?.version ?? 1) + 1, updatedTime: env.now() }, o);
        },
      }),
    },
  },

  // ------------------------------------------------------------------ overrides (spec 4.11)
  {
    name: 'overrides-not-persisted',
    kind: 'fault',
    layer: 'storage',
    description: 'patched overrides are not stored',
    clause: 'overrides.patch.persisted',
    level: 'stated',
    change: {
      operations: ['patchExperimentOverrides'],
      wrap: (next) => ({ putOverrides: (id) => next.getOverrides(id) ?? { overrides: [], userIDOverrides: [] } }),
    },
  },
  {
    name: 'overrides-merge',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'patched overrides are appended to the existing ones (spec 4.11)',
    clause: 'overrides.patch.merge',
    level: 'open',
    change: {
      operations: ['patchExperimentOverrides'],
      wrap: (next) => ({
        putOverrides: (id, o) => next.putOverrides(id, appended(next, id, o)),
      }),
    },
  },
  {
    name: 'overrides-merge-user-ids-not-stored',
    kind: 'fault',
    layer: 'storage',
    description:
      'patched overrides are appended to the existing ones, but the userIDOverrides sent are not stored: the answer is built from the request and shows them, the next patch does not',
    clause: 'overrides.patch.persisted',
    level: 'stated',
    change: {
      operations: ['patchExperimentOverrides'],
      wrap: (next) => ({
        putOverrides: (id, o) => {
          const answered = appended(next, id, o);
          next.putOverrides(id, { ...answered, userIDOverrides: next.getOverrides(id)?.userIDOverrides ?? [] });
          return answered;
        },
      }),
    },
  },
  {
    name: 'overrides-one-per-target',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'one override is kept per type, id and environment: the last one sent for it (spec 4.11: merge and the items that matter are not shown)',
    clause: 'overrides.patch.merge',
    level: 'open',
    change: {
      operations: ['patchExperimentOverrides'],
      wrap: (next) => ({
        putOverrides: (id, o) => {
          const byTarget = new Map<string, Record<string, unknown>>();
          for (const item of o.overrides) byTarget.set(JSON.stringify([item.type, item.id, item.environment ?? null]), item);
          return next.putOverrides(id, { ...o, overrides: [...byTarget.values()] });
        },
      }),
    },
  },

  // ------------------------------------------------------------------ inferred: metrics
  {
    name: 'metric-duplicate-500',
    kind: 'fault',
    layer: 'storage',
    description: "creating a metric whose <name>::<type> exists answers 500 (the store's unique constraint, unhandled)",
    clause: 'metric.id.unique',
    level: 'inferred',
    change: {
      operations: ['createMetric'],
      wrap: (next) => ({
        createMetric: (m, o) => {
          const created = next.createMetric(m, o);
          if (!created) throw new HttpError(500, `UNIQUE constraint failed: metrics.id (${m.id})`);
          return created;
        },
      }),
    },
  },
  {
    name: 'metric-dryrun-reserves-name',
    kind: 'fault',
    layer: 'storage',
    description: 'a dryRun create reserves its <name>::<type>: the real create after it answers 409, though nothing was stored',
    clause: 'writes.dryRunNoChange',
    level: 'inferred',
    change: {
      operations: ['createMetric'],
      wrap: (next) => {
        // One store per operation and server: the reservations are this server's.
        const reserved = new Set<string>();
        return {
          createMetric: (m, o) => {
            if (o.dryRun) {
              const answer = next.createMetric(m, o);
              if (answer) reserved.add(m.id);
              return answer;
            }
            return reserved.has(m.id) ? undefined : next.createMetric(m, o);
          },
        };
      },
    },
  },

  // ------------------------------------------------------------------ triggers (spec 4.9, 4.10)
  {
    name: 'skip-answers-pipeline',
    kind: 'fault',
    layer: 'storage',
    description: 'skip stores the trigger, then answers its release pipeline (2.6) instead of the trigger (2.7)',
    clause: 'triggers.skip.response',
    level: 'stated',
    change: answersPipeline('skipTriggerPhase'),
  },
  {
    name: 'unpause-answers-pipeline',
    kind: 'fault',
    layer: 'storage',
    description: 'unpause stores the trigger, then answers its release pipeline (2.6) instead of the trigger (2.7)',
    clause: 'triggers.unpause.response',
    level: 'stated',
    change: answersPipeline('unpauseTrigger'),
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
    change: {
      operations: LISTS,
      wrap: (next) => ({
        listExperiments: (q) => next.listExperiments({ ...q, offset: Math.max(0, q.offset - 1) }),
        listPipelines: (q) => next.listPipelines({ ...q, offset: Math.max(0, q.offset - 1) }),
      }),
    },
  },
  {
    name: 'limit-ignored',
    kind: 'fault',
    layer: 'storage',
    description: 'pages hold more items than limit',
    clause: 'paging.limit',
    level: 'inferred',
    change: {
      operations: LISTS,
      wrap: (next) => ({
        listExperiments: (q) => next.listExperiments({ ...q, limit: q.limit + 5 }),
        listPipelines: (q) => next.listPipelines({ ...q, limit: q.limit + 5 }),
      }),
    },
  },
  {
    name: 'filters-or-combined',
    kind: 'fault',
    layer: 'storage',
    description: 'several filters are combined with OR instead of AND',
    clause: 'filters.oracle',
    level: 'inferred',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({ listExperiments: (q) => next.listExperiments({ ...q, filter: { ...q.filter, anyOf: true } }) }),
    },
  },
  {
    name: 'page-past-last-repeats',
    kind: 'fault',
    layer: 'storage',
    description: 'a page of experiments past the last one answers the last page again',
    clause: 'paging.beyondLast',
    level: 'inferred',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => {
          const page = next.listExperiments(q);
          if (page.docs.length > 0 || q.offset === 0 || page.total === 0) return page;
          return next.listExperiments({ ...q, offset: Math.floor((page.total - 1) / q.limit) * q.limit });
        },
      }),
    },
  },
  {
    name: 'page-order-unstable',
    kind: 'fault',
    layer: 'storage',
    description: 'every second answer of list experiments holds its page in reverse order (ties broken by whichever row came first)',
    clause: 'paging.stable',
    level: 'inferred',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => {
        let answers = 0;
        return {
          listExperiments: (q) => {
            const page = next.listExperiments(q);
            return ++answers % 2 === 0 ? { ...page, docs: [...page.docs].reverse() } : page;
          },
        };
      },
    },
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
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => {
          const page = next.listExperiments(q);
          if (q.offset < DEEP || !filtered(q.filter)) return page;
          return { total: page.total, docs: next.listExperiments({ ...q, filter: { equals: {}, tags: [] } }).docs };
        },
      }),
    },
  },
  {
    name: 'deep-pages-empty',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `pages that start past item ${DEEP} answer empty while the pagination still counts every item (an offset the store will not serve)`,
    clause: 'experiments.list.pagination',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => (q.offset >= DEEP ? { total: next.listExperiments(q).total, docs: [] } : next.listExperiments(q)),
      }),
    },
  },
  {
    name: 'deep-boundary-repeats',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `past item ${DEEP}, each page starts one item early: the last item of a page is the first of the next (a keyset boundary taken inclusive)`,
    clause: 'paging.disjointUnion',
    level: 'inferred',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({ listExperiments: (q) => next.listExperiments(q.offset >= DEEP ? { ...q, offset: q.offset - 1 } : q) }),
    },
  },
  {
    name: 'deep-boundary-skips',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `past item ${DEEP}, each page starts one item late: an item is lost at every page boundary (a keyset boundary skipped)`,
    clause: 'paging.disjointUnion',
    level: 'inferred',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({ listExperiments: (q) => next.listExperiments(q.offset >= DEEP ? { ...q, offset: q.offset + Math.floor(q.offset / DEEP) } : q) }),
    },
  },
  {
    name: 'count-capped',
    kind: 'fault',
    layer: 'storage',
    scale: DEEP_SCALE,
    description: `the total is capped at ${DEEP} items, and with it the next page: the list claims to end at item ${DEEP} while later pages hold items (a capped count)`,
    clause: 'experiments.list.pagination',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => {
          const page = next.listExperiments(q);
          return { ...page, total: Math.min(page.total, DEEP) };
        },
      }),
    },
  },
  {
    name: 'old-dates-unreadable',
    kind: 'fault',
    layer: 'storage',
    description:
      'with a created-date filter, experiments created more than 120 days before the newest are left out (an old partition the date index does not cover)',
    clause: 'experiments.list.filters',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => {
          if (q.filter.createdFrom === undefined && q.filter.createdBefore === undefined) return next.listExperiments(q);
          const newest = JSON.parse(next.listExperiments({ filter: { equals: {}, tags: [] }, limit: 1, offset: 0 }).docs[0] ?? '{"createdTime":0}').createdTime;
          const from = Math.max(q.filter.createdFrom ?? 0, newest - 120 * DAY);
          return next.listExperiments({ ...q, filter: { ...q.filter, createdFrom: from } });
        },
      }),
    },
  },
  {
    name: 'last-partial-page-dropped',
    kind: 'fault',
    layer: 'storage',
    description: 'the last page of a list, when it holds fewer than limit items, answers empty (an off-by-one in the page count)',
    clause: 'experiments.list.pagination',
    level: 'stated',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => {
          const page = next.listExperiments(q);
          return q.offset > 0 && page.docs.length < q.limit && q.offset + page.docs.length >= page.total ? { total: page.total, docs: [] } : page;
        },
      }),
    },
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
    change: {
      operations: LISTS,
      wrap: (next) => {
        const refuse = (q: { offset: number }) => {
          if (q.offset >= 1000) throw new HttpError(422, 'Only the first 1000 results are available');
        };
        return {
          listExperiments: (q) => (refuse(q), next.listExperiments(q)),
          listPipelines: (q) => (refuse(q), next.listPipelines(q)),
        };
      },
    },
  },
  {
    name: 'order-by-id',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'lists are ordered by id (spec 4.4)',
    clause: 'experiments.list.order',
    level: 'open',
    change: {
      operations: LISTS,
      wrap: (next) => ({
        listExperiments: (q) => next.listExperiments({ ...q, order: { by: 'id' } }),
        listPipelines: (q) => next.listPipelines({ ...q, order: { by: 'id', descending: true } }),
      }),
    },
  },
  {
    name: 'unfiltered-hides-archived',
    kind: 'variant',
    strict: 'pass',
    layer: 'storage',
    description: 'archived experiments are listed only under status=archived, not in the list without a status filter (spec 4.4: all filters optional)',
    clause: 'experiments.list.unfiltered.statuses',
    level: 'open',
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => next.listExperiments(q.filter.equals.status === undefined ? { ...q, filter: { ...q.filter, notStatus: 'archived' } } : q),
      }),
    },
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
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: ({ filter: f, ...q }) =>
          next.listExperiments({
            ...q,
            filter: {
              ...f,
              ...(f.createdFrom === undefined ? {} : { createdFrom: f.createdFrom + LOS_ANGELES }),
              ...(f.createdBefore === undefined ? {} : { createdBefore: f.createdBefore + LOS_ANGELES }),
            },
          }),
      }),
    },
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
    change: {
      operations: ['listExperiments'],
      wrap: (next) => ({
        listExperiments: (q) => {
          const page = next.listExperiments(q);
          return {
            ...page,
            docs: page.docs.map((doc) => {
              const e = JSON.parse(doc);
              return JSON.stringify({ ...e, createdTime: e.createdTime - (e.createdTime % DAY) });
            }),
          };
        },
      }),
    },
  },
] as const satisfies readonly StorageSwitch[];
