// Every response is checked: status, envelope (spec 2.1) and the operation's response schema, with
// the validators bundled from contracts/schemas (load/lib/build-validators.ts).
//
// A check names its clause and has that clause's level in contracts/clauses.yaml (./clause-levels.ts):
// a stated one fails the run, an inferred one is a warning (a failure under CONSOLE_STRICT=1), and
// what the spec leaves open is not checked under load at all. An answer that is the network's doing rather than the target's (no
// answer, a redirect, a 429, a 2xx or 5xx that is not JSON: core/transport-rule.ts) checks nothing:
// it is counted apart per endpoint (load/lib/runtime.ts `network`), and a run over its budget could not be carried out
// (exit 3), never a contract failure (docs/load.md, "Levels and transport").
import { countFailure, parsedBody, type Response, transportReason } from './http.ts';
import { check, endpointOf, INFERRED_MARK } from './runtime.ts';
import { transportKind } from '../../core/transport-rule.ts';
import { isSuccessStatus } from '../../core/success-status.ts';
import { type CheckLevel, clauseLevel } from './clause-levels.ts';
import * as validators from '../data/validators.js';
import type { Validator } from '../data/validators.js';

// One validator per operationId, exported under that name (load/data/validators.d.ts).
const byOperation = validators as unknown as Record<string, Validator | undefined>;
const { CHECKED_OPERATIONS, CLAUSE_LEVELS } = validators;

export { INFERRED_MARK, transportReason };

/** The level of `clause` in the catalogue; a clause it does not hold, or leaves open, throws. */
const levelOf = (clause: string): CheckLevel => clauseLevel(CLAUSE_LEVELS, clause);

let printed = 0;
/** A failed check prints one line with its evidence (no headers, so never the key), at most 20 per VU. */
function report(endpoint: string, what: string, res: Response, detail: string): void {
  if (printed++ >= 20) return;
  const body = typeof res.body === 'string' ? res.body.slice(0, 300) : '';
  console.warn(`check failed: ${endpoint} ${what}: ${res.request.method} ${res.url.replace(/^https?:\/\/[^/]+/, '')} -> ${res.status} ${detail} ${body}`);
}

/** Is this status a success of the operation (spec 4.0, core/success-status.ts)? */
export function succeeded(operationId: string, status: number): boolean {
  return isSuccessStatus(CHECKED_OPERATIONS[operationId].successStatus, status);
}

/** The answer's body as JSON (parsed once per answer, whoever reads it first), undefined when it is not. */
export function parse(res: Response): unknown {
  return parsedBody(res);
}

let printedTransport = 0;
/**
 * True when `res` is the target's answer. Otherwise it is counted as a transport failure of `endpoint`
 * (by kind), printed (at most 10 lines per VU: method, path, reason; never a header) and false.
 */
export function answered(endpoint: string, res: Response): boolean {
  const reason = transportReason(res);
  const e = endpointOf(endpoint);
  e.looked++;
  if (reason === undefined) return true;
  const kind = transportKind(reason);
  e.network[kind] = (e.network[kind] ?? 0) + 1;
  // An answer of the expected status that was still the network's (a 200 that is not JSON) fails as one that was not.
  countFailure(endpoint, res);
  if (printedTransport++ < 10)
    console.warn(`no usable answer: ${endpoint}: ${res.request.method} ${res.url.replace(/^https?:\/\/[^/]+/, '').replace(/\?.*$/, '')} -> ${reason}`);
  return false;
}

/**
 * Checks a success response of `operationId`; returns its parsed body, or undefined when a check failed
 * or the network answered instead of the target (then nothing is checked). `endpoint` is the tag value
 * (the operationId, or operationId.variant), so a failed check names it. `T` is the part of the body the
 * caller reads (load/lib/bodies.ts): the schema check stands behind it. The status is held to the
 * operation's status clause, the envelope to envelope.successObject, the schema to the operation's own
 * clause (CHECKED_OPERATIONS[op].clauses, load/lib/build-validators.ts).
 */
export function checkSuccess<T>(operationId: string, endpoint: string, res: Response): T | undefined {
  if (!answered(endpoint, res)) return undefined;
  const body = parse(res);
  const clauses = CHECKED_OPERATIONS[operationId].clauses;
  const statusOk = check(res, { [`${endpoint}: status is success`]: (r) => succeeded(operationId, r.status) }, endpoint, levelOf(clauses.status));
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
    endpoint,
    levelOf('envelope.successObject'),
  );
  const validate = byOperation[operationId];
  if (!validate) throw new Error(`no response validator for operation ${operationId}: load/data/validators.js is out of date`);
  const schemaOk = check(body, { [`${endpoint}: response matches schema`]: (b) => validate(b) }, endpoint, levelOf(clauses.schema));
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

/** A named property of an answer, at the level of `clause` in contracts/clauses.yaml (the read-backs, filters, paging). */
export function checkThat(endpoint: string, name: string, ok: boolean, clause: string): boolean {
  const level = levelOf(clause);
  const title = level === 'inferred' ? `${endpoint}: ${name}${INFERRED_MARK}` : `${endpoint}: ${name}`;
  const passed = check(null, { [title]: () => ok }, endpoint, level);
  if (!passed && printed++ < 20) console.warn(`check failed: ${title}`);
  return passed;
}
