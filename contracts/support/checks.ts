// Named checks shared by the resource files: each failure message says what was expected and what came.
import { expect } from '@playwright/test';
import type { Reply } from './evidence.ts';
import { isSuccess, OPERATIONS, requestErrors, responseErrors } from './validators.ts';

/** status_code_conformance + response_schema_conformance: a success of the operation, in its schema. */
export function expectSuccess(operationId: string, reply: Reply): any {
  const expected = OPERATIONS[operationId].successStatus === '200' ? '200' : 'a 2xx';
  expect(isSuccess(operationId, reply.status), `${operationId}: expected ${expected}, got ${reply.status}: ${JSON.stringify(reply.body)?.slice(0, 300)}`).toBe(true);
  const errors = responseErrors(operationId, reply.body);
  expect(errors, `${operationId}: response does not match contracts/schemas/${OPERATIONS[operationId].response}`).toEqual([]);
  return reply.body;
}

/** The exact message text the spec shows for the operation (spec 2.1). */
export function expectMessage(body: any, text: string): void {
  expect(body?.message, `message text (spec 2.1) should be exactly ${JSON.stringify(text)}`).toBe(text);
}

/** negative_data_rejection at the stated level: the server must not accept it (spec 8 / required fields). */
export function expectNotAccepted(reply: Reply, what: string): void {
  expect(reply.status >= 200 && reply.status < 300, `${what}: must not be accepted, got ${reply.status}`).toBe(false);
}

/** Inferred: bad input gets a 4xx, never a 5xx or a 2xx. */
export function expectClientError(reply: Reply, what: string): void {
  expect(reply.status >= 400 && reply.status < 500, `${what}: expected a 4xx, got ${reply.status}`).toBe(true);
}

export const METRIC_TYPES = ['ratio', 'mean', 'event_count_custom', 'event_user', 'funnel', 'composite', 'composite_sum', 'sum', 'undefined', 'user_warehouse'] as const;
export const EXPERIMENT_STATUSES = ['active', 'setup', 'decision_made', 'abandoned', 'archived', 'experiment_stopped', 'assignment_stopped'] as const;

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
