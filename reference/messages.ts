// The success message each operation answers: the one its section of the spec states (the contract's
// SPEC_MESSAGES, generated from the spec), and the reference's own text where the spec states none
// (skip, unpause and overrides: "not shown", 4.9 to 4.11). A revision of the spec that rewords a
// message, or states one where there was none, reaches the answers with `npm run contracts:build` alone.
import { SPEC_MESSAGES } from '../contracts/index.ts';

/** The reference's own texts, for operations whose section states no message. */
const UNSTATED: Readonly<Record<string, string>> = {
  skipTriggerPhase: 'Trigger phase skipped successfully.',
  unpauseTrigger: 'Trigger unpaused successfully.',
  patchExperimentOverrides: 'Experiment overrides updated successfully.',
};

const STATED: Readonly<Record<string, string>> = SPEC_MESSAGES;

/** The message of an operation's success answer: the spec's where it states one. */
export function successMessage(operationId: string): string {
  const text = STATED[operationId] ?? UNSTATED[operationId];
  if (text === undefined) throw new Error(`no success message for operation ${operationId}: the spec states none and the reference has none of its own`);
  return text;
}

/** Whether the spec states the success message of the operation (a fault may reword only a stated one). */
export const isStatedMessage = (operationId: string): boolean => Object.hasOwn(STATED, operationId);
