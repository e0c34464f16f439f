// Generated faults (layers/generated.ts): a filter of 4.4 ignored.
import { type Context, IGNORABLE_FILTERS } from './contract.ts';

export function filterFaults({ catalogue, ops, switches, notGenerated, queryIgnored }: Context): void {
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    const filter = /^experiments\.list\.filter\.(\w+)$/.exec(c.id)?.[1];
    if (filter) {
      const on = ops.filter((o) => o.query[filter]).map((o) => o.operationId);
      if (on.length === 0) notGenerated.push({ clause: c.id, edit: 'filter', why: `no operation takes a query parameter ${filter}` });
      else if (IGNORABLE_FILTERS[filter]) notGenerated.push({ clause: c.id, edit: 'filter', why: IGNORABLE_FILTERS[filter] });
      else switches.push(queryIgnored('filter', c.id, filter, on, `the ${filter} filter`));
    }
  }
}
