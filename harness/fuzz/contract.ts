// What the fuzz knows about each operation: method, path and the request schemas, all read from the
// generated contract (contracts/schemas), plus one valid request per operation to mutate. The fuzz
// judges "malformed" by the contract itself, so the server's own validators are not their own oracle.
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { ROOT, loadManifest } from '../../core/config.ts';
import { contractAjv, OPERATIONS, SPEC_DEFAULTS, schema } from '../../contracts/index.ts';

// Bodies exactly as sent (no coercion); query strings coerced, as any HTTP server reads them.
const bodyAjv = contractAjv({ allErrors: false });
const queryAjv = contractAjv({ allErrors: false, coerceTypes: 'array' });

export interface FuzzOperation {
  id: string;
  method: string;
  /** Path with `{id}` where the operation has a path id. */
  path: string;
  /** A path id that exists in the seed (or is created before the run), when the path has one. */
  validId?: string;
  /** A body the contract accepts; the fuzz mutates it. */
  validBody?: unknown;
  body?: ValidateFunction;
  query?: ValidateFunction;
}

/** The metric the fuzz creates before its run, so that update-metric has a target. */
export const FUZZ_METRIC = { name: 'cc_fuzz_metric', type: 'sum' } as const;

/**
 * One valid body per operation. These are data, not shapes: each is checked against the contract when
 * the fuzz starts, so a contract change that invalidates one stops the run instead of skewing it.
 */
function validBodies(manifest: ReturnType<typeof loadManifest>): Record<string, unknown> {
  const trigger = manifest.triggers[0];
  return {
    addGateRules: {
      rules: [
        {
          name: 'fuzz rule',
          passPercentage: 50,
          conditions: [{ type: 'country', targetValue: ['US'], operator: 'any' }],
          environments: ['production'],
          returnValue: { flag: true },
        },
      ],
    },
    createMetric: {
      name: 'cc_fuzz_created',
      type: 'sum',
      description: 'made by the fuzz',
      tags: ['fuzz'],
      unitTypes: ['userID'],
      directionality: SPEC_DEFAULTS.createMetric.directionality,
      metricEvents: [{ name: 'purchase', type: 'value' }],
      metricComponentMetrics: [{ name: 'component' }],
    },
    updateMetric: { description: 'updated by the fuzz', tags: ['fuzz'], isVerified: true, owner: { email: 'owner@example.com', ownerID: 'u1' } },
    skipTriggerPhase: { phaseID: trigger.phaseIDs[0] },
    unpauseTrigger: { phaseID: trigger.phaseIDs[0] },
    patchExperimentOverrides: {
      overrides: [{ type: 'gate', id: 'gate_x', groupID: 'control' }],
      userIDOverrides: [{ groupID: 'test', ids: ['user_1', 'user_2'], unitType: 'userID' }],
    },
  };
}

export function loadOperations(manifestPath = join(ROOT, 'fixtures/targets/reference.json')): FuzzOperation[] {
  const manifest = loadManifest(manifestPath);
  const ids: Record<string, string> = {
    addGateRules: manifest.gates[0],
    disableGate: manifest.gates[1] ?? manifest.gates[0],
    enableGate: manifest.gates[1] ?? manifest.gates[0],
    patchExperimentOverrides: manifest.experiments[0],
    skipTriggerPhase: manifest.triggers[0].id,
    unpauseTrigger: manifest.triggers[0].id,
    updateMetric: `${FUZZ_METRIC.name}::${FUZZ_METRIC.type}`,
  };
  const bodies = validBodies(manifest);
  return Object.entries(OPERATIONS).map(([id, entry]) => {
    const op: FuzzOperation = { id, method: entry.method, path: entry.path };
    if (entry.path.includes('{id}')) op.validId = ids[id];
    if (entry.body) {
      op.body = bodyAjv.compile(schema(entry.body));
      op.validBody = bodies[id];
      if (!op.body(op.validBody)) throw new Error(`fuzz: the valid body of ${id} no longer fits the contract: ${bodyAjv.errorsText(op.body.errors)}`);
    }
    if (entry.query) op.query = queryAjv.compile(schema(entry.query));
    return op;
  });
}
