// The values the checks send at and around the spec's bounds, and values outside its closed lists,
// all worked out from the contract's facts: a revision of the spec moves the checks with it
// (docs/spec-changes.md), and a server that keeps the old revision fails on the clause that moved.
import { METRIC_TYPES, SPEC_ALLOWED, SPEC_DEFAULTS, SPEC_LIMITS, SPEC_RETIRED } from '../index.ts';

/** The bounds of a metric's name (4.6, 8), in characters. */
export const NAME_LENGTH = SPEC_LIMITS.createMetric.name;
/** The longest description a metric may have (4.6, 8), in characters. */
export const DESCRIPTION_MAX = SPEC_LIMITS.createMetric.description.maxLength;
/** The most overrides one patch may carry (4.11, 8). */
export const OVERRIDES_MAX = SPEC_LIMITS.patchExperimentOverrides.overrides.maxItems;

/** `length` brought within the name's bounds: a name of a length the check does not judge. */
export const nameLengthWithin = (length: number): number => Math.min(Math.max(length, NAME_LENGTH.minLength), NAME_LENGTH.maxLength);
/**
 * The length of a metric name in checks whose subject is not the name: room for the manifest prefix,
 * the run id and a salt, so that names of one run differ, and within the name's bounds.
 */
export const NAME_LENGTH_ORDINARY = nameLengthWithin(30);

/**
 * Metric types a check sends where the type is not its subject: three of the contract's, so that checks
 * vary the type they send. A bare create of every type of 4.6 is one the spec accepts
 * (metrics.create.type.enum); a type a revision removes is never sent as a valid one.
 */
export const [METRIC_TYPE, METRIC_TYPE_2, METRIC_TYPE_3] = [0, 1, 2].map((i) => METRIC_TYPES[i % METRIC_TYPES.length]);

/**
 * The metric type whose definition lives in the warehouse, which the warehouseNative object (4.8)
 * describes: the contract's type named for it, else the first type.
 */
export const WAREHOUSE_METRIC_TYPE = METRIC_TYPES.find((t) => /warehouse/.test(t)) ?? METRIC_TYPE;

/** The directionality a create or update without one gets (4.6, 4.7). */
export const DIRECTIONALITY_DEFAULT = SPEC_DEFAULTS.createMetric.directionality;
/** An allowed directionality other than the default: sent, it reads back otherwise than the default would. */
export const DIRECTIONALITY_OTHER = otherThan(SPEC_ALLOWED.createMetric.directionality, DIRECTIONALITY_DEFAULT);

/** A value of the closed list `allowed` other than `value`. */
export function otherThan<V extends string>(allowed: readonly V[], value: string): V {
  const other = allowed.find((v) => v !== value);
  if (other === undefined) throw new Error(`the contract allows no value but ${JSON.stringify(value)} here: ${JSON.stringify(allowed)}`);
  return other;
}

/** `wanted`, or a variation of it, that the closed list `allowed` does not hold: a value the spec refuses. */
export function outside(allowed: readonly string[], wanted: string): string {
  let value = wanted;
  while (allowed.includes(value)) value = `${value}_cc`;
  return value;
}

/**
 * Values a server reading a closed list loosely would take: the words its own values are made of
 * (`composite_sum` gives `composite` and `sum`) that are not values of it themselves. A value a revision
 * of the spec removed is often such a word, and a server keeping the old revision still takes it.
 */
function wordsNotListed(allowed: readonly string[]): string[] {
  const words = allowed.flatMap((v) => v.split(/[^A-Za-z0-9]+/)).filter((w) => w.length >= 3);
  return [...new Set(words)].filter((w) => !allowed.includes(w));
}

/**
 * Values a request field's closed list refuses that a server may still take: the values an earlier
 * revision of the spec allowed (SPEC_RETIRED, kept by contracts:build), then the words its values are made of.
 */
export function refusedValues(operationId: string, field: string, allowed: readonly string[]): string[] {
  return [...new Set([...(SPEC_RETIRED[operationId]?.[field] ?? []), ...wordsNotListed(allowed)])].filter((v) => !allowed.includes(v));
}

/** The longest value of a closed list (the first of them where several are as long). */
export const longest = (values: readonly string[]): string => values.reduce((a, b) => (b.length > a.length ? b : a));
