// Generates the contract from the spec. contracts/spec/console-v1.md is read (remark, GFM tables) into a
// typed model (model/contract-model.ts); from it, with the overlay of what words cannot give
// (contracts/overlay.yaml, and the levels and notes of clauses.yaml), come: the spec's facts in
// contracts/openapi.yaml (model/openapi-facts.ts), the clauses' words in contracts/clauses.yaml
// (model/clause-sync.ts), contracts/facts.ts (model/facts-module.ts), and contracts/schemas/ (JSON Schema
// 2020-12) from openapi.yaml. `--check` regenerates in memory and fails when a committed file is stale,
// missing or extra, or when a schema does not compile under Ajv2020 strict mode with ajv-formats.
//
// Every generated file is self-contained: referenced components are inlined under `$defs`, so that
// each compiles alone (the conformance suite, the load profiles' bundle and the reference server each load only
// what they need). OpenAPI extension keys (x-*) are dropped from the schemas, since Ajv's strict
// mode rejects unknown keywords; they are kept in index.json instead.
//
// Each success response is written in two forms (presence is not type, see openapi.yaml's header):
// `<op>.response.json`, the stated form, whose `required` holds only what the spec's words state
// (the suite fails on it, the load profiles' validators and the reference server use it), and
// `<op>.response.listed.json`, the presence form, where every `x-listed` field is required too (the
// suite reports its extra errors as inferred findings; the reference server's own tests hold it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parseCommand, runCommand } from '../core/command.ts';
import { type ClauseChange, syncClauses } from './model/clause-sync.ts';
import { type Overlay, readContractModel } from './model/contract-model.ts';
import { SPEC_ALLOWED, SPEC_RETIRED } from './facts.ts';
import { factsModule, retiredValues } from './model/facts-module.ts';
import { parsedOnce } from './model/parsed-yaml.ts';
import { applyModelToOpenApi, type OpenApiChange } from './model/openapi-facts.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const HERE = dirname(fileURLToPath(import.meta.url));
export const OPENAPI_PATH = join(HERE, 'openapi.yaml');
// Where it writes what index.ts reads (index.ts's SCHEMAS_DIR): not imported from there, which reads
// schemas/index.json as it loads, before this could write it.
const SCHEMAS_DIR = join(HERE, 'schemas');
export const SPEC_PATH = join(HERE, 'spec', 'console-v1.md');
export const OVERLAY_PATH = join(HERE, 'overlay.yaml');
export const CLAUSES_PATH = join(HERE, 'clauses.yaml');
export const FACTS_PATH = join(HERE, 'facts.ts');
const ID_BASE = 'https://console-conformance.local/schemas/';
const COMPONENT_REF = '#/components/schemas/';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Which presence a generated schema requires: what the spec states, or that plus every listed field. */
export type Presence = 'stated' | 'listed';

/**
 * The fields of `node`'s `x-listed`, checked: a list of names, each a property of the same node and not
 * already in its `required` (a field whose presence is stated is not also merely listed).
 */
function listedOf(node: JsonObject): string[] {
  const listed = node['x-listed'];
  if (listed === undefined) return [];
  if (!Array.isArray(listed) || !listed.every((f) => typeof f === 'string'))
    throw new Error(`x-listed must be a list of field names, got ${JSON.stringify(listed)}`);
  const properties = isObject(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required : [];
  for (const f of listed) {
    if (!(f in properties)) throw new Error(`x-listed names ${f}, which is not a property beside it`);
    if (required.includes(f)) throw new Error(`${f} is both required (stated) and x-listed (inferred): keep one`);
  }
  if (new Set(listed).size !== listed.length) throw new Error(`x-listed repeats a field: ${listed.join(', ')}`);
  return listed as string[];
}

/**
 * Copies a schema, dropping x-* keys and pointing component refs at `#/$defs/Name`; in the listed form,
 * each node's `required` also holds its `x-listed` fields.
 */
function rewrite(node: Json, refs: Set<string>, presence: Presence): Json {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, refs, presence));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  const listed = listedOf(node);
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') {
      if (!value.startsWith(COMPONENT_REF)) throw new Error(`unsupported $ref ${value}: only ${COMPONENT_REF}* is used in openapi.yaml`);
      const name = value.slice(COMPONENT_REF.length);
      refs.add(name);
      out.$ref = `#/$defs/${name}`;
      continue;
    }
    out[key] = rewrite(value, refs, presence);
  }
  if (presence === 'listed' && listed.length > 0) out.required = [...((out.required as string[] | undefined) ?? []), ...listed];
  return out;
}

/** A self-contained schema document: `root` plus every component it reaches, under $defs. */
function document(id: string, root: Json, components: JsonObject, title?: string, presence: Presence = 'stated'): JsonObject {
  const refs = new Set<string>();
  const body = rewrite(root, refs, presence);
  const defs: JsonObject = {};
  const pending = [...refs];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name in defs) continue;
    if (!(name in components)) throw new Error(`$ref to unknown component ${name}`);
    const found = new Set<string>();
    defs[name] = rewrite(components[name], found, presence);
    for (const n of found) if (!(n in defs)) pending.push(n);
  }
  const doc: JsonObject = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: ID_BASE + id };
  if (title) doc.title = title;
  Object.assign(doc, isObject(body) ? body : { allOf: [body] });
  const sorted = Object.keys(defs).sort();
  if (sorted.length > 0) doc.$defs = Object.fromEntries(sorted.map((k) => [k, defs[k]]));
  return doc;
}

function resolveParam(param: JsonObject, spec: JsonObject): JsonObject {
  const ref = param.$ref;
  if (typeof ref !== 'string') return param;
  const name = ref.replace('#/components/parameters/', '');
  const found = (spec.components as JsonObject).parameters as JsonObject;
  if (!isObject(found[name])) throw new Error(`unknown parameter ${ref}`);
  return found[name] as JsonObject;
}

function successResponse(responses: JsonObject): [string, JsonObject] {
  const code = Object.keys(responses).find((c) => /^2/.test(c));
  if (!code) throw new Error('operation without a 2xx response');
  const schema = (((responses[code] as JsonObject).content as JsonObject)['application/json'] as JsonObject).schema as JsonObject;
  return [code, schema];
}

/** All generated files, path relative to schemas/ -> content. */
export function generateSchemas(openapiText: string = readFileSync(OPENAPI_PATH, 'utf8')): Map<string, string> {
  const spec = parse(openapiText) as JsonObject;
  const components = (spec.components as JsonObject).schemas as JsonObject;
  const files = new Map<string, string>();
  const put = (path: string, value: Json) => files.set(path, JSON.stringify(value, null, 2) + '\n');

  for (const name of Object.keys(components).sort()) {
    put(`components/${name}.json`, document(`components/${name}.json`, { $ref: COMPONENT_REF + name }, components, name));
  }

  const index: JsonObject = {};
  for (const [path, item] of Object.entries(spec.paths as JsonObject)) {
    for (const method of HTTP_METHODS) {
      const op = (item as JsonObject)[method];
      if (!isObject(op)) continue;
      const opId = op.operationId as string;
      const entry: JsonObject = {
        method: method.toUpperCase(),
        path,
        section: (op['x-spec-section'] as string) ?? null,
        ...(typeof op['x-spec-message'] === 'string' ? { message: op['x-spec-message'] } : {}),
        clauses: (op['x-clauses'] as Json[]) ?? [],
      };
      const params = ((op.parameters as JsonObject[]) ?? []).map((p) => resolveParam(p, spec));
      for (const where of ['path', 'query'] as const) {
        const list = params.filter((p) => p.in === where);
        if (list.length === 0) continue;
        const properties: JsonObject = {};
        const required: string[] = [];
        for (const p of list) {
          properties[p.name as string] = p.schema as Json;
          if (p.required) required.push(p.name as string);
        }
        const schema: JsonObject = { type: 'object', properties };
        if (required.length > 0) schema.required = required;
        const kind = where === 'path' ? 'params' : 'query';
        const file = `operations/${opId}.${kind}.json`;
        put(file, document(file, schema, components, `${opId} ${where} parameters`));
        entry[kind] = file;
      }
      const body = ((op.requestBody as JsonObject | undefined)?.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined;
      if (body) {
        const file = `operations/${opId}.body.json`;
        put(file, document(file, body.schema as Json, components, `${opId} request body`));
        entry.body = file;
      }
      const [status, schema] = successResponse(op.responses as JsonObject);
      const file = `operations/${opId}.response.json`;
      put(file, document(file, schema, components, `${opId} ${status} response body`));
      entry.response = file;
      const listedFile = `operations/${opId}.response.listed.json`;
      put(listedFile, document(listedFile, schema, components, `${opId} ${status} response body, every listed field present`, 'listed'));
      entry.responseListed = listedFile;
      entry.successStatus = status;
      index[opId] = entry;
    }
  }
  put('index.json', {
    description: 'Generated from contracts/spec/console-v1.md through contracts/openapi.yaml by contracts/build.ts; do not edit.',
    operations: Object.fromEntries(
      Object.keys(index)
        .sort()
        .map((k) => [k, index[k]]),
    ),
    components: Object.keys(components).sort(),
  });
  return files;
}

/** Compiles every schema alone under Ajv2020 strict mode; returns the problems found. */
export function compileAll(files: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const [path, text] of files) {
    if (path === 'index.json') continue;
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    try {
      ajv.compile(JSON.parse(text));
    } catch (err) {
      problems.push(`${path}: ${(err as Error).message}`);
    }
  }
  return problems;
}

/** What the spec gives: openapi.yaml, clauses.yaml and facts.ts as they must read, and what moved. */
export interface ContractFromSpec {
  openapi: string;
  clauses: string;
  facts: string;
  openapiChanges: OpenApiChange[];
  clauseChanges: ClauseChange[];
  warnings: string[];
}

const YAML_OUT = { lineWidth: 110, flowCollectionPadding: true } as const;
/** The house style of the contract's YAML: maps in flow padded (`{ type: string }`), lists not (`[a, b]`). */
const unpadLists = (text: string) =>
  text
    .split('\n')
    .map((l) => l.replace(/\[ ([^[\]]*?) \]/g, '[$1]'))
    .join('\n');

/**
 * The contract generated from `specText`, starting from the committed openapi.yaml and clauses.yaml
 * (their hand parts: descriptions, x-clauses, x-listed, levels, notes, checkedBy).
 */
export function contractFromSpec(
  specText: string = readFileSync(SPEC_PATH, 'utf8'),
  openapiText: string = readFileSync(OPENAPI_PATH, 'utf8'),
  clausesText: string = readFileSync(CLAUSES_PATH, 'utf8'),
): ContractFromSpec {
  const overlay = parse(readFileSync(OVERLAY_PATH, 'utf8')) as Overlay;
  const model = readContractModel(specText, overlay);
  const clausesDoc = parsedOnce(clausesText);
  const clauseChanges = syncClauses(clausesDoc, model, overlay);
  const openapiDoc = parsedOnce(openapiText);
  const openapiChanges = applyModelToOpenApi(openapiDoc, model, overlay, clauseChanges);
  return {
    openapi: unpadLists(openapiDoc.toString(YAML_OUT)),
    clauses: clausesDoc.toString({ lineWidth: 200 }),
    // The facts this build starts from (the committed facts.ts) tell which values the revision retires.
    facts: factsModule(model, overlay.resources, retiredValues(model, SPEC_ALLOWED, SPEC_RETIRED)),
    openapiChanges,
    clauseChanges,
    warnings: model.warnings,
  };
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

const HELP = `usage: npm run contracts:build     (tsx contracts/build.ts)
       npm run contracts:check     (tsx contracts/build.ts --check)

Reads contracts/spec/console-v1.md (with contracts/overlay.yaml) into the contract model and writes
what it gives: the spec's facts into contracts/openapi.yaml, the clauses' words into
contracts/clauses.yaml, contracts/facts.ts, and contracts/schemas/ (JSON Schema 2020-12) from
openapi.yaml. Prints each clause that moved (docs/spec-changes.md; npm run spec:diff compares two
revisions); when the spec moved, writes the clauses' checkedBy again (npm run clauses:coverage -- --write).

  --check   write nothing: fail when any of them is stale, missing or extra, or a schema does not
            compile (Ajv2020 strict + ajv-formats)
  --help    this text

Environment: none read.
Exit 0 written (or fresh with --check), 1 stale or a schema does not compile, 3 the spec cannot be
read into the model (the line is named), a clause or overlay entry no longer matches it, or a bad option.`;

function main(check: boolean): number {
  let files: Map<string, string>;
  let contract: ContractFromSpec;
  try {
    contract = contractFromSpec();
    files = generateSchemas(contract.openapi);
  } catch (err) {
    console.error(`contracts/build: ${(err as Error).message}`);
    return 3;
  }
  for (const w of contract.warnings) console.error(`contracts/build: the spec disagrees with itself: ${w}`);
  const problems = compileAll(files);
  const generated: [string, string][] = [
    [OPENAPI_PATH, contract.openapi],
    [CLAUSES_PATH, contract.clauses],
    [FACTS_PATH, contract.facts],
  ];
  if (check) {
    for (const [path, text] of generated) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text)
        problems.push(`${relative(HERE, path)}: stale against the spec (run npm run contracts:build)`);
    }
    const onDisk = new Set(listFiles(SCHEMAS_DIR));
    for (const [path, text] of files) {
      const full = join(SCHEMAS_DIR, path);
      if (!onDisk.has(path)) problems.push(`${path}: missing (run npm run contracts:build)`);
      else if (readFileSync(full, 'utf8') !== text) problems.push(`${path}: stale (run npm run contracts:build)`);
      onDisk.delete(path);
    }
    for (const extra of onDisk) problems.push(`${extra}: not generated from openapi.yaml (remove it)`);
    if (problems.length > 0) {
      console.error(`contracts:check failed:\n  ${problems.join('\n  ')}`);
      return 1;
    }
    console.log(
      `contracts:check ok: openapi.yaml, clauses.yaml, facts.ts and ${files.size} schema files fresh against the spec, all compile under Ajv2020 strict`,
    );
    return 0;
  }
  if (problems.length > 0) {
    console.error(`contracts/build: schemas do not compile:\n  ${problems.join('\n  ')}`);
    return 1;
  }
  for (const c of contract.clauseChanges) console.log(`contracts/build: clause ${c.kind} ${c.id} (spec line ${c.line}): ${c.after}`);
  const moved = generated.filter(([path, text]) => !existsSync(path) || readFileSync(path, 'utf8') !== text);
  for (const [path, text] of moved) writeFileSync(path, text);
  rmSync(SCHEMAS_DIR, { recursive: true, force: true });
  for (const [path, text] of files) {
    const full = join(SCHEMAS_DIR, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  // Test titles that state a value are made from the facts: when the spec moved, the clauses'
  // checkedBy (the titles naming each) is written again from the suite's own listing.
  if (moved.some(([path]) => path !== OPENAPI_PATH)) {
    const coverage = spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(HERE, 'coverage.ts'), '--write'], { encoding: 'utf8' });
    console.log(`contracts/build: ${(coverage.stdout + coverage.stderr).trim().split('\n').join('\ncontracts/build: ')}`);
  }
  console.log(
    `contracts/build: ${contract.openapiChanges.length} fact(s) of openapi.yaml and ${contract.clauseChanges.length} clause(s) brought to the spec; wrote facts.ts and ${files.size} files to ${relative(process.cwd(), SCHEMAS_DIR) || SCHEMAS_DIR}`,
  );
  return 0;
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  // Its mistakes are named after the npm script that ran it.
  const name = process.argv.includes('--check') ? 'contracts:check' : 'contracts:build';
  const { values } = parseCommand({ name, help: HELP, options: { check: { type: 'boolean' } } });
  runCommand(name, () => main(values.check ?? false));
}
