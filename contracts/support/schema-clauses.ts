// Which clause a response schema error belongs to, from the contract (contracts/openapi.yaml) and the
// catalogue (contracts/clauses.yaml), so that a response whose one field has the wrong type fails that
// field's clause and not every clause of the test that met it (support/blame.ts):
// - a stated presence (`required`) belongs to the `x-clauses` of the component that states it, the one
//   named for the field where there are several (UpdatedGate: gates.enableDisable.owner, ...); the
//   envelope's own fields at the top of a body to envelope.<field> (spec 2.1);
// - any other error belongs to the field it is found in: the deepest property on its path whose component
//   is a clause family (Metric -> metric.field.*, ReleasePipeline -> pipeline.field.*: the family whose
//   fields are exactly the component's properties), so /data/rules/0/conditions/0/type is
//   condition.field.type and a wrong field of a pipeline's phase is pipeline.field.phases; where the
//   property itself carries `x-clauses` (a metric id's shape) and the error is not of its type, those;
// - a body that is not an object at all belongs to envelope.successObject;
// - a timestamp of another type than integer breaks its field's clause and also timestamps.integer
//   ("Timestamps are integers", spec 2), the general rule of which the field's row is one case
//   (alsoOfError).
// An error no clause takes is left to the check around it (the test's `t.clause`, or its clauses).
import type { ErrorObject } from 'ajv';
import { readYaml } from '../../core/yaml.ts';
import { CLAUSES } from './clauses.ts';
import type { Json } from '../../core/json.ts';

let components: Record<string, Json> | undefined;
/** The contract's components, with their x-clauses (which the generated schemas drop), read when first needed: a run that fails nothing never needs them. */
function contractComponents(): Record<string, Json> {
  components ??= (readYaml(new URL('../openapi.yaml', import.meta.url)) as { components: { schemas: Record<string, Json> } }).components.schemas;
  return components;
}
const IDS = new Set(CLAUSES.map((c) => c.id));

/** The field families of the catalogue: `metric` -> the fields of metric.field.*. */
const FAMILIES = (() => {
  const out = new Map<string, Set<string>>();
  for (const { id } of CLAUSES) {
    const m = /^(\w+)\.field\.(\w+)$/.exec(id);
    if (!m) continue;
    if (!out.has(m[1])) out.set(m[1], new Set());
    out.get(m[1])!.add(m[2]);
  }
  return out;
})();

const familyCache = new Map<string, string | undefined>();
/** The clause family whose fields are exactly the component's properties (Metric -> metric), if any. */
export function familyOf(component: string): string | undefined {
  if (familyCache.has(component)) return familyCache.get(component);
  const props = Object.keys(contractComponents()[component]?.properties ?? {});
  let found: string | undefined;
  for (const [family, fields] of FAMILIES) if (props.length > 0 && props.length === fields.size && props.every((p) => fields.has(p))) found = family;
  familyCache.set(component, found);
  return found;
}

const xClauses = (node: Json): string[] => (Array.isArray(node?.['x-clauses']) ? node['x-clauses'] : []);

interface Place {
  node: Json;
  component?: string;
}
interface Step {
  field: string;
  /** The components that declare the field at this step (Gate and AddedGate for an add-rules gate's rules). */
  components: string[];
}

/** A schema node of the generated document with its $ref and allOf/anyOf/oneOf branches resolved, each with its component. */
function expand(doc: Json, place: Place, depth = 0): Place[] {
  const node = place.node;
  if (node === null || typeof node !== 'object' || depth > 20) return [];
  if (typeof node.$ref === 'string') {
    const name = node.$ref.replace('#/$defs/', '');
    return expand(doc, { node: doc.$defs?.[name], component: name }, depth + 1);
  }
  const out = [place];
  for (const k of ['allOf', 'anyOf', 'oneOf'])
    for (const sub of Array.isArray(node[k]) ? node[k] : []) out.push(...expand(doc, { node: sub, component: place.component }, depth + 1));
  return out;
}

/** The properties met along `segments` (an instance path), with the components that declare each, and the schema places at its end. */
function walk(doc: Json, segments: string[]): { steps: Step[]; places: Place[] } {
  let places = expand(doc, { node: doc });
  const steps: Step[] = [];
  for (const seg of segments) {
    const next: Place[] = [];
    if (/^\d+$/.test(seg)) {
      for (const p of places) if (p.node.items) next.push(...expand(doc, { node: p.node.items, component: p.component }));
    } else {
      const components: string[] = [];
      for (const p of places) {
        const s = p.node.properties?.[seg];
        if (s === undefined) continue;
        if (p.component) components.push(p.component);
        next.push(...expand(doc, { node: s, component: p.component }));
      }
      steps.push({ field: seg, components });
    }
    places = next;
  }
  return { steps, places };
}

/** The forms (anyOf or oneOf) the schema holds the value at `instancePath` to, if it holds it to several. */
export function formsAt(doc: Json, instancePath: string): Json[] | undefined {
  const { places } = walk(doc, segmentsOf(instancePath));
  const p = places.find((x) => Array.isArray(x.node.anyOf) || Array.isArray(x.node.oneOf));
  return p ? (p.node.anyOf ?? p.node.oneOf) : undefined;
}

/**
 * The field clause of the property at the end of `steps`: `<family>.field.<field>` of the component that
 * declares it, or `<family>.field.<a>.<b>` of a component above it (a trigger's actions' timeMs:
 * trigger.field.actions.timeMs), or at the top of a body `envelope.<field>`.
 */
function fieldClause(steps: Step[]): string | undefined {
  const i = steps.length - 1;
  for (let j = i; j >= 0; j--)
    for (const c of steps[j].components) {
      const family = familyOf(c);
      const id = `${family}.field.${steps
        .slice(j)
        .map((x) => x.field)
        .join('.')}`;
      if (family && IDS.has(id)) return id;
    }
  if (i === 0 && IDS.has(`envelope.${steps[0].field}`)) return `envelope.${steps[0].field}`;
  return undefined;
}

const segmentsOf = (instancePath: string) =>
  instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/**
 * The timestamp fields, as the spec names them (2.2: "the timestamp fields (createdTime,
 * lastModifiedTime, startTime, endTime, decisionTime)"); every one is an integer in its table.
 */
const TIMESTAMP_FIELDS = new Set(['createdTime', 'lastModifiedTime', 'startTime', 'endTime', 'decisionTime']);
/** "Timestamps are integers" (spec 2). */
export const TIMESTAMPS_INTEGER = 'timestamps.integer';

/**
 * The clauses one schema error breaks beside its own (clauseOfError): a timestamp of the wrong type (a
 * fraction, a text) breaks its field's row and "Timestamps are integers" (spec 2) alike.
 */
export function alsoOfError(e: Pick<ErrorObject, 'instancePath' | 'keyword'>): string[] {
  const field = segmentsOf(e.instancePath).at(-1);
  return e.keyword === 'type' && field !== undefined && TIMESTAMP_FIELDS.has(field) ? [TIMESTAMPS_INTEGER] : [];
}

/** The clause one schema error of a response body (validated by `doc`, the operation's generated response schema) belongs to. */
export function clauseOfError(doc: Json, e: Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>): string | undefined {
  const segments = segmentsOf(e.instancePath);
  if (e.keyword === 'required') {
    // The components that state this presence here (a rule's environments: GateRule and AddedGateRule),
    // and of their clauses the one named for the field, else the only one.
    const missing = (e.params as { missingProperty: string }).missingProperty;
    const stating = walk(doc, segments).places.filter((p) => Array.isArray(p.node.required) && p.node.required.includes(missing) && p.component);
    const stated = [...new Set(stating.flatMap((p) => xClauses(contractComponents()[p.component!])))];
    const named = stated.find((c) => c.endsWith(`.${missing}`) || c.includes(`.${missing}.`));
    if (named ?? stated.length === 1) return named ?? stated[0];
    segments.push(missing);
  } else if (segments.length === 0) return 'envelope.successObject';
  const { steps } = walk(doc, segments);
  const last = steps.at(-1);
  if (last && e.keyword !== 'type' && e.keyword !== 'required' && steps.length === segments.filter((s) => !/^\d+$/.test(s)).length) {
    const own = last.components.flatMap((c) => xClauses(contractComponents()[c]?.properties?.[last.field]));
    if (own.length > 0) return own[0];
  }
  for (let i = steps.length; i > 0; i--) {
    const c = fieldClause(steps.slice(0, i));
    if (c) return c;
  }
  return undefined;
}

/**
 * Every clause an error of `doc` (a generated response schema) can belong to: what a response that
 * `doc` accepts holds. The field clauses of every property reached, the stated presences of the
 * components reached, the x-clauses of their properties, envelope.successObject, and timestamps.integer
 * where a timestamp field is reached.
 */
export function clausesOfSchema(doc: Json): string[] {
  const out = new Set<string>(['envelope.successObject']);
  const visit = (places: Place[], steps: Step[], components: string[]) => {
    for (const p of places) {
      if (p.component && Array.isArray(p.node.required)) for (const c of xClauses(contractComponents()[p.component])) out.add(c);
      const props = p.node.properties ?? {};
      for (const [field, s] of Object.entries<Json>(props)) {
        const here = [...steps, { field, components: p.component ? [p.component] : [] }];
        const c = fieldClause(here);
        if (c) out.add(c);
        if (TIMESTAMP_FIELDS.has(field)) out.add(TIMESTAMPS_INTEGER);
        if (p.component) for (const x of xClauses(contractComponents()[p.component]?.properties?.[field])) out.add(x);
        const below = expand(doc, { node: s, component: p.component });
        // A component met again on the way down (a recursive shape) adds no clause.
        if (below.some((b) => b.component && b.component !== p.component && components.includes(b.component))) continue;
        visit(below, here, p.component ? [...components, p.component] : components);
      }
      if (p.node.items) visit(expand(doc, { node: p.node.items, component: p.component }), steps, components);
    }
  };
  visit(expand(doc, { node: doc }), [], []);
  return [...out].filter((c) => IDS.has(c)).sort();
}
