// Adding rules to a manifest gate that may be full. The spec has no delete, so every night adds rules,
// and a real server caps a gate's rules: once it refuses more, the gate is a resource the target refuses
// the suite (the user's to fix: reset it, or name another gate), not a contract violation. A refusal
// counts as that only on a gate that already held many rules when the run began; on one that held few,
// refusing a valid rule is the target's answer, judged by the test.
import type { Reply } from './evidence.ts';
import type { T } from './suite-test.ts';

/** A gate holding this many rules may refuse more (the load uses the same bound, load/mutation.ts). */
export const FULL_AT = 20;

export const rulesPath = (id: string) => `/console/v1/gates/${encodeURIComponent(id)}/rules`;

/**
 * POSTs `data` to the gate's rules; a refusal of rules by a gate that may be full ends the test as a
 * resource refused. A 415 is no such refusal: it refuses the media type (4.0), whatever the gate holds.
 */
export async function addRules(t: T, gate: string, data: { rules: unknown[] }): Promise<Reply> {
  const reply = await t.call('POST', rulesPath(gate), { data });
  const held = t.gateRulesAtStart[gate];
  if (data.rules.length > 0 && reply.status >= 400 && reply.status < 500 && reply.status !== 415 && held !== undefined && held >= FULL_AT)
    t.refused(
      `gate ${gate} refuses new rules (HTTP ${reply.status}) and held ${held} when the run began: it may be full (real servers cap a gate's rules); reset it or name another gate in the manifest`,
    );
  return reply;
}
