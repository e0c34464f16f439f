// The suite's fixtures: the target (from scripts/lib/config.ts, read once per worker) and a `t`
// helper that makes recorded calls with or without the key. Tests receive them by name.
import { test as base, type TestInfo } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Manifest } from '../../scripts/lib/config.ts';
import { call, type CallOptions, type Reply } from './evidence.ts';
import { KEY_HEADER } from './redact.ts';

export type Level = 'stated' | 'inferred' | 'open';

export interface Target {
  baseUrl: string;
  apiKey: string;
  manifest: Manifest;
  /** Unique per worker and run: created metric names carry it, so runs never collide. */
  runId: string;
  strict: boolean;
}

export interface T extends Target {
  /** A call with the right key. */
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** A call with exactly the headers given (no key unless given). */
  raw(method: string, path: string, opts?: CallOptions): Promise<Reply>;
}

export const test = base.extend<{ t: T }, { target: Target }>({
  target: [
    async ({}, use) => {
      const c = loadConfig();
      if (!c.baseUrl || !c.apiKey) throw new Error('no target: run through `npm run conformance`, which starts the reference server or reads CONSOLE_BASE_URL');
      await use({ baseUrl: c.baseUrl, apiKey: c.apiKey, manifest: c.manifest, runId: `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`, strict: c.strict });
    },
    { scope: 'worker' },
  ],
  t: async ({ request, target }, use, info) => {
    await use({
      ...target,
      call: (method, path, opts = {}) => call(request, info, target, method, path, { ...opts, headers: { [KEY_HEADER]: target.apiKey, ...(opts.headers ?? {}) } }),
      raw: (method, path, opts = {}) => call(request, info, target, method, path, opts),
    });
  },
});

export { expect } from '@playwright/test';

/** Test details naming the level and the clauses a test checks (style guide: a report groups by them). */
export function checks(level: Level, ...clauses: string[]) {
  return { tag: [`@${level}`], annotation: clauses.map((id) => ({ type: 'clause', description: id })) };
}

/** Records what the target does where the spec says "not shown" (an open clause): never a failure. */
export function observe(info: TestInfo, clause: string, value: unknown): void {
  info.annotations.push({ type: 'observation', description: JSON.stringify({ clause, value }) });
}
