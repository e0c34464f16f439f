// Generated faults (layers/generated.ts): required request fields (spec 4): one no longer required.
import { type Context, walk } from './contract.ts';
import { dropRequired } from '../edits.ts';

export function requiredFaults({ defs, byId, ops, switches, about }: Context): void {
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
    });
  }
}
