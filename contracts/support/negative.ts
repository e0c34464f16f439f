// negative_data_rejection: generated invalid bodies for a write operation, from the contract. Each
// property of the request schema (and of warehouseNative) in turn gets a value of another type, each
// required property is removed, and the contract confirms each body is invalid before it is sent; then
// a body that is not JSON. Inferred: the outcome of bad input is not shown (spec 7).
// Each resource's bodies are sent by the file that owns the resource (owners.ts): a target may refuse a
// write, even one it would reject, while another write to the same resource is in flight.
import { OPERATIONS, schema } from '../index.ts';
import { expectClientError } from './checks.ts';
import type { T } from './suite-test.ts';
import { requestErrors } from './validators.ts';
import type { Json } from '../../core/json.ts';

const WRONG: Record<string, unknown> = { string: 17, number: 'text', integer: 'text', boolean: 'yes', array: 'text', object: 'text' };

/** The root object schema of an operation's request body, and its $defs. */
function bodySchema(op: string): { root: Json; defs: Json } {
  const doc: Json = schema(OPERATIONS[op].body!);
  const name = String(doc.$ref ?? '').replace('#/$defs/', '');
  return { root: name ? doc.$defs[name] : doc, defs: doc.$defs ?? {} };
}

function typeOf(schema: Json, defs: Json): string | undefined {
  if (schema?.$ref) return typeOf(defs[String(schema.$ref).replace('#/$defs/', '')], defs);
  if (Array.isArray(schema?.type)) return schema.type.find((t: string) => t !== 'null');
  return schema?.type ?? (schema?.enum ? 'string' : undefined);
}

/** Bodies that break `op`'s request schema, each from `valid` by one change. */
export function mutations(op: string, valid: Record<string, unknown>): Record<string, unknown>[] {
  const { root, defs } = bodySchema(op);
  const out: Record<string, unknown>[] = [];
  for (const [key, prop] of Object.entries<Json>(root.properties ?? {})) {
    const t = typeOf(prop, defs);
    if (t && t in WRONG) out.push({ ...valid, [key]: WRONG[t] });
  }
  for (const key of root.required ?? []) {
    const { [key]: _, ...rest } = valid;
    out.push(rest);
  }
  if (root.properties?.warehouseNative) {
    for (const [key, prop] of Object.entries<Json>(defs.WarehouseNative.properties)) {
      const t = typeOf(prop, defs);
      if (t && t in WRONG) out.push({ ...valid, warehouseNative: { [key]: WRONG[t] } });
    }
  }
  // No unknown-field body here: rejecting or ignoring one are both legal (envelope.spec.ts checks that
  // every write does the same). The contract's bodies reject them, the spec says nothing.
  return out;
}

/**
 * Sends every body of mutations(op, valid) that the contract calls invalid, and one that is not JSON,
 * to `path`: each must get a 4xx. Returns how many generated bodies were sent (the one not JSON aside),
 * for the caller to hold the generator to having made some.
 */
export async function expectBrokenBodiesRejected(t: T, op: string, method: string, path: string, valid: Record<string, unknown>): Promise<number> {
  let sent = 0;
  for (const body of mutations(op, valid)) {
    if (requestErrors(op, body).length === 0) continue; // the contract calls it valid: not negative data
    expectClientError(await t.call(method, path, { data: body }), `${op} with ${JSON.stringify(body).slice(0, 120)}`);
    sent++;
  }
  expectClientError(await t.call(method, path, { rawBody: '{"truncated": ' }), `${op} with malformed JSON`);
  return sent;
}
