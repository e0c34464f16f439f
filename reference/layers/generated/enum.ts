// Generated faults (layers/generated.ts): stated enumerations (spec 4.4, 4.6, 4.7) no longer enforced.
import { type Context, type Node, refName, walk } from './contract.ts';
import type { RequestChange } from '../types.ts';

export function enumFaults({ defs, byId, ops, switches, about }: Context): void {
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
}
