// Generated faults (layers/generated.ts): stated formats of query parameters (spec 4.4) no longer taken.
import { type Context, type Node, describeOps, refName } from './contract.ts';

export function formatFaults({ defs, ops, switches, notGenerated, about }: Context): void {
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
}
