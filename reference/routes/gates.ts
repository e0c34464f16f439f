// Spec 4.1 to 4.3: add rules to a gate, enable it, disable it.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ACTOR, type Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import { routeSchema } from '../schemas.ts';
import { getDoc, putDoc } from '../store/db.ts';

type Gate = Record<string, any>;
type Params = { id: string };

function touch(gate: Gate, ctx: Ctx): void {
  gate.lastModifiedTime = ctx.now();
  gate.lastModifierID = ACTOR.id;
  gate.lastModifierName = ACTOR.name;
  gate.lastModifierEmail = ACTOR.email;
}

function loadGate(ctx: Ctx, id: string): Gate {
  const gate = getDoc<Gate>(ctx.db, 'gates', id);
  if (!gate) throw notFound('gate', id);
  return gate;
}

/**
 * A condition as stored and returned. Which condition fields a request must carry is not shown
 * (spec 2.4), so none is required; the response's type, targetValue and operator are always there:
 * absent ones become "", [] and `any` (the one operator value shown).
 */
function toCondition(input: Record<string, any>, ctx: Ctx): Record<string, any> {
  const targetValue: string[] = input.targetValue ?? [];
  // Variant conditions-normalized: a server that keeps target values as a sorted set (order is not a stated property).
  return {
    ...input,
    type: input.type ?? '',
    targetValue: ctx.variant('conditions-normalized') ? [...targetValue].sort() : targetValue,
    operator: input.operator ?? 'any',
  };
}

/** A rule as stored and returned: id and baseID assigned when absent, environments null when unset (spec 2.3). */
function toRule(input: Record<string, any>, ctx: Ctx): Gate {
  const id = input.id ?? `rule_${randomUUID()}`;
  const rule: Gate = {
    id: ctx.fault('rules-without-id') ? undefined : id,
    baseID: ctx.fault('rules-without-id') ? undefined : (input.baseID ?? id),
    name: input.name ?? '',
    passPercentage: ctx.fault('rule-passpercentage-truncated') ? Math.trunc(input.passPercentage ?? 0) : (input.passPercentage ?? 0),
    conditions: (input.conditions ?? []).map((c: Record<string, any>) => toCondition(c, ctx)),
    environments: input.environments ?? null,
  };
  if (ctx.fault('rules-environments-omitted') && input.environments === undefined) delete rule.environments;
  // Go's omitempty and Jackson's NON_EMPTY drop a zero or an empty list, where the spec states the field's presence (2.3).
  if (ctx.fault('rule-zero-pass-omitted') && rule.passPercentage === 0) delete rule.passPercentage;
  if (ctx.fault('rules-conditions-empty-omitted') && rule.conditions.length === 0) delete rule.conditions;
  for (const key of ['returnValue', 'completedAutomatedRollouts', 'pendingAutomatedRollouts']) if (key in input) rule[key] = input[key];
  return rule;
}

export function gateRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.post<{ Params: Params; Body: { rules?: Record<string, any>[] } }>('/console/v1/gates/:id/rules', { schema: routeSchema('addGateRules') }, (req) => {
    const gate = ctx.db.transaction(() => {
      const g = loadGate(ctx, req.params.id);
      const added = (req.body.rules ?? []).map((r) => toRule(r, ctx));
      if (ctx.fault('add-rules-duplicates')) added.push(...added.map((r) => structuredClone(r)));
      // Not shown whether rules are kept or replaced (spec 4.1): the reference appends; variant rules-replace replaces.
      g.rules = ctx.variant('rules-replace') ? added : [...g.rules, ...added];
      touch(g, ctx);
      putDoc(ctx.db, 'gates', g.id, g);
      return g;
    })();
    return { message: ctx.fault('wrong-message-add-rules') ? 'Rules added.' : 'Gate rules added successfully.', data: gate };
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.put<{ Params: Params }>(`/console/v1/gates/:id/${action}`, { schema: routeSchema(action === 'enable' ? 'enableGate' : 'disableGate') }, (req) => {
      const gate = ctx.db.transaction(() => {
        const g = loadGate(ctx, req.params.id);
        const before = structuredClone(g);
        g.isEnabled = action === 'disable' && ctx.fault('disable-keeps-enabled') ? true : enabled;
        touch(g, ctx);
        // disable-not-persisted: the answer says disabled, the stored gate keeps its state.
        putDoc(ctx.db, 'gates', g.id, action === 'disable' && ctx.fault('disable-not-persisted') ? before : g);
        return g;
      })();
      const data = ctx.fault('enable-disable-rules-environments-omitted')
        ? {
            ...gate,
            rules: gate.rules.map((r: Gate) => (r.environments === null ? Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'environments')) : r)),
          }
        : gate;
      return { message: ctx.fault('wrong-message-gate-updated') ? 'Gate saved.' : 'Gate updated successfully.', data };
    });
  }
}
