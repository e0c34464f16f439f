// Named checks shared by the resource files: each failure message says what was expected and what came.
import { expect } from '@playwright/test';
import type { Reply } from './evidence.ts';
import { markChecked, recordFinding } from './findings.ts';
import { absentListed, isSuccess, OPERATIONS, otherCase, requestErrors, responseErrorsByClause } from './validators.ts';
import { checkAs, failedExchange, markHeld } from './blame.ts';
import { clausesOfSchema } from './schema-clauses.ts';
import { schema, SPEC_MESSAGES } from '../index.ts';
import { CLAUSES } from './clauses.ts';
import type { Json } from '../../core/json.ts';

/** The inferred clause "a field the part-2 table lists is present" (contracts/clauses.yaml). */
export const LISTED_PRESENT = 'response.listedFieldsPresent';
/** "field names are case-sensitive" (spec 2). */
export const CASE_SENSITIVE = 'fields.caseSensitive';
/** "Request bodies are `application/json` and sent with `Content-Type: application/json`" (spec 4.0). */
export const REQUESTS_JSON = 'requests.json';

/**
 * status_code_conformance + response_schema_conformance: a success of the operation, in its schema.
 * Fails on what the spec states: the status, every present field's type, and the presence the spec's
 * words state (operations/<op>.response.json). A listed field that is absent is an inferred finding
 * (operations/<op>.response.listed.json), one per field pattern per test: a warning, failing only under --strict.
 */
export function expectSuccess(operationId: string, reply: Reply): Json {
  expectAccepted(operationId, reply);
  markChecked(LISTED_PRESENT);
  // The message names the operation and the field pattern only, so that the same absence reads the same in every test.
  for (const a of absentListed(operationId, reply.body)) {
    recordFinding({
      clause: LISTED_PRESENT,
      key: `${operationId} ${a.pattern}`,
      message: `${operationId}: listed field ${a.pattern} is absent`,
      exchange: reply.exchange,
    });
  }
  return reply.body;
}

/**
 * A success whose `data` the spec does not show (a dryRun create, 4.6): the status, the envelope and
 * the type of every field present, as expectSuccess holds them, but no finding for a listed field that
 * is absent, since nothing says what such an answer lists.
 *
 * Blame (support/blame.ts): each schema error belongs to its clause (support/schema-clauses.ts: a
 * field's type to that field's clause, a missing `data` to envelope.data, a stated presence to the
 * clause that states it), and a 2xx where the spec shows 200 to the operation's status clause. A status
 * that is no success at all belongs to the check around this one: what the test sent should have been
 * accepted, which is the test's clause (a name of 200 characters: metrics.create.name.length), but a
 * 415 (Unsupported Media Type) to a body sent as application/json, which refuses the media type 4.0
 * states (requests.json). A field the spec names answered spelt in another case (`baseId` for `baseID`)
 * fails fields.caseSensitive, before the schema would read it as absent.
 */
export function expectAccepted(operationId: string, reply: Reply): Json {
  try {
    return accepted(operationId, reply);
  } catch (err) {
    // The exchange that failed is the evidence, whatever the test sent after it (the envelope test judges eight answers in turn).
    failedExchange(reply.exchange);
    throw err;
  }
}

function accepted(operationId: string, reply: Reply): Json {
  const op = OPERATIONS[operationId];
  const expected = op.successStatus === '200' ? '200' : 'a 2xx';
  const status200 = op.clauses.find((c) => c.endsWith('.status200'));
  const status = () =>
    expect(
      isSuccess(operationId, reply.status),
      `${operationId}: expected ${expected}, got ${reply.status}: ${JSON.stringify(reply.body)?.slice(0, 300)}`,
    ).toBe(true);
  if (sentAsJson(reply))
    checkAs(REQUESTS_JSON, () =>
      expect(reply.status, `${operationId}: a body sent with Content-Type: application/json (spec 4.0) refused as an unsupported media type`).not.toBe(415),
    );
  if (status200 && ok2xx(reply)) checkAs(status200, status);
  else status();
  const misspelt = otherCase(operationId, reply.body);
  checkAs(CASE_SENSITIVE, () =>
    expect(misspelt, `${operationId}: fields the spec names, answered spelt in another case (spec 2: field names are case-sensitive)`).toEqual([]),
  );
  const errors = responseErrorsByClause(operationId, reply.body);
  if (errors.length === 0) {
    markHeld(() => responseClauses(operationId));
    return reply.body;
  }
  const clausesOf = (e: (typeof errors)[number]) => (e.clause ? [e.clause, ...(e.also ?? [])] : []);
  const blamed = [...new Set(errors.flatMap(clausesOf))];
  markHeld(responseClauses(operationId).filter((c) => !blamed.includes(c)));
  const shown = errors.slice(0, 8).map((e) => (e.clause ? `${e.line} (${clausesOf(e).join(', ')})` : e.line));
  const schemaCheck = () => expect(shown, `${operationId}: response does not match contracts/schemas/${op.response}`).toEqual([]);
  // An error no clause takes leaves the whole failure to the check around this one.
  if (errors.every((e) => e.clause)) checkAs(blamed, schemaCheck);
  else schemaCheck();
  return reply.body;
}

/** Whether the request of `reply` carried a body as application/json (every body the suite sends does, evidence.ts). */
function sentAsJson(reply: Reply): boolean {
  const { requestBody, requestHeaders } = reply.exchange;
  const type = Object.entries(requestHeaders).find(([h]) => h.toLowerCase() === 'content-type')?.[1] ?? '';
  return requestBody !== undefined && /^application\/json\s*(;|$)/i.test(type);
}

/**
 * The clause that names the operation itself (`POST /console/v1/metrics`: metrics.create.path), which a
 * refusal of a request valid in every part fails when no narrower clause explains it.
 */
export function operationClause(operationId: string): string {
  const op = OPERATIONS[operationId];
  const found = CLAUSES.find((c) => c.id.endsWith('.path') && c.text.includes(`${op.method} ${op.path}`));
  if (!found) throw new Error(`no clause of contracts/clauses.yaml names ${op.method} ${op.path}`);
  return found.id;
}

/**
 * The clause a refusal of `reply` breaks, where the test sent a request it expects the operation to take:
 * a 404 or a 405 says the operation is not at the method and path part 4 gives it (its path clause,
 * operationClause), whatever was sent; the ids a test sends are the manifest's, which the run checks
 * before it starts (core/restore.ts unknownIds), or none (create metric). Any other refusal is of what
 * was sent: `clause`, the test's reading of it.
 */
export function refusalClause(operationId: string, reply: Reply, clause: string): string {
  return reply.status === 404 || reply.status === 405 ? operationClause(operationId) : clause;
}

const responseClauseCache = new Map<string, string[]>();
/** The clauses a success answer of the operation holds when its schema accepts it. */
function responseClauses(operationId: string): string[] {
  let c = responseClauseCache.get(operationId);
  if (!c) {
    c = clausesOfSchema(schema(OPERATIONS[operationId].response));
    responseClauseCache.set(operationId, c);
  }
  return c;
}

/**
 * The experiments (or other items) that carry `field`, for an oracle that needs it: an item without it
 * cannot be judged, so it is left out of the comparison and the test says so with a finding (its
 * presence is only inferred). All of `items` when every one carries it.
 */
export function carrying(operationId: string, items: Json[], field: string, use: string): Json[] {
  const carry = items.filter((x) => x !== null && typeof x === 'object' && Object.hasOwn(x, field));
  if (carry.length < items.length) {
    const judged = carry.length === 0 ? `${use} cannot be compared` : `${use} compared on the ${carry.length} that carry it`;
    recordFinding({
      clause: LISTED_PRESENT,
      key: `${operationId} /data/*/${field} ${use}`,
      message: `${operationId}: listed field /data/*/${field} is absent on ${items.length - carry.length} of ${items.length} items: ${judged}`,
    });
  }
  return carry;
}

/**
 * `data` holds each field of `sent` that it carries with the value sent. A field it lacks cannot be
 * compared (the presence of a listed field is only inferred): those are returned, for the test to say
 * that its clause was not verifiable for them. A field present with another value fails.
 */
export function expectEchoed(data: Json, sent: Record<string, unknown>, what: string): string[] {
  const absent = Object.keys(sent).filter((k) => !(data !== null && typeof data === 'object' && Object.hasOwn(data, k)));
  expect(data, what).toMatchObject(Object.fromEntries(Object.entries(sent).filter(([k]) => !absent.includes(k))));
  return absent;
}

/**
 * Runs `check` on `obj[field]` when the field is present. A listed field's presence is only inferred
 * (expectSuccess has recorded its absence as a finding): when absent, the test says that `clause` was
 * not verifiable instead of failing.
 */
export function whenPresent(
  t: { uncovered(clause: string, reason: string, kind: 'unverifiable'): void },
  clause: string,
  obj: Json,
  field: string,
  check: (value: Json) => void,
): void {
  if (obj !== null && typeof obj === 'object' && Object.hasOwn(obj, field)) check(obj[field]);
  else t.uncovered(clause, `not verifiable: field absent: ${field}`, 'unverifiable');
}

/** The exact message text the spec shows for the operation (spec 2.1, the contract's SPEC_MESSAGES), blamed on the operation's message clause (its x-clauses). */
export function expectMessage(operationId: keyof typeof SPEC_MESSAGES, body: Json): void {
  const text = SPEC_MESSAGES[operationId];
  const clause = OPERATIONS[operationId].clauses.find((c) => c.endsWith('.message'));
  const check = () => expect(body?.message, `message text (spec 2.1) should be exactly ${JSON.stringify(text)}`).toBe(text);
  if (clause) checkAs(clause, check);
  else check();
}

/** negative_data_rejection at the stated level: the server must not accept it (spec 8 / required fields). */
export function expectNotAccepted(reply: Reply, what: string): void {
  expect(reply.status >= 200 && reply.status < 300, `${what}: must not be accepted, got ${reply.status}`).toBe(false);
}

/** Inferred: bad input gets a 4xx, never a 5xx or a 2xx. */
export function expectClientError(reply: Reply, what: string): void {
  expect(reply.status >= 400 && reply.status < 500, `${what}: expected a 4xx, got ${reply.status}`).toBe(true);
}

/** A metric name of exactly `length` characters carrying the manifest prefix and the run id when it fits. */
export function metricName(prefix: string, runId: string, length: number, salt = ''): string {
  const base = `${prefix}${runId}${salt}`;
  if (base.length >= length) return `${prefix}${runId}${salt}`.slice(0, length);
  return base + 'x'.repeat(length - base.length);
}

/** Precondition: the body the test is about to send is valid per the contract (else the test, not the target, is wrong). */
export function expectValidRequest(operationId: string, body: unknown): void {
  expect(requestErrors(operationId, body), `test precondition: this ${operationId} body is valid per contracts/schemas`).toEqual([]);
}

/** A status as the observations record it: exact, so that drift shows a change from 400 to 422. */
export function outcome(reply: Reply): { status: number; bodyKeys: string[] } {
  const body = reply.body;
  return { status: reply.status, bodyKeys: body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).sort() : [] };
}

/** Whether a status is a success. */
export const ok2xx = (reply: Reply) => reply.status >= 200 && reply.status < 300;
