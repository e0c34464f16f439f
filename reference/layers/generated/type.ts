// Generated faults (layers/generated.ts): field types (spec 2, 4.6 to 4.8) and "Timestamps are integers" (spec 2): a field answered (or, in a request, accepted) as another type; every Timestamp answered with a fraction.
import { type Context, byOperation, describeOps, fieldLocation, otherType, perPath, typesOf } from './contract.ts';
import { retypeField, retypeRequestField } from '../edits.ts';

export function typeFaults({ defs, catalogue, responses, bodies, switches, notGenerated, about }: Context): void {
  for (const c of catalogue.filter((x) => x.level !== 'open' && x.id.includes('.field.'))) {
    const located = fieldLocation(defs, c.id);
    if (typeof located === 'string') {
      notGenerated.push({ clause: c.id, edit: 'type', why: located });
      continue;
    }
    const types = typesOf(defs, located.schema);
    if (!types) {
      notGenerated.push({ clause: c.id, edit: 'type', why: `${located.inner}.${located.field} has no type in the contract` });
      continue;
    }
    const other = otherType(types);
    const inResponses = byOperation(responses, located.top, located.relative);
    const name = `gen:type:${c.id}`;
    if (Object.keys(inResponses.paths).length > 0) {
      const where = describeOps(Object.keys(inResponses.paths));
      switches.push({
        ...about(
          name,
          c.id,
          `${located.inner}.${located.field} (${types.join(' or ')}) answered as ${JSON.stringify(other.value)} by ${where}${inResponses.alongside.length ? ` (shown with --variant ${inResponses.alongside.join(', ')})` : ''}`,
        ),
        layer: 'response',
        generated: 'type',
        ...(inResponses.alongside.length ? { alongside: inResponses.alongside } : {}),
        change: perPath(inResponses.paths, (o, p) => retypeField(o, p, () => structuredClone(other.value))),
      });
      continue;
    }
    const inBodies = [...new Set(bodies.filter((p) => p.component === located.inner).map((p) => p.operationId))];
    if (inBodies.length === 0) {
      notGenerated.push({ clause: c.id, edit: 'type', why: `${located.top} is in no response and no request body of the contract` });
      continue;
    }
    switches.push({
      ...about(
        name,
        c.id,
        `request field ${located.inner}.${located.field} (${types.join(' or ')}) accepted only as ${other.type} by ${describeOps(inBodies)}`,
      ),
      layer: 'request',
      generated: 'type',
      change: { operations: inBodies, schema: retypeRequestField(located.inner, located.field, other.type) },
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
}
