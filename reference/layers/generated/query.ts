// Generated faults (layers/generated.ts): a stated query parameter of a list ignored (spec 4).
import type { Context } from './contract.ts';

export function queryFaults({ catalogue, ops, switches, notGenerated, queryIgnored }: Context): void {
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    // A stated query parameter of a list (`page`, `limit`: experiments.list.query.page), on the list
    // operation of the clause's section: ignored, the list answered as if it was not sent.
    const param = /^\w+\.list\.query\.(\w+)$/.exec(c.id)?.[1];
    if (param) {
      const on = ops.filter((o) => o.section === c.section && o.query[param]).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'query', why: `no operation of section ${c.section} takes a query parameter ${param}` });
      else switches.push(queryIgnored('query', c.id, param, on, `the ${param} parameter (answered as if not sent)`));
    }
  }
}
