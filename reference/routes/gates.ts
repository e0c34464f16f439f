// Spec 4.1 to 4.3: add rules to a gate, enable it, disable it.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ACTOR, type Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import { successMessage } from '../messages.ts';
import { routeSchema } from '../schemas.ts';
import type { Doc, Store } from '../store/store.ts';

type Params = { id: string };

function touch(gate: Doc, now: number): void {
  gate.lastModifiedTime = now;
  gate.lastModifierID = ACTOR.id;
  gate.lastModifierName = ACTOR.name;
  gate.lastModifierEmail = ACTOR.email;
}

function loadGate(store: Store, id: string): Doc {
  const gate = store.getGate(id);
  if (!gate) throw notFound('gate', id);
  return gate;
}

/**
 * A condition as stored and returned. Which condition fields a request must carry is not shown
 * (spec 2.4), so none is required; the response's type, targetValue and operator are always there:
 * absent ones become "", [] and `any` (the one operator value shown).
 */
function toCondition(input: Doc): Doc {
  return { ...input, type: input.type ?? '', targetValue: input.targetValue ?? [], operator: input.operator ?? 'any' };
}

/** A rule as stored and returned: id and baseID assigned when absent, environments null when unset (spec 2.3). */
function toRule(input: Doc): Doc {
  const id = input.id ?? `rule_${randomUUID()}`;
  const rule: Doc = {
    id,
    baseID: input.baseID ?? id,
    name: input.name ?? '',
    passPercentage: input.passPercentage ?? 0,
    conditions: (input.conditions ?? []).map(toCondition),
    environments: input.environments ?? null,
  };
  for (const key of ['returnValue', 'completedAutomatedRollouts', 'pendingAutomatedRollouts']) if (key in input) rule[key] = input[key];
  return rule;
}

export function gateRoutes(app: FastifyInstance, ctx: Ctx): void {
  const rulesStore = ctx.store('addGateRules');
  app.post<{ Params: Params; Body: { rules?: Doc[] } }>('/console/v1/gates/:id/rules', { schema: routeSchema('addGateRules') }, (req) => {
    const gate = rulesStore.transaction(() => {
      const g = loadGate(rulesStore, req.params.id);
      // Not shown whether rules are kept or replaced (spec 4.1): the reference appends.
      g.rules = [...g.rules, ...(req.body.rules ?? []).map(toRule)];
      touch(g, ctx.now());
      return rulesStore.putGate(g);
    });
    return { message: successMessage('addGateRules'), data: gate };
  });

  for (const [operationId, action, enabled] of [
    ['enableGate', 'enable', true],
    ['disableGate', 'disable', false],
  ] as const) {
    const store = ctx.store(operationId);
    const message = successMessage(operationId);
    app.put<{ Params: Params }>(`/console/v1/gates/:id/${action}`, { schema: routeSchema(operationId) }, (req) => {
      const gate = store.transaction(() => {
        const g = loadGate(store, req.params.id);
        g.isEnabled = enabled;
        touch(g, ctx.now());
        return store.putGate(g);
      });
      return { message, data: gate };
    });
  }
}
