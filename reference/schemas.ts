// Route schemas come from the contract (contracts/schemas, generated from contracts/openapi.yaml):
// the reference server never retypes a shape.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { contractAjv, OPERATIONS, schema, type Operation } from '../contracts/index.ts';

/** Fastify route schema (params, querystring, body) of an operation, straight from the contract. */
export function routeSchema(operationId: string): { params?: object; querystring?: object; body?: object } {
  const op = OPERATIONS[operationId];
  if (!op) throw new Error(`operation ${operationId} is not in the contract`);
  // Only the parts the operation has: Fastify warns about (and ignores) parts set to undefined. Copies:
  // Fastify may normalise a route schema in place, and the parsed contract is shared.
  const parts: { params?: object; querystring?: object; body?: object } = {};
  if (op.params) parts.params = structuredClone(schema(op.params));
  if (op.query) parts.querystring = structuredClone(schema(op.query));
  if (op.body) parts.body = structuredClone(schema(op.body));
  return parts;
}

export function operation(operationId: string): Operation {
  return OPERATIONS[operationId];
}

// Bodies are validated exactly (no coercion, unknown fields rejected by the contract's closed request
// schemas: a server that silently drops fields hides client bugs). Query strings and path params are
// text on the wire, so integers there are coerced; `array` coercion lets one `tags` value stand alone.
const bodyAjv = contractAjv({ allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false });
const textAjv = contractAjv({ allErrors: false, coerceTypes: true, removeAdditional: false, useDefaults: false });

/**
 * The validator of one route part, compiled on its first request: Fastify asks for every route's
 * validators when the server starts, and compiling them all took about a third of a start's CPU (0.6 s),
 * paid by every reference server a test or the self-test starts, most of which see a few routes only.
 * The validator runs as Ajv's own would: the same data (coerced in place), its errors where Fastify reads them.
 */
export function compileFor(httpPart: string | undefined, schema: { $id?: string }) {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= (schema.$id && ajv.getSchema(schema.$id)) || ajv.compile(schema);
    const valid = compiled(data) as boolean;
    validate.errors = compiled.errors;
    return valid;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
}
