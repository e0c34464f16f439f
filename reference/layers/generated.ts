// Faults generated from the contract, for the clauses that are mechanical: a field whose type the spec
// states, answered (or, in a request, accepted) as another type; every timestamp answered with a
// fraction; a message text the spec states,
// changed; a presence the spec's words state, dropped; a required request field no longer required; a
// stated bound moved by one; an operation not found at the path the spec gives it; a stated 200
// answered as another success; a filter of 4.4 ignored; a stated enumeration no longer enforced (a
// query parameter's: a listed value refused); a stated query parameter of a list ignored; a stated
// date format no longer taken; an operation the spec sends with "No body." refusing a request without
// one. Each is an ordinary entry of the response or request layer, made of the
// edits of edits.ts, named `gen:<edit>:<clause>[:<detail>]` (`gen:type:metric.field.id`,
// `gen:bound:metrics.create.name.length:minLength=3`), and selected like any fault (`serve --fault NAME`).
// They are not in the self-test's list (`npm test` runs every listed fault); `serve --list-faults
// --generated` adds them, and `npm run clauses:proof` runs them (docs/proof.md).
//
// Where each clause applies comes from contracts/openapi.yaml (through contracts/index.ts): the
// components each operation's response or request body holds and where, x-clauses on the nodes that
// state presence, required lists and bounds, and the operations whose x-clauses name a message clause.
// What a clause could not be made into is listed in notGenerated(), with the reason.
import { contextOf, type Generated, type GeneratedSwitch, type NotGenerated } from './generated/contract.ts';
import { typeFaults } from './generated/type.ts';
import { messageFaults } from './generated/message.ts';
import { presenceFaults } from './generated/presence.ts';
import { requiredFaults } from './generated/required.ts';
import { boundFaults } from './generated/bound.ts';
import { pathFaults } from './generated/path.ts';
import { statusFaults } from './generated/status.ts';
import { bodyFaults } from './generated/body.ts';
import { filterFaults } from './generated/filter.ts';
import { queryFaults } from './generated/query.ts';
import { enumFaults } from './generated/enum.ts';
import { formatFaults } from './generated/format.ts';

export { changedMessage, otherType, type GeneratedEdit, type GeneratedSwitch, type NotGenerated } from './generated/contract.ts';

/** Every kind, in the order their faults are listed: one file each under layers/generated/. */
const KINDS = [
  typeFaults,
  messageFaults,
  presenceFaults,
  requiredFaults,
  boundFaults,
  pathFaults,
  statusFaults,
  bodyFaults,
  filterFaults,
  queryFaults,
  enumFaults,
  formatFaults,
];

function generate(): Generated {
  const context = contextOf();
  for (const kind of KINDS) kind(context);
  return { switches: context.switches, notGenerated: context.notGenerated };
}

let made: Generated | undefined;

/** Every generated fault (made once, on first use: the contract is read then). */
export function generatedSwitches(): readonly GeneratedSwitch[] {
  made ??= generate();
  return made.switches;
}

/** The mechanical-looking clauses and nodes no fault was generated for, with the reason. */
export function notGenerated(): readonly NotGenerated[] {
  made ??= generate();
  return made.notGenerated;
}

export const isGeneratedName = (name: string): boolean => name.startsWith('gen:');
