// What must hold for every answer of the reference server to a fuzz case:
// no 5xx; an error answer in the one error shape of docs/development.md ({status, error, message});
// a request the contract rejects is rejected; the key is never echoed.
import type { FuzzCase } from './cases.ts';
import type { Json } from '../../core/json.ts';

export interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

export type ViolationKind = '5xx' | 'error-shape' | 'accepted-malformed' | 'success-shape' | 'key-echoed' | 'persisted-by-rejected-write' | 'crash';

const ERROR_KEYS = ['error', 'message', 'status'];

/** The violations of one answer (empty when it is as it must be), each with a one-line reason. */
export function judgeAnswer(c: FuzzCase, a: Answer, apiKey: string): { kind: ViolationKind; reason: string }[] {
  const out: { kind: ViolationKind; reason: string }[] = [];
  if (a.body.includes(apiKey) || JSON.stringify(a.headers).includes(apiKey)) out.push({ kind: 'key-echoed', reason: 'the answer holds the API key' });
  if (a.status >= 500) out.push({ kind: '5xx', reason: `status ${a.status}: ${a.body.slice(0, 160)}` });
  let body: Json;
  try {
    body = JSON.parse(a.body);
  } catch {
    out.push({
      kind: a.status >= 400 ? 'error-shape' : 'success-shape',
      reason: `status ${a.status} with a body that is not JSON: ${JSON.stringify(a.body.slice(0, 80))}`,
    });
    return out;
  }
  if (a.status >= 400) {
    const keys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).sort() : [];
    const ok =
      keys.join() === ERROR_KEYS.join() &&
      body.status === a.status &&
      typeof body.error === 'string' &&
      body.error.length > 0 &&
      typeof body.message === 'string' &&
      !body.message.includes('\n');
    if (!ok) out.push({ kind: 'error-shape', reason: `status ${a.status} answered ${a.body.slice(0, 160)}` });
  } else if (a.status >= 200 && a.status < 300) {
    if (c.expect === 'reject') out.push({ kind: 'accepted-malformed', reason: `status ${a.status} to a request the contract rejects` });
    if (!body || typeof body.message !== 'string' || !('data' in body))
      out.push({ kind: 'success-shape', reason: `status ${a.status} without the envelope: ${a.body.slice(0, 120)}` });
  } else {
    out.push({ kind: 'error-shape', reason: `unexpected status ${a.status}` });
  }
  return out;
}
