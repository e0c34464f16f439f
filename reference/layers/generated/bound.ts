// Generated faults (layers/generated.ts): stated bounds (spec 4, 8): one moved by one, either way.
import { type Context, type Node, walk } from './contract.ts';
import { setBound } from '../edits.ts';

export function boundFaults({ defs, ops, switches, notGenerated, about }: Context): void {
  for (const op of ops) {
    if (!op.body) continue;
    walk(defs, op.body, (node, _path, _clauses, _alongside, component) => {
      if (!component) return;
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
}
