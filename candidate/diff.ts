// The differences between two answers to the same request, as a client would meet them: the status,
// a field there on one side only, a value of another JSON type, a list in another order or of another
// length, another message, another value. Pure: no file, no network, so that tests and the self-test
// check the rules themselves. Each difference has a key (operation, kind, place) under which the same
// difference met twice, or between two reads of one deployment (noise, candidate/noise.ts), is one.
import { OPERATIONS } from '../contracts/index.ts';
import type { ChangeKind, Exchange } from '../core/formats.ts';

export interface Difference {
  operation: string;
  kind: ChangeKind;
  /** A JSON path with [] for any item (`data[].id`), `status`, or the request's place in its test. */
  where: string;
  current: unknown;
  candidate: unknown;
}

export const differenceKey = (d: Pick<Difference, 'operation' | 'kind' | 'where'>): string => `${d.operation}|${d.kind}|${d.where}`;

const TEMPLATES = Object.entries(OPERATIONS).map(([id, op]) => ({
  id,
  method: op.method,
  re: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The contract operation a request is (its operationId), or `METHOD path` for one outside the contract (a negative test's). */
export function operationOfPath(method: string, path: string): string {
  const bare = path.split('?')[0];
  const m = method.toUpperCase();
  return TEMPLATES.find((t) => t.method === m && t.re.test(bare))?.id ?? `${m} ${bare}`;
}

const queryOf = (path: string) => new URLSearchParams(path.split('?')[1] ?? '');

/**
 * What must be the same for two exchanges to be answers to the same request: the method, the operation
 * (ids in the path may differ: each side has its own manifest, and run-made resources have run-made ids)
 * and the query's parameter names. Their values are compared as differences (a run-made name in a
 * filter is noise, learnt), and bodies sent are not compared (run-made names).
 */
export function requestKey(e: Pick<Exchange, 'method' | 'path'>): string {
  return `${operationOfPath(e.method, e.path)}?${[...queryOf(e.path).keys()].sort().join('&')}`;
}

/** The query values two paired requests differ in: what the test asked differently, kind `requests`. */
function queryDiffs(operation: string, a: Exchange, b: Exchange): Difference[] {
  const qa = queryOf(a.path);
  const qb = queryOf(b.path);
  return [...new Set(qa.keys())]
    .filter((k) => JSON.stringify(qa.getAll(k)) !== JSON.stringify(qb.getAll(k)))
    .map((k) => ({ operation, kind: 'requests' as const, where: `query.${k}`, current: qa.getAll(k).join(','), candidate: qb.getAll(k).join(',') }));
}

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const itemId = (v: unknown): string | undefined => {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const id = (v as Record<string, unknown>).id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  }
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
};

/** Values that name the same thing on both sides (each side's manifest id, by its place in its manifest). */
export type Aliases = (value: string) => string;
const noAliases: Aliases = (v) => v;

/** How lists without ids of unequal length are compared. */
export interface DiffOptions {
  /**
   * `length` (the default): by their length alone, since their items cannot be matched. `values`: also each
   * place under their items by the set of values it takes there, for two reads of one side that met
   * different states (a trigger's action log that grew by the read before: its times differ, its kinds do not).
   */
  unequalLists?: 'length' | 'values';
}

/** Every leaf under `items` by its place (`[].timeMs`, `[].x.y`), with the JSON of each value it takes there. */
function leafValues(items: unknown[], where: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const visit = (v: unknown, at: string) => {
    if (Array.isArray(v)) for (const x of v) visit(x, `${at}[]`);
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, `${at}.${k}`);
    else {
      const seen = out.get(at) ?? new Set<string>();
      seen.add(JSON.stringify(v));
      out.set(at, seen);
    }
  };
  for (const x of items) visit(x, `${where}[]`);
  return out;
}

/** The differences between two answers to one request. */
export function diffExchanges(current: Exchange, candidate: Exchange, aliases: Aliases = noAliases, options: DiffOptions = {}): Difference[] {
  const operation = operationOfPath(current.method, current.path);
  const out: Difference[] = queryDiffs(operation, current, candidate);
  // A request that needed more attempts on one side: a 429 waited out, or a read retried after no answer.
  if ((current.attempts ?? 1) !== (candidate.attempts ?? 1))
    out.push({ operation, kind: 'status', where: 'attempts', current: current.attempts ?? 1, candidate: candidate.attempts ?? 1 });
  if (current.status !== candidate.status)
    return [...out, { operation, kind: 'status', where: 'status', current: current.status, candidate: candidate.status }];
  const isList = /^list/.test(operation);
  const walk = (a: unknown, b: unknown, where: string): void => {
    const ta = jsonType(a);
    const tb = jsonType(b);
    if (ta !== tb) return void out.push({ operation, kind: 'type', where: where || '(body)', current: a, candidate: b });
    if (ta === 'object') {
      const ra = a as Record<string, unknown>;
      const rb = b as Record<string, unknown>;
      for (const k of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
        const at = where ? `${where}.${k}` : k;
        if (!(k in rb)) out.push({ operation, kind: 'field presence', where: at, current: 'present', candidate: 'absent' });
        else if (!(k in ra)) out.push({ operation, kind: 'field presence', where: at, current: 'absent', candidate: 'present' });
        else walk(ra[k], rb[k], at);
      }
      return;
    }
    if (ta === 'array') {
      const xa = a as unknown[];
      const xb = b as unknown[];
      const idsA = xa.map(itemId);
      const idsB = xb.map(itemId);
      const identified = idsA.every(Boolean) && idsB.every(Boolean);
      if (xa.length !== xb.length) {
        // A list's page of another length holds other items: its items are not compared place by place.
        const kind: ChangeKind = isList && where === 'data' ? 'page size' : 'body';
        out.push({ operation, kind, where: `${where}.length`, current: xa.length, candidate: xb.length });
        // Items with ids: those one side alone holds (a rule this read added) are a difference of their
        // own, so that ids made anew by each read are learnt as noise; those both hold are compared.
        if (identified) {
          if (idsA.some((id) => !idsB.includes(id)) || idsB.some((id) => !idsA.includes(id)))
            out.push({ operation, kind: 'body', where: `${where}[].id`, current: idsA, candidate: idsB });
          for (const [i, x] of xa.entries()) if (idsB.includes(idsA[i])) walk(x, xb[idsB.indexOf(idsA[i])], `${where}[]`);
        } else if (options.unequalLists === 'values') {
          const va = leafValues(xa, where);
          const vb = leafValues(xb, where);
          for (const at of new Set([...va.keys(), ...vb.keys()])) {
            const sa = va.get(at);
            const sb = vb.get(at);
            if (!sb) out.push({ operation, kind: 'field presence', where: at, current: 'present', candidate: 'absent' });
            else if (!sa) out.push({ operation, kind: 'field presence', where: at, current: 'absent', candidate: 'present' });
            else if ([...sa].sort().join('\u0000') !== [...sb].sort().join('\u0000'))
              out.push({
                operation,
                kind: at.split('.').at(-1) === 'message' ? 'message' : 'body',
                where: at,
                current: [...sa].map((j) => JSON.parse(j)),
                candidate: [...sb].map((j) => JSON.parse(j)),
              });
          }
        }
        return;
      }
      if (identified && idsA.join('\u0000') !== idsB.join('\u0000') && [...idsA].sort().join('\u0000') === [...idsB].sort().join('\u0000')) {
        out.push({ operation, kind: 'order', where: `${where}[]`, current: idsA, candidate: idsB });
        // The same items in another order: each compared with its namesake.
        for (const [i, x] of xa.entries()) walk(x, xb[idsB.indexOf(idsA[i])], `${where}[]`);
        return;
      }
      if (identified && idsA.join('\u0000') !== idsB.join('\u0000')) {
        // Other items (a page that starts elsewhere): one difference, and only the items both hold compared.
        out.push({ operation, kind: 'body', where: `${where}[].id`, current: idsA, candidate: idsB });
        for (const [i, x] of xa.entries()) if (idsB.includes(idsA[i])) walk(x, xb[idsB.indexOf(idsA[i])], `${where}[]`);
        return;
      }
      for (const [i, x] of xa.entries()) walk(x, xb[i], `${where}[]`);
      return;
    }
    if (a === b) return;
    if (ta === 'string' && aliases(a as string) === aliases(b as string)) return;
    const last = where.split('.').at(-1);
    out.push({ operation, kind: last === 'message' ? 'message' : 'body', where: where || '(body)', current: a, candidate: b });
  };
  walk(current.responseBody, candidate.responseBody, '');
  return out;
}

/** One test's exchanges on two sides, paired in order while their requests are the same request. */
export interface TestPairing {
  pairs: [Exchange, Exchange][];
  /** Where the two sides' requests part (the test took another path, or made more requests on one side). */
  diverged?: { at: number; current: Exchange | null; candidate: Exchange | null };
}

export function pairTest(current: Exchange[], candidate: Exchange[]): TestPairing {
  const pairs: [Exchange, Exchange][] = [];
  const n = Math.max(current.length, candidate.length);
  for (let i = 0; i < n; i++) {
    const a = current[i];
    const b = candidate[i];
    if (!a || !b || requestKey(a) !== requestKey(b)) return { pairs, diverged: { at: i, current: a ?? null, candidate: b ?? null } };
    pairs.push([a, b]);
  }
  return { pairs };
}

/**
 * Two reads' exchanges of one test on one side, paired by what they were: the k-th answer of each request
 * and status with the k-th of the same. With writes, a read meets the state the read before it left, so
 * its requests part from the earlier read's (a skip to a phase already skipped is refused, the next one
 * taken); the answers that are the same piece of work still pair, and what differs between them is noise.
 */
export function statePairs(a: Exchange[], b: Exchange[]): [Exchange, Exchange][] {
  const kinds = new Map<string, Exchange[]>();
  const kindOf = (e: Exchange) => `${requestKey(e)}|${e.status}`;
  for (const e of b) kinds.set(kindOf(e), [...(kinds.get(kindOf(e)) ?? []), e]);
  const taken = new Map<string, number>();
  const pairs: [Exchange, Exchange][] = [];
  for (const e of a) {
    const k = kindOf(e);
    const i = taken.get(k) ?? 0;
    const other = kinds.get(k)?.[i];
    if (!other) continue;
    taken.set(k, i + 1);
    pairs.push([e, other]);
  }
  return pairs;
}
