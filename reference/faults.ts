// The registry of faults and legal variants, for the conformance suite's self-test. A fault is a
// defect the suite must catch; a variant is a behaviour the spec allows because it says "not shown",
// which the suite must accept. Both are off unless named on the command line (`--fault`, `--variant`).
//
// Each is an entry of one layer (layers/types.ts says what an entry is): the request layer
// (layers/request.ts), the storage layer (layers/storage.ts), the response layer (layers/response.ts)
// and the error layer (layers/errors.ts). Adding one means adding an entry there, and a probe in
// faults.test.ts; the handlers in routes/ never change for it. This file lists them all
// (`serve --list-faults`), checks names given on the command line, and hands each layer the changes
// that are on.
import { OPERATIONS } from '../contracts/index.ts';
import type { ListedSwitch, ListedVariant } from '../core/formats.ts';
import { ERROR_SWITCHES } from './layers/errors.ts';
import { type GeneratedEdit, generatedSwitches, isGeneratedName } from './layers/generated.ts';
import { REQUEST_SWITCHES } from './layers/request.ts';
import { RESPONSE_SWITCHES } from './layers/response.ts';
import { STORAGE_SWITCHES } from './layers/storage.ts';
import type { AnySwitch, ErrorChange, Level, RequestChange, ResponseChange, StorageChange } from './layers/types.ts';

/** Every switch of every layer. */
export const SWITCHES = [...REQUEST_SWITCHES, ...STORAGE_SWITCHES, ...RESPONSE_SWITCHES, ...ERROR_SWITCHES] as const satisfies readonly AnySwitch[];
type Entry = (typeof SWITCHES)[number];
/** An entry written by hand (SWITCHES) or generated from the contract (layers/generated.ts). */
type AnyEntry = Entry | ReturnType<typeof generatedSwitches>[number];

/** The name of a fault: a probe keyed by a name not among the faults does not compile (faults.test.ts). */
export type FaultName = Extract<Entry, { kind: 'fault' }>['name'];
/** The name of a variant (with a parameter, its name before the colon: rules-cap of rules-cap:10). */
export type VariantName = Extract<Entry, { kind: 'variant' }>['name'];

const listed = (e: Entry): ListedSwitch => ({
  name: e.name,
  description: e.description,
  clause: e.clause,
  level: e.level,
  layer: e.layer,
  ...('strict' in e ? { strict: e.strict } : {}),
  ...('parameter' in e ? { parameter: e.parameter.syntax } : {}),
  ...('scale' in e && e.scale ? { scale: e.scale } : {}),
  ...('files' in e && e.files ? { files: e.files } : {}),
});

export const FAULTS: readonly (ListedSwitch & { name: FaultName })[] = SWITCHES.filter((e) => e.kind === 'fault').map(listed) as (ListedSwitch & {
  name: FaultName;
})[];
export const VARIANTS: readonly (ListedVariant & { name: VariantName })[] = SWITCHES.filter((e) => e.kind === 'variant').map(listed) as (ListedVariant & {
  name: VariantName;
})[];

export const isFault = (name: string): name is FaultName => FAULTS.some((f) => f.name === name);

/**
 * The faults generated from the contract (layers/generated.ts), as listed: not in FAULTS, which the
 * self-test runs in `npm test` (a run each would take about half an hour more); `serve --list-faults
 * --generated` adds them and `npm run clauses:proof` runs them.
 */
export function generatedFaults(): ListedSwitch[] {
  return generatedSwitches().map((e) => ({
    name: e.name,
    description: e.description,
    clause: e.clause,
    level: e.level,
    layer: e.layer,
    generated: e.generated,
    ...(e.alongside ? { alongside: e.alongside } : {}),
  }));
}
export const isVariant = (name: string): name is VariantName => VARIANTS.some((v) => v.name === name);

/**
 * Faults with a parameter, for measuring the load compare rather than the suite: not in FAULTS (the
 * self-test runs every one of those), parsed and checked apart (parseSlowFault), applied by latency.ts.
 */
export const PARAMETRISED_FAULTS = [
  {
    name: 'slow:<operationId>:<percent>',
    description:
      "one operation answers that much slower: its total time (injected --latency plus handler time) is scaled by 1 + percent/100; only requests that reach the operation's handler (not one refused by the key check)",
    clause: 'none: a regression of known size for the load compare (docs/load.md)',
  },
] as const satisfies readonly { name: string; description: string; clause: string }[];

/** A parsed `slow:<operationId>:<percent>`. */
export interface SlowFault {
  operationId: string;
  percent: number;
}

export const isSlowFault = (name: string): boolean => name.startsWith('slow:');

/** `slow:<operationId>:<percent>` as a SlowFault, or the one-line reason it is not one. */
export function parseSlowFault(name: string): SlowFault | string {
  const m = /^slow:([^:]*):([^:]*)$/.exec(name);
  if (!m) return `fault ${JSON.stringify(name)} must be slow:<operationId>:<percent>`;
  const [, operationId, text] = m;
  if (!Object.hasOwn(OPERATIONS, operationId))
    return `fault ${JSON.stringify(name)}: unknown operationId ${JSON.stringify(operationId)} (one of ${Object.keys(OPERATIONS).sort().join(', ')})`;
  const percent = Number(text);
  if (text.trim() === '' || !Number.isFinite(percent) || percent <= 0 || percent > 10_000)
    return `fault ${JSON.stringify(name)}: the percent must be a number above 0 and at most 10000, got ${JSON.stringify(text)}`;
  return { operationId, percent };
}

/** The slow: faults among the given fault names (assumed checked by checkSwitches). */
export function slowFaults(faults: readonly string[]): SlowFault[] {
  return faults
    .filter(isSlowFault)
    .map(parseSlowFault)
    .filter((f): f is SlowFault => typeof f !== 'string');
}

/** The entry a command-line name selects, with its parameter text (after the first colon), or the reason there is none. */
function entryFor(given: string, kind: 'fault' | 'variant'): { entry: AnyEntry; text: string | undefined } | string {
  // A generated name holds colons of its own (gen:type:metric.field.id) and takes no parameter.
  if (kind === 'fault' && isGeneratedName(given)) {
    const entry = generatedSwitches().find((e) => e.name === given);
    return entry ? { entry, text: undefined } : `unknown fault ${JSON.stringify(given)} (see --list-faults --generated)`;
  }
  const colon = given.indexOf(':');
  const name = colon < 0 ? given : given.slice(0, colon);
  const text = colon < 0 ? undefined : given.slice(colon + 1);
  const entry = SWITCHES.find((e) => e.kind === kind && e.name === name);
  if (!entry || (text !== undefined && !('parameter' in entry))) return `unknown ${kind} ${JSON.stringify(given)} (see --list-faults)`;
  return { entry, text };
}

/** The change a selected entry makes: its fixed one, or the one made from its parameter (or the reason the parameter is wrong). */
function changeOf(entry: AnyEntry, text: string | undefined): unknown {
  return 'parameter' in entry ? entry.parameter.configure(text) : entry.change;
}

export function checkSwitches(faults: string[], variants: string[]): string | undefined {
  const slowed = new Set<string>();
  for (const f of faults) {
    if (!isSlowFault(f)) continue;
    const slow = parseSlowFault(f);
    if (typeof slow === 'string') return slow;
    if (slowed.has(slow.operationId)) return `fault slow:${slow.operationId} is given twice`;
    slowed.add(slow.operationId);
  }
  const seen = new Set<string>();
  for (const found of selected(faults, variants)) {
    if (typeof found === 'string') return found;
    // One value of a parameter per server: rules-cap and rules-cap:10 together are refused.
    if ('parameter' in found.entry && seen.has(found.entry.name)) return `${found.entry.kind} ${found.entry.name} is given twice`;
    seen.add(found.entry.name);
  }
  return undefined;
}

/** Each named fault (slow: ones aside) and variant with the change it makes, or the reason it cannot be made. */
function* selected(faults: readonly string[], variants: readonly string[]): Generator<{ entry: AnyEntry; change: unknown } | string> {
  for (const [kind, names] of [
    ['fault', faults.filter((f) => !isSlowFault(f))],
    ['variant', variants],
  ] as const) {
    for (const given of names) {
      const found = entryFor(given, kind);
      if (typeof found === 'string') {
        yield found;
        continue;
      }
      const change = changeOf(found.entry, found.text);
      yield typeof change === 'string' ? change : { entry: found.entry, change };
    }
  }
}

/** The changes that are on, per layer, each in the order of its layer's entries. */
export interface ActiveLayers {
  request: RequestChange[];
  storage: StorageChange[];
  response: ResponseChange[];
  errors: ErrorChange[];
  /** How many switches of the registry are on (slow: faults are not among them). */
  count: number;
}

/** The changes of the named faults and variants (assumed checked by checkSwitches), made once for one server. */
export function activeLayers(faults: readonly string[], variants: readonly string[]): ActiveLayers {
  const on = new Map<AnyEntry, unknown>();
  for (const found of selected(faults, variants)) {
    if (typeof found === 'string') throw new Error(found);
    on.set(found.entry, found.change);
  }
  // Generated entries apply after the hand-written ones of their layer.
  const all: readonly AnyEntry[] = [...on.keys()].some((e) => isGeneratedName(e.name)) ? [...SWITCHES, ...generatedSwitches()] : SWITCHES;
  const of = <C>(layer: Entry['layer']) => all.filter((e) => e.layer === layer && on.has(e)).map((e) => on.get(e) as C);
  return { request: of('request'), storage: of('storage'), response: of('response'), errors: of('errors'), count: on.size };
}
