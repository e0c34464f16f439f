// Response validation with the schemas generated from contracts/openapi.yaml (Ajv2020 + ajv-formats).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const SCHEMAS = fileURLToPath(new URL('../schemas/', import.meta.url));

/** `response` is the stated form of the success body's schema, `responseListed` the presence form (contracts/build.ts). */
export interface OperationInfo { method: string; path: string; section: string; successStatus: string; response: string; responseListed: string; body?: string }
export const OPERATIONS = (JSON.parse(readFileSync(join(SCHEMAS, 'index.json'), 'utf8')) as { operations: Record<string, OperationInfo> }).operations;
export type OperationId = keyof typeof OPERATIONS & string;

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const cache = new Map<string, ValidateFunction>();

function compiled(file: string): ValidateFunction {
  let v = cache.get(file);
  if (!v) {
    v = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8')));
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
export interface Absence { path: string; pattern: string; count: number }

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

/** Schema errors of a request body (for factories and negative data: is this body valid per the contract?). */
export function requestErrors(operationId: string, body: unknown): string[] {
  const file = OPERATIONS[operationId].body;
  if (!file) return [];
  const v = compiled(file);
  return v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/** Is this status a success of the operation? "200" where the spec shows 200, any 2xx elsewhere (spec 4.0). */
export function isSuccess(operationId: string, status: number): boolean {
  return OPERATIONS[operationId].successStatus === '200' ? status === 200 : status >= 200 && status < 300;
}
