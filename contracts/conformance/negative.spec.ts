// negative_data_rejection: generated invalid bodies for every write operation get a 4xx, never a 2xx
// or a 5xx (inferred: the outcome of bad input is not shown, spec 7). The bodies come from the
// contract: each property of the request schema (and of warehouseNative) in turn gets a value of
// another type, each required property is removed, and the contract
// confirms each body is invalid before it is sent.
import { checks, expect, test } from '../support/target.ts';
import { expectClientError } from '../support/checks.ts';
import { OPERATIONS, schema } from '../index.ts';
import { requestErrors } from '../support/validators.ts';

const WRONG: Record<string, unknown> = { string: 17, number: 'text', integer: 'text', boolean: 'yes', array: 'text', object: 'text' };

/** The root object schema of an operation's request body, and its $defs. */
function bodySchema(op: string): { root: any; defs: any } {
  const doc: any = schema(OPERATIONS[op].body!);
  const name = String(doc.$ref ?? '').replace('#/$defs/', '');
  return { root: name ? doc.$defs[name] : doc, defs: doc.$defs ?? {} };
}

function typeOf(schema: any, defs: any): string | undefined {
  if (schema?.$ref) return typeOf(defs[String(schema.$ref).replace('#/$defs/', '')], defs);
  if (Array.isArray(schema?.type)) return schema.type.find((t: string) => t !== 'null');
  return schema?.type ?? (schema?.enum ? 'string' : undefined);
}

function mutations(op: string, valid: Record<string, unknown>): Record<string, unknown>[] {
  const { root, defs } = bodySchema(op);
  const out: Record<string, unknown>[] = [];
  for (const [key, prop] of Object.entries<any>(root.properties ?? {})) {
    const t = typeOf(prop, defs);
    if (t && t in WRONG) out.push({ ...valid, [key]: WRONG[t] });
  }
  for (const key of root.required ?? []) {
    const { [key]: _, ...rest } = valid;
    out.push(rest);
  }
  if (root.properties?.warehouseNative) {
    for (const [key, prop] of Object.entries<any>(defs.WarehouseNative.properties)) {
      const t = typeOf(prop, defs);
      if (t && t in WRONG) out.push({ ...valid, warehouseNative: { [key]: WRONG[t] } });
    }
  }
  // No unknown-field body here: rejecting or ignoring one are both legal (envelope.spec.ts checks that
  // every write does the same). The contract's bodies reject them, the spec says nothing.
  return out;
}

test(
  'negative data: every write operation rejects bodies that break its schema with a 4xx [inferred]',
  checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing'),
  async ({ t }) => {
    const m = t.manifest;
    const metric = `${m.metricPrefix}${t.runId}_neg`;
    // Update bodies go to a metric that exists, so that a rejection is about the body, not the id.
    const existing = `${m.metricPrefix}${t.runId}_negupd`;
    expect((await t.call('POST', '/console/v1/metrics', { data: { name: existing, type: 'sum' } })).status, 'the metric to update is created').toBeLessThan(
      300,
    );
    const ops: [string, string, string, Record<string, unknown>][] = [
      ['createMetric', 'POST', '/console/v1/metrics', { name: metric, type: 'sum', dryRun: true }],
      ['updateMetric', 'POST', `/console/v1/metrics/${existing}::sum`, { description: 'x', dryRun: true }],
      ['addGateRules', 'POST', `/console/v1/gates/${m.gates[0]}/rules`, { rules: [] }],
      ['skipTriggerPhase', 'PUT', `/console/v1/release_pipeline_triggers/${m.triggers[0].id}/skip`, { phaseID: 'cc_not_a_phase' }],
      ['unpauseTrigger', 'PUT', `/console/v1/release_pipeline_triggers/${m.triggers[0].id}/unpause`, { phaseID: 'cc_not_a_phase' }],
      ['patchExperimentOverrides', 'PATCH', `/console/v1/experiments/${m.experiments[0]}/overrides`, { overrides: [], userIDOverrides: [] }],
    ];
    let sent = 0;
    for (const [op, method, path, valid] of ops) {
      for (const body of mutations(op, valid)) {
        if (requestErrors(op, body).length === 0) continue; // the contract calls it valid: not negative data
        expectClientError(await t.call(method, path, { data: body }), `${op} with ${JSON.stringify(body).slice(0, 120)}`);
        sent++;
      }
      expectClientError(await t.call(method, path, { rawBody: '{"truncated": ' }), `${op} with malformed JSON`);
      sent++;
    }
    // A rejected create left nothing: the metric cannot be updated.
    expectClientError(
      await t.call('POST', `/console/v1/metrics/${metric}::sum`, { data: { description: 'probe' } }),
      'update of a metric whose creates were all rejected',
    );
    expect(sent, 'invalid bodies sent').toBeGreaterThan(60);
  },
);
