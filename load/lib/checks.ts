// Every response is checked: status, envelope (spec 2.1) and the operation's response schema, with
// the validators bundled from contracts/schemas (load/lib/build-validators.ts).
import { check } from 'k6';
import type { RefinedResponse, ResponseType } from 'k6/http';
import * as validators from '../data/validators.js';
import type { Validator } from '../data/validators.js';

// One validator per operationId, exported under that name (load/data/validators.d.ts).
const byOperation = validators as unknown as Record<string, Validator | undefined>;
const { OPERATIONS } = validators;

let printed = 0;
/** A failed check prints one line with its evidence (no headers, so never the key), at most 20 per VU. */
function report(endpoint: string, what: string, res: RefinedResponse<ResponseType>, detail: string): void {
  if (printed++ >= 20) return;
  const body = typeof res.body === 'string' ? res.body.slice(0, 300) : '';
  console.warn(`check failed: ${endpoint} ${what}: ${res.request.method} ${res.url.replace(/^https?:\/\/[^/]+/, '')} -> ${res.status} ${detail} ${body}`);
}

export function isSuccess(operationId: string, status: number): boolean {
  // "200" where the spec shows 200, any 2xx where it shows only "a success response" (spec 4.0).
  return OPERATIONS[operationId].successStatus === '200' ? status === 200 : status >= 200 && status < 300;
}

export function parse(res: RefinedResponse<ResponseType>): unknown {
  try {
    return typeof res.body === 'string' ? JSON.parse(res.body) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks a success response of `operationId`; returns its parsed body, or undefined when a check failed.
 * `endpoint` is the tag value (the operationId, or operationId.variant), so a failed check names it.
 * `T` is the part of the body the caller reads (load/lib/bodies.ts): the schema check stands behind it.
 */
export function checkSuccess<T>(operationId: string, endpoint: string, res: RefinedResponse<ResponseType>): T | undefined {
  const body = parse(res);
  const tags = { endpoint };
  const statusOk = check(res, { [`${endpoint}: status is success`]: (r) => isSuccess(operationId, r.status) }, tags);
  if (!statusOk) {
    report(endpoint, 'status', res, '');
    return undefined;
  }
  // The overrides response may carry its arrays at the top level (spec 4.11's example); its schema admits both.
  const envelopeOk = check(
    body,
    {
      [`${endpoint}: envelope has message and data`]: (b) => isEnvelope(operationId, b),
    },
    tags,
  );
  const validate = byOperation[operationId];
  if (!validate) throw new Error(`no response validator for operation ${operationId}: load/data/validators.js is out of date`);
  const schemaOk = check(body, { [`${endpoint}: response matches schema`]: (b) => validate(b) }, tags);
  if (!envelopeOk || !schemaOk) {
    const errs = (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    report(endpoint, envelopeOk ? 'schema' : 'envelope', res, errs);
    return undefined;
  }
  return body as T;
}

function isEnvelope(operationId: string, b: unknown): boolean {
  if (b === null || typeof b !== 'object') return false;
  const o = b as Record<string, unknown>;
  if (operationId === 'patchExperimentOverrides' && Array.isArray(o.overrides)) return true;
  return typeof o.message === 'string' && 'data' in o;
}

/** A named property of a response that shows a write took effect (the sampled read-backs). */
export function checkThat(endpoint: string, name: string, ok: boolean): boolean {
  const passed = check(null, { [`${endpoint}: ${name}`]: () => ok }, { endpoint });
  if (!passed && printed++ < 20) console.warn(`check failed: ${endpoint}: ${name}`);
  return passed;
}
