// Faults generated from the contract, for the clauses that are mechanical: a field whose type the spec
// states, answered (or, in a request, accepted) as another type; every timestamp answered with a
// fraction; a message text the spec states,
// changed; a presence the spec's words state, dropped; a required request field no longer required; a
// stated bound moved by one; an operation not found at the path the spec gives it; a stated 200
// answered as another success; a filter of 4.4 ignored; a stated enumeration no longer enforced (a
// query parameter's: a listed value refused); a stated query parameter of a list ignored; a stated
// date format no longer taken; an operation the spec sends with "No body." refusing a request without
// one. Each is an ordinary entry of the response or request layer, made of the
// edits of edits.ts, named `gen:<edit>:<clause>[:<detail>]` (`gen:type:metric.field.id`,
// `gen:bound:metrics.create.name.length:minLength=3`), and selected like any fault (`serve --fault NAME`).
// They are not in the self-test's list (`npm test` runs every listed fault); `serve --list-faults
// --generated` adds them, and `npm run clauses:proof` runs them (docs/proof.md).
//
// Where each clause applies comes from contracts/openapi.yaml (through contracts/index.ts): the
// components each operation's response or request body holds and where, x-clauses on the nodes that
// state presence, required lists and bounds, and the operations whose x-clauses name a message clause.
// What a clause could not be made into is listed in notGenerated(), with the reason.
import { type CatalogueClause, clauseCatalogue, contractDocument } from '../../contracts/index.ts';
import { combine, dropField, dropRequired, retypeField, retypeRequestField, setBound, setMessage } from './edits.ts';
import { HttpError } from '../errors.ts';
import type { Level, RequestChange, ResponseChange } from './types.ts';

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

type Node = Record<string, any>;
const REF = '#/components/schemas/';

/**
 * The component that holds the fields of `<prefix>.field.*` clauses: the prefix capitalised
 * (gate -> Gate), but for these, whose component is named otherwise.
 */
const FIELD_OWNERS: Record<string, string> = {
  pipeline: 'ReleasePipeline',
  'metrics.create.body': 'CreateMetricRequest',
  'metrics.update.body': 'UpdateMetricRequest',
};

/**
 * Shapes the contract admits that the reference answers only under a variant: an anyOf alternative of
 * a response (by its title) and the variant that makes the reference answer it.
 */
const SHAPE_VARIANTS: Record<string, string> = { TopLevelArrays: 'overrides-toplevel-response' };

/**
 * Filters of 4.4 that a correct target may ignore, so that ignoring them is no fault, and why. Their
 * clause's fault is written by hand.
 */
const IGNORABLE_FILTERS: Record<string, string> = {
  teamID:
    'teamID is "Enterprise only" (4.4): a target without the feature may ignore it (the clause note), so ignoring it is legal; its fault is teamid-500 (layers/request.ts)',
};

const refName = (node: unknown): string | undefined => {
  const r = (node as Node | undefined)?.$ref;
  return typeof r === 'string' && r.startsWith(REF) ? r.slice(REF.length) : undefined;
};

/** One place a component is met in an operation's body: the eachAt path of the object it is. */
interface Placement {
  operationId: string;
  component: string;
  /** Dotted steps, `[]` after a step for each item of its array; '' for the body itself. */
  path: string;
  /** Variants the reference needs to answer this shape (SHAPE_VARIANTS). */
  alongside: string[];
}

interface Operation {
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

function operations(doc: Node): Operation[] {
  const out: Operation[] = [];
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

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
const itemsOf = (path: string) => {
  if (!path) throw new Error('a body that is an array is not in this contract');
  return `${path}[]`;
};

/**
 * Walks a body schema: `visit(node, path, context)` for every schema node, context being the x-clauses
 * of the nearest component (or of the node itself) and the variants its shape needs.
 */
function walk(defs: Node, root: Node, visit: (node: Node, path: string, clauses: string[], alongside: string[], component?: string) => void): void {
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

function placements(defs: Node, ops: Operation[], part: 'response' | 'body'): Placement[] {
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
function propertyOf(defs: Node, component: string, field: string): Node | undefined {
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
function typesOf(defs: Node, node: Node | undefined): string[] | undefined {
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
interface FieldTarget {
  top: string;
  relative: string;
  inner: string;
  field: string;
  schema: Node;
}

function fieldTarget(defs: Node, clause: string): FieldTarget | string {
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
function byOperation(places: Placement[], top: string, relative: string): { paths: Record<string, string[]>; alongside: string[] } {
  const paths: Record<string, string[]> = {};
  const alongside = new Set<string>();
  for (const p of places.filter((x) => x.component === top)) {
    paths[p.operationId] = [...(paths[p.operationId] ?? []), p.path ? `${p.path}.${relative}` : relative];
    for (const v of p.alongside) alongside.add(v);
  }
  return { paths, alongside: [...alongside] };
}

/** A response change made of one edit per operation and path. */
const perPath = (paths: Record<string, string[]>, edit: (operations: string[], path: string) => ResponseChange): ResponseChange =>
  combine(Object.entries(paths).flatMap(([op, ps]) => ps.map((p) => edit([op], p))));

const describeOps = (ops: string[]) => ops.sort().join(', ');

/** A text the spec states, changed the way a careless edit changes it: the final full stop dropped, or one added. */
export function changedMessage(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : `${text}.`;
}

interface Generated {
  switches: GeneratedSwitch[];
  notGenerated: NotGenerated[];
}

function generate(): Generated {
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

  // ------------------------------------------------------------------ field types (spec 2, 4.6 to 4.8)
  for (const c of catalogue.filter((x) => x.level !== 'open' && x.id.includes('.field.'))) {
    const target = fieldTarget(defs, c.id);
    if (typeof target === 'string') {
      notGenerated.push({ clause: c.id, edit: 'type', why: target });
      continue;
    }
    const types = typesOf(defs, target.schema);
    if (!types) {
      notGenerated.push({ clause: c.id, edit: 'type', why: `${target.inner}.${target.field} has no type in the contract` });
      continue;
    }
    const other = otherType(types);
    const inResponses = byOperation(responses, target.top, target.relative);
    const name = `gen:type:${c.id}`;
    if (Object.keys(inResponses.paths).length > 0) {
      const where = describeOps(Object.keys(inResponses.paths));
      switches.push({
        ...about(
          name,
          c.id,
          `${target.inner}.${target.field} (${types.join(' or ')}) answered as ${JSON.stringify(other.value)} by ${where}${inResponses.alongside.length ? ` (shown with --variant ${inResponses.alongside.join(', ')})` : ''}`,
        ),
        layer: 'response',
        generated: 'type',
        ...(inResponses.alongside.length ? { alongside: inResponses.alongside } : {}),
        change: perPath(inResponses.paths, (o, p) => retypeField(o, p, () => structuredClone(other.value))),
      });
      continue;
    }
    const inBodies = [...new Set(bodies.filter((p) => p.component === target.inner).map((p) => p.operationId))];
    if (inBodies.length === 0) {
      notGenerated.push({ clause: c.id, edit: 'type', why: `${target.top} is in no response and no request body of the contract` });
      continue;
    }
    switches.push({
      ...about(name, c.id, `request field ${target.inner}.${target.field} (${types.join(' or ')}) accepted only as ${other.type} by ${describeOps(inBodies)}`),
      layer: 'request',
      generated: 'type',
      change: { operations: inBodies, schema: retypeRequestField(target.inner, target.field, other.type) },
    });
  }

  // ------------------------------------------------------------------ "Timestamps are integers" (spec 2)
  // Every field the contract types as its Timestamp, in every answer that holds one, with a fraction.
  const stamps: Record<string, string[]> = {};
  for (const p of responses.filter((x) => x.component === 'Timestamp' && x.alongside.length === 0))
    stamps[p.operationId] = [...(stamps[p.operationId] ?? []), p.path];
  if (Object.keys(stamps).length === 0) notGenerated.push({ clause: 'timestamps.integer', edit: 'type', why: 'no response of the contract holds a Timestamp' });
  else
    switches.push({
      ...about(
        'gen:type:timestamps.integer',
        'timestamps.integer',
        `every Timestamp (integer) answered with a fraction (n + 0.5) by ${describeOps(Object.keys(stamps))}`,
      ),
      layer: 'response',
      generated: 'type',
      change: perPath(stamps, (o, p) => retypeField(o, p, (n) => (typeof n === 'number' ? n + 0.5 : n))),
    });

  // ------------------------------------------------------------------ stated messages (spec 4)
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    const text = /message `([^`]+)`/.exec(c.text)?.[1];
    if (!text) continue;
    const on = ops.filter((o) => o.clauses.includes(c.id)).map((o) => o.operationId);
    if (on.length === 0) {
      notGenerated.push({ clause: c.id, edit: 'message', why: 'no operation of the contract names the clause in its x-clauses' });
      continue;
    }
    const changed = changedMessage(text);
    switches.push({
      ...about(
        `gen:message:${c.id}`,
        c.id,
        `${describeOps(on)} answer${on.length === 1 ? 's' : ''} ${JSON.stringify(changed)} instead of ${JSON.stringify(text)}`,
      ),
      layer: 'response',
      generated: 'message',
      change: setMessage(on, changed),
    });
  }

  // ------------------------------------------------------------------ stated presence (required in responses)
  type Presence = { clause: string; field: string; paths: Record<string, string[]>; alongside: Set<string> };
  const presence = new Map<string, Presence>();
  for (const op of ops) {
    if (!op.response) continue;
    walk(defs, op.response, (node, path, clauses, alongside) => {
      for (const field of node.required ?? []) {
        const clause = presenceClause(clauses, field, byId);
        if (!clause) {
          notGenerated.push({ clause: `(${op.operationId} ${join(path, field)})`, edit: 'presence', why: `no clause beside the required field ${field}` });
          continue;
        }
        const key = `${clause}:${field}`;
        const entry: Presence = presence.get(key) ?? { clause, field, paths: {}, alongside: new Set<string>() };
        const p = join(path, field);
        const known = entry.paths[op.operationId] ?? [];
        if (!known.includes(p)) entry.paths[op.operationId] = [...known, p];
        for (const v of alongside) entry.alongside.add(v);
        presence.set(key, entry);
      }
    });
  }
  for (const [key, e] of presence) {
    const alongside = [...e.alongside];
    switches.push({
      ...about(
        `gen:presence:${key}`,
        e.clause,
        `${e.field} left out of the answers of ${describeOps(Object.keys(e.paths))}${alongside.length ? ` (shown with --variant ${alongside.join(', ')})` : ''}`,
      ),
      layer: 'response',
      generated: 'presence',
      ...(alongside.length ? { alongside } : {}),
      change: perPath(e.paths, (o, p) => dropField(o, p)),
    });
  }
  // The pagination a list's own section states again (experiments.list.pagination, 4.4: "`pagination`
  // object"), beside the envelope's (2.1): left out of that list's answers only.
  for (const op of ops)
    for (const clause of op.clauses.filter((id) => id.endsWith('.list.pagination') && levelOf(id) === 'stated'))
      switches.push({
        ...about(`gen:presence:${clause}:pagination`, clause, `pagination left out of the answers of ${op.operationId}`),
        layer: 'response',
        generated: 'presence',
        change: dropField([op.operationId], 'pagination'),
      });

  // ------------------------------------------------------------------ required request fields, bounds (spec 4, 8)
  for (const op of ops) {
    if (!op.body) continue;
    walk(defs, op.body, (node, _path, clauses, _alongside, component) => {
      if (!component) return;
      for (const field of node.required ?? []) {
        for (const clause of clauses.filter((id) => id.includes(`.${field}.`) || id.endsWith(`.${field}`))) {
          const c = byId.get(clause);
          // A definition several operations share (TriggerPhaseRequest): the clause is the one of its section.
          if (c && c.section !== op.section && ops.some((o) => o.section === c.section && o.body)) continue;
          const name = `gen:required:${clause}`;
          const found = switches.find((s) => s.name === name);
          if (found) (found.change as { operations: string[] }).operations.push(op.operationId);
          else
            switches.push({
              ...about(name, clause, `${component}.${field} no longer required by ${op.operationId}`),
              layer: 'request',
              generated: 'required',
              change: { operations: [op.operationId], schema: dropRequired(component, field) },
            });
        }
      }
      for (const [field, prop] of Object.entries<Node>(node.properties ?? {})) {
        const clause = (prop['x-clauses'] ?? [])[0] as string | undefined;
        for (const keyword of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum']) {
          const bound = prop[keyword];
          if (typeof bound !== 'number') continue;
          if (!clause) {
            notGenerated.push({ clause: `(${component}.${field} ${keyword})`, edit: 'bound', why: 'no x-clauses beside the bound' });
            continue;
          }
          // Out: one past the bound accepted; in: the bound itself refused.
          const widen = keyword.startsWith('min') ? -1 : 1;
          for (const moved of [bound + widen, bound - widen]) {
            if (moved < 0) continue;
            const name = `gen:bound:${clause}:${keyword}=${moved}`;
            const found = switches.find((s) => s.name === name);
            if (found) (found.change as { operations: string[] }).operations.push(op.operationId);
            else
              switches.push({
                ...about(name, clause, `${component}.${field} ${keyword} ${bound} moved to ${moved} by ${op.operationId}`),
                layer: 'request',
                generated: 'bound',
                change: { operations: [op.operationId], schema: setBound(component, field, keyword, moved) },
              });
          }
        }
      }
    });
  }
  // ------------------------------------------------------------------ paths, statuses, bodies, filters (spec 4)
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    const route = /^`([A-Z]+) (\/console\/v1\/[^`]*)`$/.exec(c.text);
    if (route) {
      const op = ops.find((o) => o.method === route[1] && o.path === route[2]);
      if (!op) notGenerated.push({ clause: c.id, edit: 'path', why: `no operation ${route[1]} ${route[2]} in the contract` });
      else
        switches.push({
          ...about(`gen:path:${c.id}`, c.id, `${op.operationId} not found at ${route[1]} ${route[2]} (404 after the key check)`),
          layer: 'request',
          generated: 'path',
          change: {
            operations: [op.operationId],
            check: () => {
              throw new HttpError(404, `Route ${route[1]}:${route[2]} not found`);
            },
          },
        });
    }
    if (c.id.endsWith('.status200')) {
      const on = ops.filter((o) => o.clauses.includes(c.id)).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'status', why: 'no operation of the contract names the clause in its x-clauses' });
      else
        switches.push({
          ...about(`gen:status:${c.id}`, c.id, `${describeOps(on)} answer${on.length === 1 ? 's' : ''} 202 instead of the 200 the spec shows`),
          layer: 'response',
          generated: 'status',
          change: {
            operations: on,
            transform: (r) => {
              r.status = 202;
            },
          },
        });
    }
    // "No body." (4.2, 4.3): the operation of the clause's section, which takes no body, wants one.
    if (c.text === 'No body.') {
      const on = ops.filter((o) => o.section === c.section && !o.body).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'body', why: `no operation of section ${c.section} without a request body` });
      else
        switches.push({
          ...about(`gen:body:${c.id}`, c.id, `${describeOps(on)} refuse${on.length === 1 ? 's' : ''} a request without a JSON body (400)`),
          layer: 'request',
          generated: 'body',
          change: {
            operations: on,
            check: (r) => {
              if (r.body === undefined || r.body === null) throw new HttpError(400, 'a JSON body is required');
            },
          },
        });
    }
    const filter = /^experiments\.list\.filter\.(\w+)$/.exec(c.id)?.[1];
    if (filter) {
      const on = ops.filter((o) => o.query[filter]).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'filter', why: `no operation takes a query parameter ${filter}` });
      else if (IGNORABLE_FILTERS[filter]) notGenerated.push({ clause: c.id, edit: 'filter', why: IGNORABLE_FILTERS[filter] });
      else switches.push(queryIgnored('filter', c.id, filter, on, `the ${filter} filter`));
    }
    // A stated query parameter of a list (`page`, `limit`: experiments.list.query.page), on the list
    // operation of the clause's section: ignored, the list answered as if it was not sent.
    const param = /^\w+\.list\.query\.(\w+)$/.exec(c.id)?.[1];
    if (param) {
      const on = ops.filter((o) => o.section === c.section && o.query[param]).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'query', why: `no operation of section ${c.section} takes a query parameter ${param}` });
      else switches.push(queryIgnored('query', c.id, param, on, `the ${param} parameter (answered as if not sent)`));
    }
  }

  // ------------------------------------------------------------------ stated enumerations (spec 4.4, 4.6, 4.7)
  const enumOf = (node: Node | undefined): boolean => !!node && (Array.isArray(node.enum) || enumOf(defs[refName(node) ?? '']));
  /** Per clause: `where` the places that take any text, `refusing` the query parameters that refuse a listed value. */
  const enums = new Map<string, { operations: Set<string>; edits: NonNullable<RequestChange['schema']>[]; where: Set<string>; refusing: Set<string> }>();
  const enumEntry = (clause: string) => {
    const e = enums.get(clause) ?? { operations: new Set<string>(), edits: [], where: new Set<string>(), refusing: new Set<string>() };
    enums.set(clause, e);
    return e;
  };
  const valuesOf = (node: Node | undefined): unknown[] => (Array.isArray(node?.enum) ? node.enum : valuesOf(defs[refName(node) ?? '']));
  for (const op of ops) {
    // A query parameter's listed values are what a caller may send: the fault refuses the last of them
    // (a server whose list lacks a value). A value beyond them is errors.badInput.4xx's (inferred): the
    // outcome of a bad request is not shown (7).
    for (const [name, param] of Object.entries(op.query))
      for (const clause of (param['x-clauses'] ?? []).filter((id: string) => id.endsWith('.enum'))) {
        if (!enumOf(param.schema)) continue;
        const listed = valuesOf(param.schema);
        const e = enumEntry(clause);
        e.operations.add(op.operationId);
        e.refusing.add(`the ${name} query parameter of ${op.operationId} refuses ${JSON.stringify(listed.at(-1))}, a value the spec lists`);
        e.edits.push((schema, part) => {
          if (part === 'querystring' && schema.properties?.[name]) schema.properties[name] = { type: 'string', enum: listed.slice(0, -1) };
        });
      }
    if (!op.body) continue;
    walk(defs, op.body, (node, _path, _clauses, _alongside, component) => {
      if (!component) return;
      for (const clause of (node['x-clauses'] ?? []).filter((id: string) => id.endsWith('.enum'))) {
        if (!Array.isArray(node.enum)) continue;
        const e = enumEntry(clause);
        e.operations.add(op.operationId);
        e.where.add(component);
        e.edits.push((schema, part) => {
          if (part === 'body' && schema.$defs?.[component]) delete schema.$defs[component].enum;
        });
      }
      for (const [field, prop] of Object.entries<Node>(node.properties ?? {}))
        for (const clause of (prop['x-clauses'] ?? []).filter((id: string) => id.endsWith('.enum'))) {
          if (!enumOf(prop)) continue;
          // A clause names the operation of its section (metrics.create.* is 4.6, metrics.update.* 4.7).
          const c = byId.get(clause);
          if (c && c.section !== op.section) continue;
          const e = enumEntry(clause);
          e.operations.add(op.operationId);
          e.where.add(`${component}.${field}`);
          e.edits.push((schema, part) => {
            if (part === 'body' && schema.$defs?.[component]?.properties?.[field]) schema.$defs[component].properties[field] = { type: 'string' };
          });
        }
    });
  }
  for (const [clause, e] of enums)
    switches.push({
      ...about(
        `gen:enum:${clause}`,
        clause,
        [
          ...(e.where.size ? [`${[...e.where].join(', ')} take${e.where.size === 1 ? 's' : ''} any text, not only the values the spec lists`] : []),
          ...e.refusing,
        ].join('; '),
      ),
      layer: 'request',
      generated: 'enum',
      change: {
        operations: [...e.operations],
        schema: (schema, part) => {
          for (const edit of e.edits) edit(schema, part);
        },
      },
    });

  // ------------------------------------------------------------------ stated formats of query parameters (spec 4.4)
  // A parameter whose x-clauses name a `.format` clause and whose schema has a pattern (CalendarDate,
  // YYYY-MM-DD): taken only in another format, epoch milliseconds, so that a date of the stated format is refused.
  const patternOf = (node: Node | undefined): string | undefined =>
    typeof node?.pattern === 'string' ? node.pattern : node && refName(node) ? patternOf(defs[refName(node)!]) : undefined;
  const formats = new Map<string, { operations: Set<string>; names: Set<string> }>();
  for (const op of ops)
    for (const [name, param] of Object.entries(op.query))
      for (const clause of (param['x-clauses'] ?? []).filter((id: string) => id.endsWith('.format'))) {
        if (!patternOf(param.schema)) {
          notGenerated.push({ clause, edit: 'format', why: `the ${name} query parameter of ${op.operationId} has no pattern in the contract` });
          continue;
        }
        const f = formats.get(clause) ?? { operations: new Set<string>(), names: new Set<string>() };
        f.operations.add(op.operationId);
        f.names.add(name);
        formats.set(clause, f);
      }
  for (const [clause, f] of formats)
    switches.push({
      ...about(
        `gen:format:${clause}`,
        clause,
        `${[...f.names].join(', ')} of ${describeOps([...f.operations])} taken only as epoch milliseconds: a date in the format the spec states is refused`,
      ),
      layer: 'request',
      generated: 'format',
      change: {
        operations: [...f.operations],
        schema: (schema, part) => {
          if (part !== 'querystring') return;
          for (const name of f.names) if (schema.properties?.[name]) schema.properties[name] = { type: 'string', pattern: '^[0-9]+$' };
        },
      },
    });

  return { switches, notGenerated };
}

/**
 * The clause that states a required response field: the one of the node's x-clauses named for the field
 * (gates.enableDisable.owner), the node's only clause, or the envelope's (envelope.message).
 */
function presenceClause(clauses: string[], field: string, byId: Map<string, CatalogueClause>): string | undefined {
  const named = clauses.find((id) => id.endsWith(`.${field}`));
  if (named) return named;
  if (clauses.length === 1) return clauses[0];
  return byId.has(`envelope.${field}`) ? `envelope.${field}` : undefined;
}

let made: Generated | undefined;

/** Every generated fault (made once, on first use: the contract is read then). */
export function generatedSwitches(): readonly GeneratedSwitch[] {
  made ??= generate();
  return made.switches;
}

/** The mechanical-looking clauses and nodes no fault was generated for, with the reason. */
export function notGenerated(): readonly NotGenerated[] {
  made ??= generate();
  return made.notGenerated;
}

export const isGeneratedName = (name: string): boolean => name.startsWith('gen:');
