// Response validation with the schemas generated from contracts/openapi.yaml (Ajv2020 + ajv-formats).
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { contractAjv, OPERATIONS, schema } from '../index.ts';
import { alsoOfError, clauseOfError, formsAt } from './schema-clauses.ts';
import type { Json } from '../../core/json.ts';
import { isSuccessStatus } from '../../core/success-status.ts';

export { OPERATIONS, requestErrors, type Operation as OperationInfo, type OperationId } from '../index.ts';

const ajv = contractAjv({ allErrors: true });
const cache = new Map<string, ValidateFunction>();

function compiled(file: string): ValidateFunction {
  let v = cache.get(file);
  if (!v) {
    v = ajv.compile(schema(file));
    cache.set(file, v);
  }
  return v;
}

/** Schema errors of an operation's success response body against what the spec states (types and stated presence), as readable lines ([] when valid). */
export function responseErrors(operationId: string, body: unknown): string[] {
  const v = compiled(OPERATIONS[operationId].response);
  return v(body) ? [] : (v.errors ?? []).slice(0, 8).map(line);
}

const line = (e: ErrorObject) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`;

/** One schema error of a response body, and the clause it belongs to (support/schema-clauses.ts), if one takes it. */
export interface ResponseError {
  line: string;
  clause?: string;
  /** General clauses the error breaks beside its own (a timestamp's type: timestamps.integer), blamed with it. */
  also?: string[];
}

/**
 * The schema errors of an operation's success response body, each with its clause ([] when valid). Where
 * the body is held to one of several forms (anyOf: the overrides answer of 4.11), only the errors of the
 * form it comes closest to: a top-level answer with one bad item is not also told it lacks an envelope.
 * Closest is the form whose own fields the body lacks fewest of, then fewest defects, one defect being
 * one error however many items repeat it (defectOf): a top-level answer whose 1000 items each lack a
 * field is that form's, with one defect, and not the envelope's, which lacks message and data.
 */
export function responseErrorsByClause(operationId: string, body: unknown): ResponseError[] {
  const file = OPERATIONS[operationId].response;
  const v = compiled(file);
  if (v(body)) return [];
  const doc = schema(file);
  const out = new Map<string, ResponseError>();
  for (const error of closestForm(file, doc, v.errors ?? [], body)) {
    const clause = clauseOfError(doc, error);
    const also = clause ? alsoOfError(error) : [];
    // One absence stated by two components (a rule's environments) is one error.
    const key = error.keyword === 'required' ? `${error.instancePath} required ${JSON.stringify(error.params)} ${clause}` : `${line(error)} ${clause}`;
    if (!out.has(key)) out.set(key, { line: line(error), ...(clause ? { clause } : {}), ...(also.length > 0 ? { also } : {}) });
  }
  return [...out.values()];
}

/** What an error breaks, whichever item of a list it is found in: its path with the array indices read as `*`, its keyword and its parameters. */
const defectOf = (e: ErrorObject) => `${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*')} ${e.keyword} ${JSON.stringify(e.params)}`;

function closestForm(file: string, doc: Json, errors: ErrorObject[], body: unknown): ErrorObject[] {
  const choice = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const forms = choice && formsAt(doc, choice.instancePath);
  if (!choice || !forms) return errors;
  const at = choice.instancePath;
  let instance: Json = body;
  for (const k of at.split('/').slice(1)) instance = instance?.[k.replace(/~1/g, '/').replace(/~0/g, '~')];
  let best: ErrorObject[] | undefined;
  let bestDistance: [lacking: number, defects: number] = [0, 0];
  forms.forEach((form, i) => {
    const key = `${file}${at}#${i}`;
    let fv = cache.get(key);
    if (!fv) {
      fv = ajv.compile({ $defs: doc.$defs, ...(form as object) });
      cache.set(key, fv);
    }
    const found = fv(instance) ? [] : (fv.errors ?? []).map((e) => ({ ...e, instancePath: at + e.instancePath }));
    const lacking = found.filter((e) => e.keyword === 'required' && e.instancePath === at).length;
    const defects = new Set(found.map(defectOf)).size;
    if (!best || lacking < bestDistance[0] || (lacking === bestDistance[0] && defects < bestDistance[1])) {
      best = found;
      bestDistance = [lacking, defects];
    }
  });
  return [...errors.filter((e) => !e.instancePath.startsWith(at)), ...(best ?? [])];
}

/** A listed field found absent: its first path (`/data/3/layerID`), its pattern (`/data/*\/layerID`) and how many times. */
export interface Absence {
  path: string;
  pattern: string;
  count: number;
}

/**
 * The listed fields absent from a success response body: the `required` errors of the presence form
 * (`responseListed`), one entry per field pattern (list indices read as `*`). Meant for a body that
 * the stated form accepts; other errors of the presence form are the stated form's, reported there.
 */
export function absentListed(operationId: string, body: unknown): Absence[] {
  const v = compiled(OPERATIONS[operationId].responseListed);
  if (v(body)) return [];
  const found = new Map<string, Absence>();
  for (const e of v.errors ?? []) {
    if (e.keyword !== 'required') continue;
    const path = `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
    const pattern = path.replace(/\/\d+(?=\/)/g, '/*');
    const seen = found.get(pattern);
    if (seen) seen.count++;
    else found.set(pattern, { path, pattern, count: 1 });
  }
  return [...found.values()];
}

/**
 * The fields the spec names that a success response body carries spelt in another case ("field names
 * are case-sensitive", spec 2): a field the presence form (stated or listed) looks for and does not find,
 * where the same object has a key that differs from its name only in case (`baseId` for `baseID`). One
 * line per field pattern (list indices read as `*`), e.g. `/data/rules/*: baseId for baseID`. A key of
 * another case beside the field itself is another field, and not counted.
 */
export function otherCase(operationId: string, body: unknown): string[] {
  const v = compiled(OPERATIONS[operationId].responseListed);
  if (v(body)) return [];
  const found = new Set<string>();
  for (const e of v.errors ?? []) {
    if (e.keyword !== 'required') continue;
    const missing = (e.params as { missingProperty: string }).missingProperty;
    const parent = valueAt(body, e.instancePath);
    if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) continue;
    const spelt = Object.keys(parent).find((k) => k !== missing && k.toLowerCase() === missing.toLowerCase());
    if (spelt !== undefined) found.add(`${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '/'}: ${spelt} for ${missing}`);
  }
  return [...found];
}

/** The value at a JSON pointer of `body` (an Ajv instancePath), undefined when there is none. */
function valueAt(body: unknown, instancePath: string): unknown {
  let at: Json = body;
  for (const k of instancePath.split('/').slice(1)) at = at?.[k.replace(/~1/g, '/').replace(/~0/g, '~')];
  return at;
}

/** Is this status a success of the operation? "200" where the spec shows 200, any 2xx elsewhere (spec 4.0). */
export function isSuccess(operationId: string, status: number): boolean {
  return isSuccessStatus(OPERATIONS[operationId].successStatus, status);
}
