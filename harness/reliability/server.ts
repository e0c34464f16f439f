// The reference server for the reliability tests: core/reference.ts's one process (kill -9 hits the
// server itself and RSS is the server's own), its stderr kept so a test can read its log.
import { startReference, type ReferenceOptions, type ReferenceServer } from '../../core/reference.ts';
import type { Json } from '../../core/json.ts';

export type Server = ReferenceServer;

export function startServer(opts: Pick<ReferenceOptions, 'apiKey' | 'db' | 'scale' | 'log' | 'timeoutMs'> = {}): Promise<Server> {
  return startReference({ ...opts, stderr: 'pipe', timeoutMs: opts.timeoutMs ?? 120_000 });
}

/** One request to the server: status and parsed body (undefined when the body is not JSON). */
export async function callServer(
  server: Server,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': server.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed };
}
