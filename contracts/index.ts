// The contract as the rest of the project sees it: the operation table of contracts/schemas/index.json
// (generated from openapi.yaml by build.ts), the generated schemas by their index paths, one way to
// build an Ajv for them, and the closed enums the contract declares. Every folder that needs the
// contract imports this module; none reads index.json or retypes an enum itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readYaml } from '../core/yaml.ts';
import type { JsonObject } from '../core/json.ts';

// ajv-formats is CommonJS; seen through NodeNext interop its default export is typed as the module.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** contracts/schemas/, where build.ts writes the JSON Schemas (paths in the index are relative to it). */
export const SCHEMAS_DIR = fileURLToPath(new URL('./schemas/', import.meta.url));
export const INDEX_PATH = join(SCHEMAS_DIR, 'index.json');

/** One operation of the contract, as build.ts writes it into index.json. */
export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** With `{id}` where the operation has a path id. */
  path: string;
  /** The spec section that shows it (4.1 ...). */
  section: string;
  /** The success message the spec states for it, where it states one. */
  message?: string;
  clauses: string[];
  /** "200" where the spec shows 200, "2XX" where any success will do (spec 4.0). */
  successStatus: '200' | '2XX';
  /** The success body's schema, stated form: types and the presence the spec's words state. */
  response: string;
  /** The same with every field the spec's tables list required (the presence form, docs/presence.md). */
  responseListed: string;
  body?: string;
  params?: string;
  query?: string;
}

export type OperationId = string;

/** Every operation of the contract by operationId. */
export const OPERATIONS: Readonly<Record<OperationId, Operation>> = (
  JSON.parse(readFileSync(INDEX_PATH, 'utf8')) as { operations: Record<OperationId, Operation> }
).operations;

const parsed = new Map<string, { $id?: string; [k: string]: unknown }>();

/** A generated schema by its path relative to contracts/schemas/ (as the index names it), parsed once. */
export function schema(file: string): { $id?: string; [k: string]: unknown } {
  let s = parsed.get(file);
  if (!s) {
    s = JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')) as { $id?: string };
    parsed.set(file, s);
  }
  return s;
}

/**
 * An Ajv for the contract's JSON Schema 2020-12 with its formats, strict by default. Callers choose
 * the rest (error collection, coercion of text parts, standalone code); never `removeAdditional`:
 * a validator that silently drops fields hides client bugs.
 */
export function contractAjv(options: Options = {}): Ajv2020 {
  return addFormats(new Ajv2020({ strict: true, ...options }));
}

function enumOf(component: string): readonly string[] {
  const s = schema(`components/${component}.json`) as { $defs: Record<string, { enum?: string[] }> };
  const values = s.$defs[component]?.enum;
  if (!values?.length) throw new Error(`contracts/schemas/components/${component}.json declares no enum`);
  return Object.freeze([...values]);
}

// The spec's facts (operations, messages, limits, defaults, allowed values), generated from the spec by
// contracts:build: every folder reads them from here, none types one.
export {
  SPEC_ALLOWED,
  SPEC_DEFAULTS,
  SPEC_LIMITS,
  SPEC_MESSAGES,
  SPEC_MESSAGES_SEEN,
  SPEC_OPERATIONS,
  SPEC_RESOURCE_ALLOWED,
  SPEC_RETIRED,
  SPEC_VALUES_SEEN,
  type SpecOperationId,
} from './facts.ts';

/** The metric types of spec 2.8, from the contract's MetricTypeName. */
export const METRIC_TYPES = enumOf('MetricTypeName');
/** The experiment statuses of spec 2.5 and 4.4, from the contract's ExperimentStatus. */
export const EXPERIMENT_STATUSES = enumOf('ExperimentStatus');
/** A metric's directionality (spec 2.8), from the contract's Directionality. */
export const DIRECTIONALITIES = enumOf('Directionality');

const requestAjv = contractAjv({ allErrors: true });
const requestValidators = new Map<string, ValidateFunction>();

/** Schema errors of a request body, as readable lines ([] when valid or when the operation takes no body): is this body valid per the contract? */
export function requestErrors(operationId: OperationId, body: unknown): string[] {
  const file = OPERATIONS[operationId].body;
  if (!file) return [];
  let v = requestValidators.get(file);
  if (!v) {
    v = requestAjv.compile(schema(file));
    requestValidators.set(file, v);
  }
  return v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

// The contract as written, for what is generated from it beyond the schemas (the reference server's
// generated faults, reference/layers/generated.ts): openapi.yaml with its x-clauses and x-listed kept
// (the generated schemas drop x-* keys), and the clause catalogue. Parsed once, on first use.
let document: JsonObject | undefined;
let catalogue: readonly CatalogueClause[] | undefined;

/** contracts/openapi.yaml, parsed, x-* keys included. */
export function contractDocument(): JsonObject {
  document ??= readYaml(new URL('./openapi.yaml', import.meta.url)) as JsonObject;
  return document;
}

/** One clause of contracts/clauses.yaml, as far as the rest of the project needs it. */
export interface CatalogueClause {
  id: string;
  section: string;
  level: 'stated' | 'inferred' | 'open';
  text: string;
}

/** Every clause of contracts/clauses.yaml, in its order. */
export function clauseCatalogue(): readonly CatalogueClause[] {
  catalogue ??= (readYaml(new URL('./clauses.yaml', import.meta.url)) as { clauses: CatalogueClause[] }).clauses.map(({ id, section, level, text }) => ({
    id,
    section: String(section),
    level,
    text,
  }));
  return catalogue;
}
