// What the cut tests share (cuts.test.ts in npm test, cuts.ts for the wide sweep): a reference server on a
// database file with owners' state set beforehand (a manifest gate switched from its seeded state, the
// overrides of an experiment the manifest does not give to the suite), a command run in a process group of
// its own and cut as CI cancels a job (SIGINT to the group, SIGTERM later, SIGKILL after that), and the
// owners' state read from the database file, not through the suite's code, so that the judge is independent.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, loadManifest } from '../../core/config.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';
import type { Ledger } from '../../core/formats.ts';
import { readLedger } from '../../core/ledger.ts';
import Database from '../../reference/store/sqlite.ts';
import { callServer, startServer, type Server } from './server.ts';

/** An experiment of the seed that the manifest names without giving its overrides to the suite: its owner's. */
export const OWNER_EXPERIMENT = 'exp_000007';

/** The reference server a cut run writes to, its database file and the owners' state set before any run. */
export interface CutReference {
  dir: string;
  db: string;
  server: Server;
  manifestPath: string;
  reportsDir: string;
  gates: string[];
  /** The owners' state set before any run: what every run, cut or not, must leave. */
  before: Owners;
  close(): Promise<void>;
}

export interface Owners {
  gates: Record<string, boolean | null>;
  /** The owner's experiment's overrides as stored (JSON text), null when none. */
  overrides: string | null;
}

/** A reference server on a database file, with owners' state that differs from the seed's. */
export async function startCutReference(prefix = 'cc-cuts-'): Promise<CutReference> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = join(dir, 'target.db');
  const server = await startServer({ db });
  const manifest = JSON.parse(readFileSync(join(ROOT, 'fixtures/targets/reference.json'), 'utf8'));
  manifest.experiments.push(OWNER_EXPERIMENT);
  const manifestPath = join(dir, 'manifest.json');
  writeFileSync(manifestPath, JSON.stringify(manifest));
  const gates = loadManifest(manifestPath).gates;
  // The owners' choices: the first gate switched from its seeded state, overrides on an experiment of theirs.
  const first = readOwners(db, gates).gates[gates[0]];
  await must(callServer(server, 'PUT', `/console/v1/gates/${gates[0]}/${first ? 'disable' : 'enable'}`));
  await must(
    callServer(server, 'PATCH', `/console/v1/experiments/${OWNER_EXPERIMENT}/overrides`, {
      overrides: [{ type: 'gate', id: 'gate_owner_rule', groupID: 'control' }],
      userIDOverrides: [{ groupID: 'test', ids: ['owner_user_1'] }],
    }),
  );
  const reportsDir = join(dir, 'reports');
  mkdirSync(reportsDir, { recursive: true });
  return {
    dir,
    db,
    server,
    manifestPath,
    reportsDir,
    gates,
    before: readOwners(db, gates),
    close: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function must(p: Promise<{ status: number; body: unknown }>): Promise<void> {
  const r = await p;
  if (r.status < 200 || r.status >= 300) throw new Error(`setting the owners' state: HTTP ${r.status} ${JSON.stringify(r.body)}`);
}

/** The owners' state as the database file holds it (read beside the running server: SQLite WAL readers do not block it). */
export function readOwners(db: string, gates: string[]): Owners {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const out: Owners = { gates: {}, overrides: null };
    for (const id of gates) {
      const row = d.prepare('SELECT doc FROM gates WHERE id = ?').get(id) as { doc: string } | undefined;
      out.gates[id] = row ? (JSON.parse(row.doc).isEnabled ?? null) : null;
    }
    const o = d.prepare('SELECT doc FROM overrides WHERE experiment_id = ?').get(OWNER_EXPERIMENT) as { doc: string } | undefined;
    out.overrides = o ? o.doc : null;
    return out;
  } finally {
    d.close();
  }
}

/** What differs between two owners' states, one phrase each; empty when nothing does. */
export function changed(before: Owners, after: Owners): string[] {
  const out: string[] = [];
  for (const [id, was] of Object.entries(before.gates)) if (after.gates[id] !== was) out.push(`gate ${id} isEnabled ${was} -> ${after.gates[id]}`);
  if (after.overrides !== before.overrides) out.push(`experiment ${OWNER_EXPERIMENT} overrides changed`);
  return out;
}

/** A moment of a run, told from its reports folder and its output so far. */
export type Moment = (reportsDir: string, stdout: string) => boolean;

const ledgerOf = (dir: string): Ledger | undefined => readLedger(dir);

/** The moments the cuts are placed after: the run's ledger started (its snapshot under way), the gates owed (the suite's writes begin), the suite's part written (its restore next). */
export const MOMENTS = {
  ledgerStarted: ((dir) => ledgerOf(dir) !== undefined) as Moment,
  owed: ((dir) => Boolean(ledgerOf(dir)?.owed?.length)) as Moment,
  suiteEnded: ((dir) => Boolean(ledgerOf(dir)?.parts.some((p) => p.by === 'conformance'))) as Moment,
};

/** How a run is cut: the signals sent to its process group and when, from the moment of the cut. */
export type CutPlan = 'ci-sigint' | 'ci-sigterm' | 'second-signal' | 'sigkill';

/** CI's cancellation: SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that. */
const SIGNALS: Record<CutPlan, [number, NodeJS.Signals][]> = {
  'ci-sigint': [
    [0, 'SIGINT'],
    [7500, 'SIGTERM'],
    [10_000, 'SIGKILL'],
  ],
  'ci-sigterm': [
    [0, 'SIGTERM'],
    [2500, 'SIGKILL'],
  ],
  // A person pressing Ctrl-C twice: the second arrives while the first one's restore runs.
  'second-signal': [
    [0, 'SIGINT'],
    [800, 'SIGINT'],
    [2100, 'SIGTERM'],
    [7500, 'SIGTERM'],
    [10_000, 'SIGKILL'],
  ],
  sigkill: [[0, 'SIGKILL']],
};

export interface CutResult {
  /** Exit code of the group's leader, or the signal that ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Signals actually sent (the group may have gone before the later ones). */
  sent: NodeJS.Signals[];
  /** When the group had gone, from the start (ms). */
  goneAfterMs: number;
  stderr: string;
  stdout: string;
}

export interface RunOptions {
  target: CutReference;
  /** Arguments after node (tsx's loader is added): a script and its options. */
  args: string[];
  /** Cut at this many ms after the start, or after `cutWhen` first holds; neither: not cut. */
  cutAtMs?: number;
  /** A moment of the run, looked for every 10 ms: the cut comes `cutAtMs` (default 0) after it. */
  cutWhen?: Moment;
  plan?: CutPlan;
  env?: NodeJS.ProcessEnv;
  /** The reports folder (default the target's): a cut placed by the ledger needs one no earlier run wrote in. */
  reportsDir?: string;
  /** The whole run's bound (ms): past it the group is killed and the run counts as hung. */
  boundMs?: number;
}

/** The environment that points a command of the suite at the cut target. */
export function targetEnv(t: CutReference): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CONSOLE_')) delete env[k];
  return {
    ...env,
    CONSOLE_BASE_URL: t.server.baseUrl,
    CONSOLE_API_KEY: t.server.apiKey,
    CONSOLE_TARGET_MANIFEST: t.manifestPath,
    CONSOLE_REPORTS_DIR: t.reportsDir,
  };
}

/** Runs a command of the suite in a process group of its own, cut as `plan` says; resolves once the whole group has gone. */
export function runCut(o: RunOptions): Promise<CutResult> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, ...o.args], {
    cwd: ROOT,
    env: { ...targetEnv(o.target), ...(o.reportsDir ? { CONSOLE_REPORTS_DIR: o.reportsDir } : {}), ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const pgid = child.pid!;
  const sent: NodeJS.Signals[] = [];
  const timers: NodeJS.Timeout[] = [];
  const signalGroup = (s: NodeJS.Signals) => {
    try {
      process.kill(-pgid, s);
      sent.push(s);
    } catch {
      // the group has gone
    }
  };
  const cut = () => {
    for (const [after, s] of SIGNALS[o.plan ?? 'ci-sigint']) timers.push(setTimeout(() => signalGroup(s), after));
  };
  if (o.cutWhen) {
    const when = o.cutWhen;
    const poll = setInterval(() => {
      if (!when(o.reportsDir ?? o.target.reportsDir, stdout)) return;
      clearInterval(poll);
      timers.push(setTimeout(cut, o.cutAtMs ?? 0));
    }, 10);
    timers.push(poll);
  } else if (o.cutAtMs !== undefined) timers.push(setTimeout(cut, o.cutAtMs));
  const bound = setTimeout(() => signalGroup('SIGKILL'), o.boundMs ?? 180_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (code, signal) => done({ code, signal })));
  return exited.then(async ({ code, signal }) => {
    // The leader's exit is not the group's: wait until no process of the group is left.
    while (groupAlive(pgid)) await new Promise((r) => setTimeout(r, 50));
    for (const x of timers) clearTimeout(x);
    clearTimeout(bound);
    return { code, signal, sent, goneAfterMs: Date.now() - t0, stdout, stderr };
  });
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A CPU-bound process beside the run (a busy machine), ended by `stop` or by its own bound. `niceness` 19
 * makes it take only what nothing else wants: a busy machine when it is otherwise idle, next to nothing
 * taken from the other tests when npm test already keeps both cores busy.
 */
export function cpuHog(boundMs = 600_000, niceness = 0): { stop(): void } {
  const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${boundMs}; while (Date.now() < end) {}`], { stdio: 'ignore' });
  if (niceness && child.pid) setPriority(child.pid, niceness);
  return { stop: () => child.kill('SIGKILL') };
}
