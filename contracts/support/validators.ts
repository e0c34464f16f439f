// Response validation with the schemas generated from contracts/openapi.yaml (Ajv2020 + ajv-formats).
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { contractAjv, OPERATIONS, schema } from '../index.ts';

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
  return v(body) ? [] : (v.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ' ' + JSON.stringify(e.params) : ''}`);
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

/** Is this status a success of the operation? "200" where the spec shows 200, any 2xx elsewhere (spec 4.0). */
export function isSuccess(operationId: string, status: number): boolean {
  return OPERATIONS[operationId].successStatus === '200' ? status === 200 : status >= 200 && status < 300;
}
