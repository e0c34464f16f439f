// Generated faults (layers/generated.ts): stated messages (spec 4): the text an operation answers, changed.
import { type Context, changedMessage, describeOps } from './contract.ts';
import { setMessage } from '../edits.ts';

export function messageFaults({ catalogue, ops, switches, notGenerated, about }: Context): void {
  for (const c of catalogue.filter((x) => x.level === 'stated')) {
    const text = /message `([^`]+)`/.exec(c.text)?.[1];
    if (!text) continue;
    const on = ops.filter((o) => o.clauses.includes(c.id)).map((o) => o.operationId);
    if (on.length === 0) {
      notGenerated.push({ clause: c.id, edit: 'message', why: 'no operation of the contract names the clause in its x-clauses' });
      continue;
    }
    const changed = changedMessage(text);
    switches.push({
      ...about(
        `gen:message:${c.id}`,
        c.id,
        `${describeOps(on)} answer${on.length === 1 ? 's' : ''} ${JSON.stringify(changed)} instead of ${JSON.stringify(text)}`,
      ),
      layer: 'response',
      generated: 'message',
      change: setMessage(on, changed),
    });
  }
}
