// Generated faults (layers/generated.ts): stated presence (required in responses): a field the spec's words state, left out.
import { type Context, describeOps, join, perPath, presenceClause, walk } from './contract.ts';
import { dropField } from '../edits.ts';

export function presenceFaults({ defs, byId, ops, switches, notGenerated, levelOf, about }: Context): void {
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
}
