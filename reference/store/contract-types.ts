// The reference keeps each field of what it stores in the type the contract gives it: a value the seed
// or a handler makes of one JSON type is turned into the type of the contract's schema (a number where
// the spec's table now says string, an integer where it says integer). So a revision of a field's type in
// the spec's part 2 reaches the reference's answers with `contracts:build` alone, as limits and messages
// do. Only plain values are turned; a value that cannot be (a word where a number is wanted) stays as it
// is, for the suite to judge.
import { schema } from '../../contracts/index.ts';

type Schema = { $ref?: string; type?: string | string[]; items?: Schema; properties?: Record<string, Schema>; anyOf?: Schema[]; allOf?: Schema[] };
type Doc = Record<string, unknown>;

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** `v` in one of `types` where a plain change of form can make it so; else `v`. */
function retyped(v: unknown, types: string[]): unknown {
  const t = jsonType(v);
  if (types.length === 0 || types.includes(t) || (t === 'integer' && types.includes('number'))) return v;
  if (types.includes('string') && (t === 'integer' || t === 'number' || t === 'boolean')) return String(v);
  if (types.includes('integer') && t === 'number') return Math.round(v as number);
  if ((types.includes('integer') || types.includes('number')) && t === 'string' && (v as string).trim() !== '' && Number.isFinite(Number(v))) {
    const n = Number(v);
    return types.includes('integer') && !types.includes('number') ? Math.round(n) : n;
  }
  if (types.includes('boolean') && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}

interface Typer {
  (doc: Doc): Doc;
}

const typers = new Map<string, Typer>();

/** A function that gives `doc`'s fields the types of the contract's component `name` (in place), built once per component. */
export function contractTyper(name: string): Typer {
  let typer = typers.get(name);
  if (typer) return typer;
  const root = schema(`components/${name}.json`) as Schema & { $defs?: Record<string, Schema> };
  const defs = root.$defs ?? {};
  const resolve = (s: Schema): Schema => {
    if (s.$ref) return resolve(defs[s.$ref.replace('#/$defs/', '')] ?? {});
    if (s.allOf) return s.allOf.map(resolve).reduce<Schema>((a, b) => ({ ...a, ...b, properties: { ...a.properties, ...b.properties } }), {});
    return s;
  };
  const make = (s: Schema, depth: number): ((v: unknown) => unknown) => {
    const r = resolve(s);
    const types = typesOf(r);
    const fields = depth < 4 && r.properties ? Object.entries(r.properties).map(([k, p]) => [k, make(p, depth + 1)] as const) : [];
    const item = depth < 4 && r.items ? make(r.items, depth + 1) : undefined;
    return (v) => {
      if (fields.length > 0 && v && typeof v === 'object' && !Array.isArray(v)) {
        const o = v as Doc;
        for (const [k, f] of fields) if (k in o) o[k] = f(o[k]);
        return o;
      }
      if (item && Array.isArray(v)) return v.map(item);
      return retyped(v, types);
    };
  };
  const f = make(root, 0);
  typer = (doc) => f(doc) as Doc;
  typers.set(name, typer);
  return typer;
}
