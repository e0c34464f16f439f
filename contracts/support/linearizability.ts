// A linearizability checker for the histories of concurrent writers on one resource: the
// Wing-Gong-Lowe search with a cache of visited configurations (the algorithm Porcupine and Knossos
// use). No maintained, permissively licensed JavaScript checker exists on npm, and the histories the
// suite makes are small (a handful of operations on one resource), so it is kept compact here.
//
// A history is linearizable when its operations can be put in one order that respects real time (an
// operation that answered before another was sent comes first) and in which the model, stepping
// through them from its initial state, gives every answer that was got. A history the search cannot
// decide within its budget is 'unknown': never a pass (the caller makes it unverifiable).

/** One operation of a history: what was sent, what was answered, when it was sent and answered (ms). */
export interface HistoryOperation<I, O> {
  input: I;
  output: O;
  call: number;
  ret: number;
}

/** The sequential specification of the resource. */
export interface Model<S, I, O> {
  init: S;
  /** The state after `input` from `state`, when the model can answer `output` there; undefined when it cannot. */
  step(state: S, input: I, output: O): S | undefined;
  /** A key equal for equal states (the cache of visited configurations compares by it). */
  key(state: S): string;
}

export type LinearizabilityVerdict =
  | { result: 'linearizable'; order: number[] }
  | { result: 'not-linearizable'; explored: number }
  | { result: 'unknown'; reason: string };

/** The search's budget: configurations visited (each a state and the set of operations placed). */
export const DEFAULT_BUDGET = 100_000;

/**
 * Whether `history` is linearizable for `model`. Depth-first over the operations that may come next
 * (those no unplaced operation precedes in real time), backtracking on an answer the model cannot give;
 * a configuration seen before is not explored again.
 */
export function checkLinearizable<S, I, O>(model: Model<S, I, O>, history: readonly HistoryOperation<I, O>[], budget = DEFAULT_BUDGET): LinearizabilityVerdict {
  const n = history.length;
  if (n === 0) return { result: 'linearizable', order: [] };
  for (const [i, op] of history.entries())
    if (!(op.ret >= op.call)) return { result: 'unknown', reason: `operation ${i} answered (${op.ret}) before it was sent (${op.call})` };
  const seen = new Set<string>();
  const placed = new Array<boolean>(n).fill(false);
  const order: number[] = [];
  let visited = 0;
  // An operation may come next when every unplaced operation other than it was still running when it was sent.
  const mayComeNext = (i: number) => {
    for (let j = 0; j < n; j++) if (j !== i && !placed[j] && history[j].ret < history[i].call) return false;
    return true;
  };
  const search = (state: S): boolean | 'budget' => {
    if (order.length === n) return true;
    const config = `${placed.map((p) => (p ? 1 : 0)).join('')}|${model.key(state)}`;
    if (seen.has(config)) return false;
    seen.add(config);
    if (++visited > budget) return 'budget';
    for (let i = 0; i < n; i++) {
      if (placed[i] || !mayComeNext(i)) continue;
      const next = model.step(state, history[i].input, history[i].output);
      if (next === undefined) continue;
      placed[i] = true;
      order.push(i);
      const found = search(next);
      if (found !== false) return found;
      placed[i] = false;
      order.pop();
    }
    return false;
  };
  const found = search(model.init);
  if (found === 'budget') return { result: 'unknown', reason: `not decided within ${budget} configurations` };
  return found ? { result: 'linearizable', order: [...order] } : { result: 'not-linearizable', explored: visited };
}

/** Deep equality of JSON values, object keys in any order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A canonical text of a JSON value (object keys sorted): the key of a state. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * A record of fields, each a register: a write sets the fields it sends, and answers the whole record
 * as it is after the write (a metric update, spec 4.7). An answer is judged on the fields the model
 * tracks that it carries; a field it leaves out is not judged.
 */
export function fieldsModel(init: Record<string, unknown>): Model<Record<string, unknown>, Record<string, unknown>, Record<string, unknown>> {
  const fields = Object.keys(init);
  return {
    init,
    key: canonical,
    step: (state, input, output) => {
      const next = { ...state, ...input };
      return fields.every((f) => !Object.hasOwn(output, f) || sameJson(output[f], next[f])) ? next : undefined;
    },
  };
}

/**
 * A set of names (the rules of a gate, the overrides of an experiment) that each write adds to, kept
 * (`keep`: the new ones join the held ones) or replaced (`replace`: the new ones are all that is held),
 * answering the set after it: the two readings spec 4.1 and 4.11 leave open. Only the names the check
 * follows are in the state and the answers.
 */
export function setModel(init: readonly string[], merge: 'keep' | 'replace'): Model<readonly string[], readonly string[], readonly string[]> {
  const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
  return {
    init: sorted(init),
    key: (s) => s.join('\u0000'),
    step: (state, added, answered) => {
      const next = sorted(merge === 'keep' ? [...state, ...added] : added);
      const got = sorted(answered);
      return next.length === got.length && next.every((x, i) => x === got[i]) ? next : undefined;
    },
  };
}

/**
 * Adds to a set judged against both readings spec 4.1 and 4.11 leave open (kept or replaced):
 * linearizable when either explains the history; unknown when neither does and one was not decided.
 */
export function checkAddsKeptOrReplaced(
  history: readonly HistoryOperation<readonly string[], readonly string[]>[],
  budget = DEFAULT_BUDGET,
): LinearizabilityVerdict {
  const verdicts = (['keep', 'replace'] as const).map((merge) => checkLinearizable(setModel([], merge), history, budget));
  return (
    verdicts.find((v) => v.result === 'linearizable') ??
    verdicts.find((v) => v.result === 'unknown') ?? {
      result: 'not-linearizable',
      explored: verdicts.reduce((n, v) => n + (v.result === 'not-linearizable' ? v.explored : 0), 0),
    }
  );
}

/** Sends one operation of a history, and keeps what was sent and when it was sent and answered (ms, one clock). */
export async function timed<I, R>(input: I, send: () => Promise<R>): Promise<{ input: I; reply: R; call: number; ret: number }> {
  const call = performance.now();
  const reply = await send();
  return { input, reply, call, ret: performance.now() };
}
