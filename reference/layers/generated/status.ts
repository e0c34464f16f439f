// Generated faults (layers/generated.ts): a stated 200 answered as another success (spec 4).
import { type Context, describeOps } from './contract.ts';

export function statusFaults({ catalogue, ops, switches, notGenerated, about }: Context): void {
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    if (c.id.endsWith('.status200')) {
      const on = ops.filter((o) => o.clauses.includes(c.id)).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'status', why: 'no operation of the contract names the clause in its x-clauses' });
      else
        switches.push({
          ...about(`gen:status:${c.id}`, c.id, `${describeOps(on)} answer${on.length === 1 ? 's' : ''} 202 instead of the 200 the spec shows`),
          layer: 'response',
          generated: 'status',
          change: {
            operations: on,
            transform: (r) => {
              r.status = 202;
            },
          },
        });
    }
  }
}
