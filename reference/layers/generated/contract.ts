// What the generated faults (layers/generated.ts) read from the contract: its operations, where each
// component is met in their bodies, the types and bounds of fields, and the helpers every kind shares.
import { type CatalogueClause, clauseCatalogue, contractDocument } from '../../../contracts/index.ts';
import { combine } from '../edits.ts';
import type { Level, RequestChange, ResponseChange } from '../types.ts';
import type { JsonObject } from '../../../core/json.ts';

/** The mechanical edits a fault is generated with. */
export type GeneratedEdit = 'type' | 'message' | 'presence' | 'required' | 'bound' | 'path' | 'status' | 'filter' | 'enum' | 'query' | 'format' | 'body';

export type GeneratedSwitch = ({ layer: 'response'; change: ResponseChange } | { layer: 'request'; change: RequestChange }) & {
  name: string;
  description: string;
  clause: string;
  level: Level;
  kind: 'fault';
  generated: GeneratedEdit;
  /**
   * Variants the fault shows only beside: the shape it changes is one the contract admits but the
   * reference does not answer by default (the top-level overrides of 4.11). The proof runs it with them.
   */
  alongside?: string[];
};

/** A mechanical-looking clause no fault was generated for, and why. */
export interface NotGenerated {
  clause: string;
  edit: GeneratedEdit;
  why: string;
}

export type Node = JsonObject;
const REF = '#/components/schemas/';

/**
 * The component that holds the fields of `<prefix>.field.*` clauses: the prefix capitalised
 * (gate -> Gate), but for these, whose component is named otherwise.
 */
export const FIELD_OWNERS: Record<string, string> = {
  pipeline: 'ReleasePipeline',
  'metrics.create.body': 'CreateMetricRequest',
  'metrics.update.body': 'UpdateMetricRequest',
};

/**
 * Shapes the contract admits that the reference answers only under a variant: an anyOf alternative of
 * a response (by its title) and the variant that makes the reference answer it.
 */
export const SHAPE_VARIANTS: Record<string, string> = { TopLevelArrays: 'overrides-toplevel-response' };

/**
 * Filters of 4.4 that a correct target may ignore, so that ignoring them is no fault, and why. Their
 * clause's fault is written by hand.
 */
export const IGNORABLE_FILTERS: Record<string, string> = {
  teamID:
    'teamID is "Enterprise only" (4.4): a target without the feature may ignore it (the clause note), so ignoring it is legal; its fault is teamid-500 (layers/request.ts)',
};

export const refName = (node: unknown): string | undefined => {
  const r = (node as Node | undefined)?.$ref;
  return typeof r === 'string' && r.startsWith(REF) ? r.slice(REF.length) : undefined;
};

/** One place a component is met in an operation's body: the eachAt path of the object it is. */
export interface Placement {
  operationId: string;
  component: string;
  /** Dotted steps, `[]` after a step for each item of its array; '' for the body itself. */
  path: string;
  /** Variants the reference needs to answer this shape (SHAPE_VARIANTS). */
  alongside: string[];
}

/** An operation as openapi.yaml states it, its schemas as nodes of the document (contracts/index.ts's Operation names their generated files instead). */
export interface OpenApiOperation {
  operationId: string;
  method: string;
  path: string;
  section: string;
  /** The query parameters by name. */
  query: Record<string, Node>;
  clauses: string[];
  response?: Node;
  body?: Node;
}

export function operations(doc: Node): OpenApiOperation[] {
  const out: OpenApiOperation[] = [];
  for (const [path, methods] of Object.entries<Node>(doc.paths ?? {}))
    for (const [method, op] of Object.entries<Node>(methods)) {
      if (!op?.operationId) continue;
      const success = Object.entries<Node>(op.responses ?? {}).find(([code]) => /^2/.test(code))?.[1];
      // A parameter given by reference (Limit, Page) is the one it names.
      const parameter = (p: Node): Node => (typeof p?.$ref === 'string' ? (doc.components?.parameters?.[p.$ref.split('/').at(-1) ?? ''] ?? p) : p);
      const query = Object.fromEntries(
        (op.parameters ?? [])
          .map(parameter)
          .filter((p: Node) => p?.in === 'query')
          .map((p: Node) => [p.name, p]),
      );
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        query,
        section: String(op['x-spec-section'] ?? ''),
        clauses: op['x-clauses'] ?? [],
        response: success?.content?.['application/json']?.schema,
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  return out;
}

export const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
export const itemsOf = (path: string) => {
  if (!path) throw new Error('a body that is an array is not in this contract');
  return `${path}[]`;
};

/**
 * Walks a body schema: `visit(node, path, context)` for every schema node, context being the x-clauses
 * of the nearest component (or of the node itself) and the variants its shape needs.
 */
export function walk(defs: Node, root: Node, visit: (node: Node, path: string, clauses: string[], alongside: string[], component?: string) => void): void {
  const go = (node: Node | undefined, path: string, clauses: string[], alongside: string[], stack: string[]): void => {
    if (!node || typeof node !== 'object') return;
    const name = refName(node);
    if (name) {
      if (stack.includes(name)) return;
      const def = defs[name];
      visit(def, path, def?.['x-clauses'] ?? [], alongside, name);
      go(def, path, def?.['x-clauses'] ?? [], alongside, [...stack, name]);
      return;
    }
    const own = node['x-clauses'] ?? clauses;
    if (node !== defs[stack.at(-1) ?? '']) visit(node, path, own, alongside);
    for (const sub of node.allOf ?? []) go(sub, path, own, alongside, stack);
    for (const sub of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
      const variant = SHAPE_VARIANTS[sub?.title ?? ''];
      go(sub, path, own, variant ? [...alongside, variant] : alongside, stack);
    }
    for (const [key, prop] of Object.entries<Node>(node.properties ?? {})) go(prop, join(path, key), own, alongside, stack);
    if (node.items) go(node.items, itemsOf(path), own, alongside, stack);
  };
  go(root, '', [], [], []);
}

export function placements(defs: Node, ops: OpenApiOperation[], part: 'response' | 'body'): Placement[] {
  const out = new Map<string, Placement>();
  for (const op of ops) {
    const root = op[part];
    if (!root) continue;
    walk(defs, root, (_node, path, _clauses, alongside, component) => {
      if (component) out.set(`${op.operationId} ${component} ${path}`, { operationId: op.operationId, component, path, alongside });
    });
  }
  return [...out.values()];
}

/** A property of a component, through its allOf: the first of its schemas that says what it is. */
export function propertyOf(defs: Node, component: string, field: string): Node | undefined {
  const found: Node[] = [];
  const look = (node: Node | undefined, seen: string[]) => {
    if (!node) return;
    const name = refName(node);
    if (name) {
      if (!seen.includes(name)) look(defs[name], [...seen, name]);
      return;
    }
    if (node.properties?.[field]) found.push(node.properties[field]);
    for (const sub of node.allOf ?? []) look(sub, seen);
  };
  look(defs[component], [component]);
  return found.find((p) => p.type !== undefined || p.$ref !== undefined || p.enum !== undefined);
}

/** The JSON types a schema admits (through $ref), or undefined when it does not say. */
export function typesOf(defs: Node, node: Node | undefined): string[] | undefined {
  if (!node) return undefined;
  const name = refName(node);
  if (name) return typesOf(defs, defs[name]);
  if (node.type !== undefined) return Array.isArray(node.type) ? node.type : [node.type];
  if (Array.isArray(node.enum)) return [...new Set(node.enum.map((v: unknown) => (v === null ? 'null' : typeof v)))] as string[];
  return undefined;
}

/** A value of a type the schema does not admit, and that type's name: text for a number, 17 for text ... */
export function otherType(types: readonly string[]): { type: string; value: unknown } {
  const admits = (t: string) => types.includes(t) || (t === 'integer' && types.includes('number'));
  const candidates: [string, unknown][] = [
    ['string', 'text'],
    ['integer', 17],
    ['boolean', true],
    ['array', []],
    ['object', {}],
  ];
  const [type, value] = candidates.find(([t]) => !admits(t)) ?? ['null', null];
  return { type, value };
}

/** Where a field clause's field is: the component that starts it, the steps below it (arrays marked), the innermost component and field, and its schema. */
export interface FieldLocation {
  top: string;
  relative: string;
  inner: string;
  field: string;
  schema: Node;
}

export function fieldLocation(defs: Node, clause: string): FieldLocation | string {
  const at = clause.indexOf('.field.');
  const prefix = clause.slice(0, at);
  const steps = clause.slice(at + '.field.'.length).split('.');
  const top = FIELD_OWNERS[prefix] ?? prefix.charAt(0).toUpperCase() + prefix.slice(1);
  if (!defs[top]) return `no component ${top} in the contract for the prefix ${prefix}`;
  let component = top;
  let relative = '';
  for (const [i, step] of steps.entries()) {
    const prop = propertyOf(defs, component, step);
    if (!prop) return `${component} has no property ${step} that says its type`;
    relative = join(relative, step);
    if (i === steps.length - 1) return { top, relative, inner: component, field: step, schema: prop };
    // Descend into the component the property holds, itself or as the items of an array.
    const inner = refName(prop) ?? refName(prop.items);
    if (!inner) return `${component}.${step} holds no component to find ${steps[i + 1]} in`;
    if (!refName(prop)) relative = itemsOf(relative);
    component = inner;
  }
  return 'no field';
}

/** Operations grouped with the paths in their bodies where `top` is met, and the variants needed there. */
export function byOperation(places: Placement[], top: string, relative: string): { paths: Record<string, string[]>; alongside: string[] } {
  const paths: Record<string, string[]> = {};
  const alongside = new Set<string>();
  for (const p of places.filter((x) => x.component === top)) {
    paths[p.operationId] = [...(paths[p.operationId] ?? []), p.path ? `${p.path}.${relative}` : relative];
    for (const v of p.alongside) alongside.add(v);
  }
  return { paths, alongside: [...alongside] };
}

/** A response change made of one edit per operation and path. */
export const perPath = (paths: Record<string, string[]>, edit: (operations: string[], path: string) => ResponseChange): ResponseChange =>
  combine(Object.entries(paths).flatMap(([op, ps]) => ps.map((p) => edit([op], p))));

export const describeOps = (ops: string[]) => ops.sort().join(', ');

/** A text the spec states, changed the way a careless edit changes it: the final full stop dropped, or one added. */
export function changedMessage(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : `${text}.`;
}

export interface Generated {
  switches: GeneratedSwitch[];
  notGenerated: NotGenerated[];
}

/**
 * The clause that states a required response field: the one of the node's x-clauses named for the field
 * (gates.enableDisable.owner), the node's only clause, or the envelope's (envelope.message).
 */
export function presenceClause(clauses: string[], field: string, byId: Map<string, CatalogueClause>): string | undefined {
  const named = clauses.find((id) => id.endsWith(`.${field}`));
  if (named) return named;
  if (clauses.length === 1) return clauses[0];
  return byId.has(`envelope.${field}`) ? `envelope.${field}` : undefined;
}

/** What every kind of generated fault is made from, and the lists they add to. */
export interface Context {
  doc: Node;
  defs: Node;
  catalogue: readonly CatalogueClause[];
  byId: Map<string, CatalogueClause>;
  ops: OpenApiOperation[];
  responses: Placement[];
  bodies: Placement[];
  switches: GeneratedSwitch[];
  notGenerated: NotGenerated[];
  levelOf: (id: string) => Level;
  about: (name: string, clause: string, description: string) => { name: string; kind: 'fault'; description: string; clause: string; level: Level };
  queryIgnored: (edit: 'filter' | 'query', clause: string, param: string, on: string[], what: string) => GeneratedSwitch;
}

/** The contract read once, and the empty lists. */
export function contextOf(): Context {
  const doc = contractDocument();
  const defs: Node = doc.components?.schemas ?? {};
  const catalogue = clauseCatalogue();
  const byId = new Map(catalogue.map((c) => [c.id, c]));
  const ops = operations(doc);
  const responses = placements(defs, ops, 'response');
  const bodies = placements(defs, ops, 'body');
  const switches: GeneratedSwitch[] = [];
  const notGenerated: NotGenerated[] = [];
  const levelOf = (id: string): Level => byId.get(id)?.level ?? 'stated';
  const about = (name: string, clause: string, description: string) => ({
    name,
    kind: 'fault' as const,
    description: `generated from the contract: ${description}`,
    clause,
    level: levelOf(clause),
  });
  // A query parameter the operations drop before their handler sees it: a filter or a paging parameter ignored.
  const queryIgnored = (edit: 'filter' | 'query', clause: string, param: string, on: string[], what: string): GeneratedSwitch => ({
    ...about(`gen:${edit}:${clause}`, clause, `${describeOps(on)} ignore${on.length === 1 ? 's' : ''} ${what}`),
    layer: 'request',
    generated: edit,
    change: {
      operations: on,
      rewrite: (r) => {
        delete r.query[param];
      },
    },
  });

  return { doc, defs, catalogue, byId, ops, responses, bodies, switches, notGenerated, levelOf, about, queryIgnored };
}
