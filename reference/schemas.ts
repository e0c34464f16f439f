// Route schemas come from the contract (contracts/schemas, generated from contracts/openapi.yaml):
// the reference server never retypes a shape.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const SCHEMAS = fileURLToPath(new URL('../contracts/schemas/', import.meta.url));

interface OperationEntry {
  method: string;
  path: string;
  params?: string;
  query?: string;
  body?: string;
  response: string;
}

const index = JSON.parse(readFileSync(join(SCHEMAS, 'index.json'), 'utf8')) as { operations: Record<string, OperationEntry> };

function load(file: string | undefined): object | undefined {
  return file ? JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8')) : undefined;
}

/** Fastify route schema (params, querystring, body) of an operation, straight from the contract. */
export function routeSchema(operationId: string): { params?: object; querystring?: object; body?: object } {
  const op = index.operations[operationId];
  if (!op) throw new Error(`operation ${operationId} is not in the contract`);
  // Only the parts the operation has: Fastify warns about (and ignores) parts set to undefined.
  const parts: { params?: object; querystring?: object; body?: object } = {};
  if (op.params) parts.params = load(op.params);
  if (op.query) parts.querystring = load(op.query);
  if (op.body) parts.body = load(op.body);
  return parts;
}

export function operation(operationId: string): OperationEntry {
  return index.operations[operationId];
}

// Bodies are validated exactly (no coercion, unknown fields rejected by the contract's closed request
// schemas: a server that silently drops fields hides client bugs). Query strings and path params are
// text on the wire, so integers there are coerced; `array` coercion lets one `tags` value stand alone.
const bodyAjv = new Ajv2020({ strict: true, allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false });
const textAjv = new Ajv2020({ strict: true, allErrors: false, coerceTypes: true, removeAdditional: false, useDefaults: false });
addFormats(bodyAjv);
addFormats(textAjv);

export function compileFor(httpPart: string | undefined, schema: { $id?: string }) {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return (schema.$id && ajv.getSchema(schema.$id)) || ajv.compile(schema);
}
