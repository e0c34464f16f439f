// Generated faults (layers/generated.ts): an operation the spec sends with "No body." refusing a request without one (spec 4.2, 4.3).
import { type Context, describeOps } from './contract.ts';
import { HttpError } from '../../errors.ts';

export function bodyFaults({ catalogue, ops, switches, notGenerated, about }: Context): void {
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    // "No body." (4.2, 4.3): the operation of the clause's section, which takes no body, wants one.
    if (c.text === 'No body.') {
      const on = ops.filter((o) => o.section === c.section && !o.body).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'body', why: `no operation of section ${c.section} without a request body` });
      else
        switches.push({
          ...about(`gen:body:${c.id}`, c.id, `${describeOps(on)} refuse${on.length === 1 ? 's' : ''} a request without a JSON body (400)`),
          layer: 'request',
          generated: 'body',
          change: {
            operations: on,
            check: (r) => {
              if (r.body === undefined || r.body === null) throw new HttpError(400, 'a JSON body is required');
            },
          },
        });
    }
  }
}
