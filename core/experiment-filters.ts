// The experiment list's filters (spec 4.4) as rules on one experiment: which experiments a filter can
// judge and which of those it selects. The conformance suite and the load profiles judge filtered
// answers by these rules, so that both say the same of the same answer.

import type { Json } from './json.ts';

/** The filters of listExperiments that select by a field of the experiment. */
export type FieldFilterName = 'status' | 'idType' | 'layerID' | 'creatorID' | 'creatorName' | 'targetAppID' | 'tags';

/** A filter as a rule on one experiment. */
export interface FilterRule {
  /** Whether the experiment can be judged: it carries the filtered field (a listed field's presence is only inferred, docs/presence.md). */
  judged: (e: Json) => boolean;
  /** Whether a judged experiment belongs in the filtered answer. */
  matches: (e: Json) => boolean;
}

/** The field each filter selects by: targetAppID by an element of targetApps (2.2), tags by an element of tags. */
export const FILTERED_FIELD: Record<FieldFilterName, string> = {
  status: 'status',
  idType: 'idType',
  layerID: 'layerID',
  creatorID: 'creatorID',
  creatorName: 'creatorName',
  targetAppID: 'targetApps',
  tags: 'tags',
};

const LIST_FIELDS = new Set(['targetApps', 'tags']);

const carries = (e: Json, field: string) => e !== null && typeof e === 'object' && !Array.isArray(e) && Object.hasOwn(e, field);

/**
 * A filter of a field: an experiment that carries the field is judged, a null included (it is not the
 * value asked for); a list field matches when it holds the value, any other when it equals it.
 */
export function fieldRule(name: FieldFilterName, value: string): FilterRule {
  const field = FILTERED_FIELD[name];
  return {
    judged: (e) => carries(e, field),
    matches: LIST_FIELDS.has(field) ? (e) => Array.isArray(e[field]) && e[field].includes(value) : (e) => e[field] === value,
  };
}

const DAY = 86_400_000;

/** Timestamps' unit is not shown (spec 2.2): a value above 1e11 is read as milliseconds, others as seconds. */
export const createdMs = (x: number): number => (x > 1e11 ? x : x * 1000);

/** The UTC day (YYYY-MM-DD) of an instant in milliseconds. */
export const isoDay = (msTime: number): string => new Date(msTime).toISOString().slice(0, 10);

/**
 * createdStartDate and/or createdEndDate (YYYY-MM-DD) as a rule. Neither the bounds' inclusiveness nor
 * their time zone is shown (4.4): a day may run anywhere from UTC+14 to UTC-12, so only an experiment
 * created more than a day outside each bound's UTC day is judged; it matches when it is past the start
 * and before the end.
 */
export function createdRule(bounds: { start?: string; end?: string }): FilterRule {
  const windows = [bounds.start, bounds.end].filter((d): d is string => d !== undefined).map((d) => Date.parse(`${d}T00:00:00Z`));
  const near = (t: number) => windows.some((day) => t >= day - DAY && t < day + 2 * DAY);
  const start = bounds.start === undefined ? undefined : Date.parse(`${bounds.start}T00:00:00Z`);
  const end = bounds.end === undefined ? undefined : Date.parse(`${bounds.end}T00:00:00Z`);
  return {
    judged: (e) => carries(e, 'createdTime') && typeof e.createdTime === 'number' && !near(createdMs(e.createdTime)),
    matches: (e) => {
      const t = createdMs(e.createdTime);
      return (start === undefined || t >= start + 2 * DAY) && (end === undefined || t < end - DAY);
    },
  };
}
