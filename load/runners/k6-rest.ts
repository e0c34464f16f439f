// The two calls of k6's REST API (k6 docs, "REST API") that the k6 operator's starter makes: the
// status of a runner started with `--paused --address HOST:PORT`, and its release. k6 reports an
// initialised runner waiting for its start as execution status 4 ("paused before run", k6 lib/execution.go).

export const PAUSED_BEFORE_RUN = 4;

export interface K6Status {
  status: number;
  paused: boolean;
  running: boolean;
  stopped: boolean;
}

/** The runner's status, or undefined while its API does not answer yet. */
export async function k6Status(address: string, timeoutMs = 2000): Promise<K6Status | undefined> {
  try {
    const res = await fetch(`http://${address}/v1/status`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const a = ((await res.json()) as { data?: { attributes?: K6Status } }).data?.attributes;
    return a && typeof a.status === 'number' ? a : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Unpauses a runner: `PATCH /v1/status` with the body the operator's starter sends
 * (grafana/k6-operator pkg/resources/containers/curl_start.go). Throws with k6's answer when refused.
 */
export async function releaseRunner(address: string, timeoutMs = 5000): Promise<void> {
  const res = await fetch(`http://${address}/v1/status`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ data: { attributes: { paused: false }, id: 'default', type: 'status' } }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`k6 at ${address} refused the release: HTTP ${res.status} ${text.slice(0, 200)}`);
}
