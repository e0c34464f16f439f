// Mechanical edits a switch is made of, by path: a stated message changed, a listed field dropped or
// given another type, a required request field no longer required, a bound moved. Switches written by
// hand use them where they fit; switches generated from the contract are made of nothing else.
import type { RequestChange, ResponseChange, ResponseView } from './types.ts';
import type { Json, JsonObject } from '../../core/json.ts';

type Node = JsonObject;

/**
 * Calls `fn(parent, key)` for every field at `path` that is present: dotted keys, `[]` after a key
 * for each item of its array (`data.rules[].environments`, `data[].createdTime`).
 */
export function eachAt(root: unknown, path: string, fn: (parent: Node, key: string) => void): void {
  const steps = path.split('.');
  if (steps.at(-1)?.endsWith('[]')) throw new Error(`path ${path}: the last step names a field, not an array's items`);
  const walk = (node: unknown, i: number): void => {
    if (!node || typeof node !== 'object') return;
    const many = steps[i].endsWith('[]');
    const key = many ? steps[i].slice(0, -2) : steps[i];
    const o = node as Node;
    if (i === steps.length - 1) {
      if (Object.hasOwn(o, key)) fn(o, key);
    } else if (!many) walk(o[key], i + 1);
    else if (Array.isArray(o[key])) for (const item of o[key]) walk(item, i + 1);
  };
  walk(root, 0);
}

const isObject = (v: unknown): v is Node => !!v && typeof v === 'object' && !Array.isArray(v);

/** The success answer of `operations` carries `text` as its message (when `when` holds, if given). */
export function setMessage(operations: readonly string[], text: string, when?: (r: ResponseView) => boolean): ResponseChange {
  return {
    operations,
    transform: (r) => {
      if (isObject(r.body) && (!when || when(r))) r.body.message = text;
    },
  };
}

/** The field at `path` is left out of the success answer of `operations` (only where `when` holds of its value, if given). */
export function dropField(operations: readonly string[], path: string, when?: (value: unknown) => boolean): ResponseChange {
  return {
    operations,
    transform: (r) =>
      eachAt(r.body, path, (parent, key) => {
        if (!when || when(parent[key])) delete parent[key];
      }),
  };
}

/** The field at `path` of the success answer of `operations` is given another value (another type: `String`). */
export function retypeField(operations: readonly string[], path: string, to: (value: Json) => unknown): ResponseChange {
  return {
    operations,
    transform: (r) =>
      eachAt(r.body, path, (parent, key) => {
        parent[key] = to(parent[key]);
      }),
  };
}

/** The request body's schema definition `definition` no longer requires `field`. */
export function dropRequired(definition: string, field: string): NonNullable<RequestChange['schema']> {
  return (s, part) => {
    if (part !== 'body') return;
    const d = s.$defs?.[definition];
    if (!d?.required?.includes(field)) throw new Error(`schema edit: ${definition} does not require ${field}`);
    d.required = d.required.filter((f: string) => f !== field);
  };
}

/** The request body's `definition.field` has `keyword` (minLength, maxItems ...) set to `value`, or removed when undefined. */
export function setBound(definition: string, field: string, keyword: string, value: number | undefined): NonNullable<RequestChange['schema']> {
  return (s, part) => {
    if (part !== 'body') return;
    const p = s.$defs?.[definition]?.properties?.[field];
    if (!p) throw new Error(`schema edit: ${definition} has no field ${field}`);
    if (value === undefined) delete p[keyword];
    else p[keyword] = value;
  };
}

/** The request body's `definition.field` admits only `type` (a field the contract types otherwise: its values are refused). */
export function retypeRequestField(definition: string, field: string, type: string): NonNullable<RequestChange['schema']> {
  return (s, part) => {
    if (part !== 'body') return;
    const d = s.$defs?.[definition];
    if (!d?.properties?.[field]) throw new Error(`schema edit: ${definition} has no field ${field}`);
    d.properties[field] = { type };
  };
}

/** Several response changes as one, applied in order, each to the operations it names. */
export function combine(changes: readonly ResponseChange[]): ResponseChange {
  const operations = [...new Set(changes.flatMap((c) => (c.operations === 'all' ? [] : c.operations)))];
  return {
    operations: changes.some((c) => c.operations === 'all') ? 'all' : operations,
    transform: (r) => {
      for (const c of changes) if (c.operations === 'all' || (r.operationId !== undefined && c.operations.includes(r.operationId))) c.transform(r);
    },
  };
}
