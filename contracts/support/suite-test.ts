// The suite's fixtures: `suiteConfig`, the target and how to test it (from core/config.ts, read once
// per worker), and a `t` helper that makes recorded calls with or without the key, and records
// observations of open clauses and clauses a run could not cover. Tests receive them by name.
import { test as base } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { type AuthProbes, loadConfig, type Manifest } from '../../core/config.ts';
import { call, type EvidenceCallOptions, type Exchange, type Reply } from './evidence.ts';
import { KEY_HEADER } from '../../core/keys.ts';
import { RunStopped, TransportError, stopReason } from './transport.ts';
import { waiverOf } from '../../core/waivers.ts';
import type { Level, Observation, UncheckedKind } from '../../core/formats.ts';
import { clauseStep, flushBlame } from './blame.ts';

export type { Level, Observation } from '../../core/formats.ts';

/** 12 characters: milliseconds in base 36 and 4 random hex digits (metric names keep their salt within 30). */
const newRunId = () => `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;

/** What every test runs with: the system under test (where, its key, its manifest) and the run's options. */
export interface SuiteConfig {
  baseUrl: string;
  apiKey: string;
  manifest: Manifest;
  strict: boolean;
  /** Only reads and dryRun writes may reach the target (--read-only, for production): see `t.call`. */
  readOnly: boolean;
  /** Which wrong keys the auth tests send (--auth-probes; core/config.ts). */
  authProbes: AuthProbes;
  requestTimeoutMs: number;
  /** Pages one walk of a list may ask (CONSOLE_LIST_BUDGET): support/paging.ts. */
  listBudget: number;
  /** The seed of the list checks' draws across a list's depth (CONSOLE_LIST_SEED, in conformance.json). */
  listSeed: number;
  reportsDir: string;
  /** The run's deadline (epoch ms), when the wrapper set one: a rate limit is waited out only until then. */
  deadlineAt?: number;
  /** Rules each manifest gate held when the run began (core/config.ts, gateRulesAtStart). */
  gateRulesAtStart: Record<string, number>;
}

export interface Uncovered {
  clause: string;
  reason: string;
  /** resource (the user can fix it: say how in `reason`) or unverifiable (the target's answers give nothing to judge); core/formats.ts. */
  kind: Extract<UncheckedKind, 'resource' | 'unverifiable'>;
}
/**
 * A test that checked nothing because of the network (annotation 'inconclusive'): `reason` is one
 * line; `exchange` the one that failed; `stopped` when the run had stopped before the test got its answer.
 */
export interface Inconclusive {
  reason: string;
  exchange?: Exchange;
  stopped?: boolean;
}

export interface T extends SuiteConfig {
  /**
   * Unique per test (and per repetition of a test): created metric names carry it, so neither runs
   * nor two tests of one worker (`--workers 1`, `--repeat-each`) ever create the same metric twice.
   */
  runId: string;
  /** A call with the right key. */
  call(method: string, path: string, opts?: EvidenceCallOptions): Promise<Reply>;
  /** A call with exactly the headers given (no key unless given). */
  raw(method: string, path: string, opts?: EvidenceCallOptions): Promise<Reply>;
  /**
   * Records what the target does where the spec says "not shown" (an open clause): never a failure.
   * `aspect` names which side of the clause this is (one clause may be seen from several tests); the
   * evidence is `reply`'s exchange, or else the last exchange of the test.
   */
  observe(clause: string, aspect: string, value: unknown, reply?: Reply): void;
  /**
   * The run could not check `clause`. `kind` says whose it is to fix (core/formats.ts, UncheckedKind):
   * 'resource' when the user can (the manifest's triggers are finished: the reason names the fix; a stated
   * clause left so makes the run INCOMPLETE), 'unverifiable' when the target's legal answers give nothing
   * to judge. Never a failure.
   */
  uncovered(clause: string, reason: string, kind: Uncovered['kind']): void;
  /**
   * The target refused the suite a resource it needs (a gate that is full): every clause of the test is
   * left unchecked for `reason`, the user's to fix, and the test ends here. Never a failure.
   */
  refused(reason: string): never;
  /**
   * In a read-only run, ends the test as excluded by design, as `call` does before a write: for a test
   * that judges what a write of another test answered (`what` names it). Elsewhere it does nothing.
   */
  needsWrite(what: string): void;
  /**
   * Runs `body` as the check of `clause` (a boxed test.step titled `clause <id>`, support/blame.ts): an
   * assertion that fails in it fails that clause (unless a check inside blames its own, as expectSuccess
   * does for a field's type), and the test's other clauses are passed (held before) or not reached.
   */
  clause<R>(clause: string | readonly string[], body: () => Promise<R>): Promise<R>;
}

export const test = base.extend<{ t: T }, { suiteConfig: SuiteConfig }>({
  suiteConfig: [
    async ({}, use) => {
      const c = loadConfig();
      if (!c.baseUrl || !c.apiKey) throw new Error('no target: run through `npm run conformance`, which starts the reference server or reads CONSOLE_BASE_URL');
      await use({
        baseUrl: c.baseUrl,
        apiKey: c.apiKey,
        manifest: c.manifest,
        strict: c.strict,
        readOnly: c.readOnly,
        authProbes: c.authProbes,
        requestTimeoutMs: c.requestTimeoutMs,
        listBudget: c.listBudget,
        listSeed: c.listSeed,
        reportsDir: c.reportsDir,
        deadlineAt: c.deadlineAt,
        gateRulesAtStart: c.gateRulesAtStart,
      });
    },
    { scope: 'worker' },
  ],
  t: async ({ suiteConfig }, use, info) => {
    let last: Exchange | undefined;
    // A transport failure ends the test as skipped with an 'inconclusive' annotation (the reporter
    // lists it apart): no stack, and no verdict on clauses the test never got to check.
    const inconclusive = (note: Inconclusive): never => {
      info.annotations.push({ type: 'inconclusive', description: JSON.stringify(note) });
      info.skip(true, note.stopped ? `not run: ${note.reason}` : `inconclusive: transport: ${note.reason}`);
      throw new Error('unreachable: testInfo.skip throws');
    };
    const record = async (p: Promise<Reply>) => {
      try {
        const r = await p;
        last = r.exchange;
        return r;
      } catch (err) {
        if (err instanceof TransportError) {
          last = err.exchange as Exchange | undefined;
          return inconclusive({ reason: err.reason, exchange: last });
        }
        if (err instanceof RunStopped) return inconclusive({ reason: err.reason, stopped: true });
        throw err;
      }
    };
    const stopped = stopReason(suiteConfig.reportsDir);
    if (stopped) inconclusive({ reason: stopped, stopped: true });
    // A test whose every clause the user waived does not run: it would only spend the target's resources.
    const clauses = info.annotations.filter((a) => a.type === 'clause').map((a) => a.description ?? '');
    const waivers = clauses.map((c) => waiverOf(suiteConfig.manifest.waive, c));
    if (clauses.length > 0 && waivers.every(Boolean)) {
      info.annotations.push({ type: 'waived', description: waivers[0]!.reason });
      info.skip(true, `waived: ${waivers[0]!.reason}`);
    }
    // In a read-only run nothing that could change the target is sent: a write that is not a dry run
    // ends the test before it goes out, and its clauses are excluded by design (not a reason for INCOMPLETE).
    const needsWrite = (what: string) => {
      if (!suiteConfig.readOnly) return;
      info.annotations.push({ type: 'excluded', description: `read-only run: the check needs a write (${what})` });
      info.skip(true, `read-only run: needs a write (${what})`);
    };
    const guard = (method: string, path: string, opts: EvidenceCallOptions) => {
      if (method.toUpperCase() === 'GET' || (opts.data as { dryRun?: unknown } | undefined)?.dryRun === true) return;
      needsWrite(`${method} ${path.split('?')[0]}`);
    };
    await use({
      ...suiteConfig,
      runId: newRunId(),
      call: (method, path, opts = {}) => {
        guard(method, path, opts);
        return record(call(info, suiteConfig, method, path, { ...opts, headers: { [KEY_HEADER]: suiteConfig.apiKey, ...(opts.headers ?? {}) } }));
      },
      raw: (method, path, opts = {}) => {
        guard(method, path, opts);
        return record(call(info, suiteConfig, method, path, opts));
      },
      observe: (clause, aspect, value, reply) => {
        const e = reply?.exchange ?? last;
        const o: Observation = { clause, aspect, value, evidence: e && { method: e.method, path: e.path, status: e.status, curl: e.curl } };
        info.annotations.push({ type: 'observation', description: JSON.stringify(o) });
      },
      uncovered: (clause, reason, kind) => {
        info.annotations.push({ type: 'uncovered', description: JSON.stringify({ clause, reason, kind } satisfies Uncovered) });
      },
      refused: (reason) => {
        info.annotations.push({ type: 'refused', description: reason });
        info.skip(true, `resource refused: ${reason}`);
        throw new Error('unreachable: testInfo.skip throws');
      },
      needsWrite,
      clause: clauseStep,
    });
    flushBlame(info, clauses);
  },
});

export { expect } from '@playwright/test';

/** Test details naming the level and the clauses a test checks (style guide: a report groups by them). */
export function checks(level: Level, ...clauses: string[]) {
  return { tag: [`@${level}`], annotation: clauses.map((id) => ({ type: 'clause', description: id })) };
}
