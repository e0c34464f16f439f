// Generated faults (layers/generated.ts): an operation not found at the path the spec gives it (spec 4).
import type { Context } from './contract.ts';
import { HttpError } from '../../errors.ts';

export function pathFaults({ catalogue, ops, switches, notGenerated, about }: Context): void {
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
  }
}
