// Writes the contract model's facts into contracts/openapi.yaml: every limit, default, allowed value,
// message, success status and field type the spec states, and whole operations the spec shows that the
// document lacks. The document's hand parts (descriptions, x-clauses, x-listed, how components are
// shared) are kept as written, comments included; a spec fact is never left as typed by hand, so a
// revision of the spec reaches the schemas, the reference server and the suite with `contracts:build`.
import { isDeepStrictEqual } from 'node:util';
import { type Document, isMap, type YAMLMap } from 'yaml';
import type { ClauseChange } from './clause-sync.ts';
import type { ContractModel, FieldFact, OperationFact, Overlay } from './contract-model.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const REF = '#/components/schemas/';
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON Schema of the spec's words for a type, or undefined where the words are not a type the build
 * can write (`filter by tags`). `side` picks the request or response component of a named type.
 */
export function schemaOfType(words: string, overlay: Overlay, side: 'request' | 'response'): JsonObject | undefined {
  const w = words.trim().replace(/\s*\(\d+(\.\d+)*\)$/, '');
  const nullable = /,?\s+or null$/.test(w);
  const base = w.replace(/,?\s+or null$/, '').trim();
  let schema: JsonObject | undefined;
  if (['string', 'integer', 'number', 'boolean'].includes(base)) schema = { type: base };
  else if (base === 'object' || /^object with\b/.test(base)) schema = { type: 'object' };
  else if (base === 'array') schema = { type: 'array' };
  else if (base.startsWith('{')) schema = { type: 'object' };
  else if (base.startsWith('array of ')) {
    const item = base.slice('array of '.length).replace(/s$/, '');
    const inner =
      item === 'object' ? { type: 'object' } : item === 'string' ? { type: 'string' } : item.startsWith('{') ? { type: 'object' } : named(item, overlay, side);
    if (!inner) return undefined;
    schema = { type: 'array', items: inner };
  } else schema = named(base, overlay, side);
  if (!schema) return undefined;
  if (nullable) {
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    else schema = { anyOf: [schema, { type: 'null' }] };
  }
  return schema;
}

function named(name: string, overlay: Overlay, side: 'request' | 'response'): JsonObject | undefined {
  const entry = overlay.namedTypes[name] ?? overlay.namedTypes[name.replace(/s$/, '')];
  const component = entry?.[side] ?? entry?.response;
  return component ? { $ref: REF + component } : undefined;
}

/** A schema's shape as the spec's words can say it: `string`, `integer|null`, `array<string>`, `ref:Gate`. */
function signature(schema: Json | undefined, components: JsonObject, depth = 0): string {
  if (!isObject(schema)) return '?';
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.slice(REF.length);
    const target = components[name];
    // A component that only gives a scalar a name (Timestamp, NullableString, StringList) is its type.
    if (depth < 3 && isObject(target) && target.type !== 'object' && !target.anyOf && !target.allOf) return signature(target, components, depth + 1);
    return `ref:${name}`;
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map((s) => signature(s, components, depth + 1)).join('|');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.map((t) => (t === 'array' && schema.items !== undefined ? `array<${signature(schema.items, components, depth + 1)}>` : String(t))).join('|');
}

/** Whether the document's schema already has the type the spec's words give (a looser spec type is not narrowed). */
function sameType(have: Json | undefined, want: JsonObject, components: JsonObject): boolean {
  const h = signature(have, components);
  const w = signature(want, components);
  if (h === w) return true;
  // The spec's `array` or `object` says less than the document may (the items' shape of a `{...}` list).
  const looseW = w.replace(/array<object>/g, 'array').replace(/ref:\w+/g, 'object');
  const looseH = h.replace(/array<[^>]*>/g, 'array').replace(/ref:\w+/g, 'object');
  return looseW === looseH || (w === 'array' && h.startsWith('array')) || (w === 'object' && (h.startsWith('ref:') || h === 'object'));
}

export interface OpenApiChange {
  where: string;
  what: string;
  line: number;
}

/** Applies the model's facts to the parsed openapi.yaml in place; returns what changed. */
export function applyModelToOpenApi(doc: Document, model: ContractModel, overlay: Overlay, clauseChanges: ClauseChange[] = []): OpenApiChange[] {
  const changes: OpenApiChange[] = [];
  // The document as plain data, made again only after an edit (most runs edit nothing).
  let plainDoc: JsonObject | undefined;
  const js = () => {
    plainDoc ??= doc.toJS() as JsonObject;
    return plainDoc;
  };
  const components = () => ((js().components as JsonObject).schemas as JsonObject) ?? {};

  const set = (path: (string | number)[], value: Json, line: number, what: string) => {
    const current = doc.getIn(path) as unknown;
    const plain = current && typeof current === 'object' && 'toJSON' in (current as object) ? (current as { toJSON(): unknown }).toJSON() : current;
    if (isDeepStrictEqual(plain, value)) return;
    const node = doc.createNode(value);
    if (isMap(node) || (node && typeof node === 'object' && 'items' in node && Array.isArray(value) && value.every((v) => typeof v !== 'object')))
      (node as YAMLMap).flow = true;
    doc.setIn(path, node);
    plainDoc = undefined;
    changes.push({ where: path.join('.'), what, line });
  };
  const remove = (path: (string | number)[], line: number, what: string) => {
    if (doc.hasIn(path)) {
      doc.deleteIn(path);
      plainDoc = undefined;
      changes.push({ where: path.join('.'), what, line });
    }
  };

  /** The path of the schema that holds a field's own facts: the component behind a $ref that is only a closed list, else the property. */
  const factPaths = (propertyPath: string[]): { property: string[]; values: string[] } => {
    const property = doc.getIn(propertyPath) as YAMLMap | undefined;
    const ref = property && isMap(property) ? (property.get('$ref') as string | undefined) : undefined;
    const name = ref?.startsWith(REF) ? ref.slice(REF.length) : undefined;
    const target = name ? components()[name] : undefined;
    if (name && isObject(target) && Array.isArray(target.enum)) return { property: propertyPath, values: ['components', 'schemas', name] };
    return { property: propertyPath, values: propertyPath };
  };

  /** A field's type, limits, default and allowed values, written onto the property at `path` (created when missing). */
  const applyField = (path: string[], field: FieldFact, side: 'request' | 'response', what: string) => {
    const wanted = schemaOfType(field.type || (field.allowed ? 'string' : ''), overlay, side);
    const have = (doc.getIn(path) as { toJSON?: () => Json } | undefined)?.toJSON?.();
    if (have === undefined) {
      if (!wanted)
        throw new Error(`spec line ${field.line}: ${what} ${field.name} has the type "${field.type}", which contracts:build cannot write as a schema`);
      set(path, wanted, field.line, `${what} ${field.name} added (${field.type})`);
    } else if (wanted && !sameType(have, wanted, components())) {
      const keep = isObject(have) ? Object.fromEntries(Object.entries(have).filter(([k]) => k === 'description' || k.startsWith('x-'))) : {};
      set(path, { ...wanted, ...keep }, field.line, `${what} ${field.name} is ${field.type}`);
    }
    const { values } = factPaths(path);
    for (const kind of ['minLength', 'maxLength', 'maxItems'] as const) {
      if (field[kind] !== undefined) set([...path, kind], field[kind], field.line, `${what} ${field.name} ${kind} ${field[kind]}`);
      else if (side === 'request') remove([...path, kind], field.line, `${what} ${field.name} has no ${kind}`);
    }
    if (field.default !== undefined) set([...path, 'default'], field.default, field.line, `${what} ${field.name} default ${field.default}`);
    else if (side === 'request') remove([...path, 'default'], field.line, `${what} ${field.name} has no default`);
    if (field.allowed) set([...values, 'enum'], field.allowed, field.line, `${what} ${field.name} one of ${field.allowed.join(', ')}`);
    else if (values === path) remove([...path, 'enum'], field.line, `${what} ${field.name} is not closed to a list`);
  };

  for (const op of model.operations) {
    const method = op.method.toLowerCase();
    if (!doc.hasIn(['paths', op.path, method])) {
      const clauses = clauseChanges.filter((c) => c.kind === 'added' && c.section === op.section).map((c) => c.id);
      set(['paths', op.path, method], newOperation(op, overlay, clauses), op.line, `operation ${op.id} added (${op.method} ${op.path})`);
    }
    const at = ['paths', op.path, method];
    set([...at, 'x-spec-section'], op.section, op.line, `${op.id} is section ${op.section}`);
    if (op.message) set([...at, 'x-spec-message'], op.message.text, op.message.line, `${op.id} answers the message ${op.message.text}`);
    else remove([...at, 'x-spec-message'], op.line, `${op.id} states no message`);
    const responses = (((js().paths as JsonObject)[op.path] as JsonObject)[method] as JsonObject).responses as JsonObject;
    const success = Object.keys(responses).find((c) => /^2/.test(c));
    if (success && success !== op.successStatus) {
      const node = doc.getIn([...at, 'responses', success], true);
      doc.deleteIn([...at, 'responses', success]);
      (doc.getIn([...at, 'responses']) as YAMLMap).items.unshift(doc.createPair(op.successStatus, node));
      plainDoc = undefined;
      changes.push({ where: `${at.join('.')}.responses`, what: `${op.id} succeeds with ${op.successStatus}`, line: op.line });
    }
    const bodyComponent = overlay.requestBodies[op.id];
    if (bodyComponent && op.body.length > 0) {
      const base = ['components', 'schemas', bodyComponent];
      for (const field of op.body) applyField([...base, 'properties', field.name], field, 'request', `${op.id} body`);
      const listed = new Set(op.body.map((f) => f.name));
      const props = (components()[bodyComponent] as JsonObject).properties as JsonObject;
      for (const name of Object.keys(props)) if (!listed.has(name)) remove([...base, 'properties', name], op.line, `${op.id} body no longer takes ${name}`);
      const required = op.body.filter((f) => f.required).map((f) => f.name);
      if (required.length > 0) set([...base, 'required'], required, op.line, `${op.id} body requires ${required.join(', ')}`);
      else remove([...base, 'required'], op.line, `${op.id} body requires nothing`);
    }
    // Query parameters written inline (the status filter's allowed values live in their component).
    const params = ((((js().paths as JsonObject)[op.path] as JsonObject)[method] as JsonObject).parameters as JsonObject[]) ?? [];
    params.forEach((p, i) => {
      const field = op.query.find((q) => q.name === p.name && p.in === 'query');
      if (!field?.allowed) return;
      const { values } = factPaths([...at, 'parameters', String(i), 'schema']);
      set([...values, 'enum'], field.allowed, field.line, `${op.id} query ${field.name} one of ${field.allowed.join(', ')}`);
    });
  }

  for (const resource of model.resources) {
    const component = overlay.resources[resource.section];
    const base = ['components', 'schemas', component];
    if (!doc.hasIn(base)) throw new Error(`contracts/overlay.yaml maps section ${resource.section} to ${component}, which openapi.yaml does not have`);
    for (const field of resource.fields) {
      const path = [...base, 'properties', field.name];
      const isNew = !doc.hasIn(path);
      applyField(path, field, 'response', component);
      if (isNew) {
        const listed = ((components()[component] as JsonObject)['x-listed'] as string[] | undefined) ?? [];
        set([...base, 'x-listed'], [...listed, field.name], field.line, `${component} lists ${field.name}`);
      }
    }
  }
  return changes;
}

/** A whole operation for a path the document lacks: parameters, body and an envelope response from the model. */
function newOperation(op: OperationFact, overlay: Overlay, clauses: string[]): JsonObject {
  const parameters: Json[] = [
    ...op.pathParams.map((p) => ({ name: p.name, in: 'path', required: true, schema: schemaOfType(p.type, overlay, 'request') ?? { type: 'string' } })),
    ...op.query.map((q) => ({ name: q.name, in: 'query', schema: schemaOfType(q.type.replace(/ or null$/, ''), overlay, 'request') ?? { type: 'string' } })),
    { $ref: '#/components/parameters/RespectReviewSettings' },
  ];
  const operation: JsonObject = {
    operationId: op.id,
    summary: op.title,
    description: `Spec ${op.section}, generated from the spec by contracts:build.`,
    'x-spec-section': op.section,
    'x-clauses': clauses,
    parameters,
  };
  if (op.body.length > 0) {
    const properties: JsonObject = {};
    for (const f of op.body) {
      const s = schemaOfType(f.type || 'string', overlay, 'request');
      if (!s) throw new Error(`spec line ${f.line}: ${op.id} body ${f.name} has the type "${f.type}", which contracts:build cannot write as a schema`);
      properties[f.name] = s;
    }
    const body: JsonObject = { type: 'object', additionalProperties: false, properties };
    const required = op.body.filter((f) => f.required).map((f) => f.name);
    if (required.length > 0) body.required = required;
    operation.requestBody = { required: true, content: { 'application/json': { schema: body } } };
  }
  operation.responses = {
    [op.successStatus]: {
      description: op.message ? `message \`${op.message.text}\`` : 'Success.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['message', 'data'],
            properties: { message: { $ref: `${REF}Message` }, data: {} },
          },
        },
      },
    },
    '4XX': { $ref: '#/components/responses/Failure' },
  };
  return operation;
}
