// npm run selftest:revisions -- [--only NAME] [--keep]: each revision of contracts/model/revisions.ts
// applied to a clone of this repository's HEAD and followed by `contracts:build` alone, with no hand
// edit. Then, per revision: spec:diff names the clause it moves; the suite (from the clone) fails a
// reference server that keeps the old revision (started from this tree) on that clause, exit 1; and
// the clone's own reference server, which reads the revised contract, passes, exit 0 (a new operation:
// INCOMPLETE, exit 3, naming its clauses until a test checks them). Prints a line per revision and a table.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { fail, parseCommand, runCommand } from '../core/command.ts';
import { ROOT } from '../core/config.ts';
import { readConformance } from '../core/formats.ts';
import { randomApiKey, startReference } from '../core/reference.ts';
import { OVERLAY_PATH, SPEC_PATH } from './build.ts';
import { type Overlay, readContractModel } from './model/contract-model.ts';
import { REVISIONS, type Revision } from './model/revisions.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

const NAME = 'selftest:revisions';
const HELP = `usage: npm run selftest:revisions -- [--only NAME] [--keep]

Applies each revision of contracts/model/revisions.ts (${REVISIONS.map((r) => r.name).join(', ')})
to a clone of HEAD, runs contracts:build there alone, and checks that spec:diff names the clause the
revision moves, that the suite fails a reference server keeping the old revision on it (exit 1), and
that the reference server of the clone, driven by the revised contract, passes (exit 0; a new
operation: exit 3 naming its uncovered clauses). The suite runs only the tests of the revised
resource (--grep), about 40 s a revision.

  --only NAME   one revision (repeatable)
  --keep        keep the clones (their paths are printed)
  --help        this text

Exit 0 every revision followed, 1 one did not, 3 a bad option or the clone cannot be made.`;

interface Outcome {
  revision: string;
  build: boolean;
  diffNames: boolean;
  oldServer: string;
  newServer: string;
  ok: boolean;
  seconds: number;
}

/** The tests that check a revision's clause: those of its resource. */
function grepOf(r: Revision): string {
  const id = r.moves ?? r.adds ?? '';
  if (id.startsWith('metrics.')) return 'metrics:';
  if (id.startsWith('overrides.')) return 'overrides:';
  if (id.startsWith('gate')) return 'gates:';
  return 'experiments:';
}

function conformance(
  clone: string,
  env: Record<string, string>,
  reports: string,
  grep: string,
): { status: number; clauses: { id: string; level: string; status: string }[] } {
  const run = spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(clone, 'contracts/conformance.ts'), '--grep', grep], {
    cwd: clone,
    env: { ...process.env, ...env, CONSOLE_REPORTS_DIR: reports },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // No report: the status says why.
  return { status: run.status ?? 3, clauses: readConformance(reports)?.clauses ?? [] };
}

async function check(r: Revision, keep: boolean): Promise<Outcome> {
  const t0 = Date.now();
  const clone = mkdtempSync(join(tmpdir(), `cc-revision-${r.name}-`));
  const out: Outcome = { revision: r.name, build: false, diffNames: false, oldServer: '-', newServer: '-', ok: false, seconds: 0 };
  try {
    execFileSync('git', ['clone', '-q', '--shared', ROOT, clone]);
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    const spec = readFileSync(SPEC_PATH, 'utf8');
    const model = readContractModel(spec, parse(readFileSync(OVERLAY_PATH, 'utf8')) as Overlay);
    const revisedPath = join(clone, 'contracts/spec/console-v1.md');
    writeFileSync(revisedPath, r.apply(spec, model));
    const build = spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(clone, 'contracts/build.ts')], { cwd: clone, encoding: 'utf8' });
    out.build = build.status === 0;
    const diff = spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(clone, 'contracts/spec-diff.ts'), SPEC_PATH, revisedPath, '--json'], {
      cwd: clone,
      encoding: 'utf8',
    });
    const named = diff.status === 0 ? (JSON.parse(diff.stdout) as { clauses: { id: string }[] }).clauses.map((c) => c.id) : [];
    out.diffNames = r.moves ? named.includes(r.moves) : named.some((id) => id.startsWith(r.adds ?? '\0'));
    if (!out.build) {
      out.oldServer = `build failed: ${(build.stderr || build.stdout).trim().split('\n')[0]}`;
      return out;
    }
    const grep = grepOf(r);
    // The old revision: a reference server of this tree, whose contract is the unrevised one.
    const apiKey = randomApiKey();
    const old = await startReference({ apiKey, stderr: 'ignore' });
    try {
      const against = conformance(clone, { CONSOLE_BASE_URL: old.baseUrl, CONSOLE_API_KEY: apiKey }, join(clone, 'reports-old'), grep);
      const failed = against.clauses.filter((c) => c.status === 'fail').map((c) => c.id);
      // The clause the old server must fail: the one the revision moves, or the one it adds where the suite's generic checks read it.
      const judged = r.moves ?? (r.checked ? r.adds : undefined);
      out.oldServer = `exit ${against.status}${judged ? `, ${judged} ${against.clauses.find((c) => c.id === judged)?.status ?? 'absent'}` : ''}${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`;
      const oldOk = judged ? against.status === 1 && failed.includes(judged) : against.status === 3;
      // The revised contract's own reference server: the clone starts it when no target is set.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_'))) as Record<string, string>;
      const own = conformance(clone, { ...env, CONSOLE_BASE_URL: '', CONSOLE_API_KEY: '' }, join(clone, 'reports-new'), grep);
      const uncovered = own.clauses.filter((c) => c.status === 'uncovered' && c.level === 'stated').map((c) => c.id);
      out.newServer = `exit ${own.status}${uncovered.length ? ` (uncovered: ${uncovered.join(', ')})` : ''}`;
      const newOk = judged ? own.status === 0 : own.status === 3 && uncovered.some((id) => id.startsWith(r.adds ?? '\0'));
      out.ok = out.build && out.diffNames && oldOk && newOk;
    } finally {
      await old.stop();
    }
    return out;
  } finally {
    out.seconds = (Date.now() - t0) / 1000;
    if (keep) console.log(`  kept ${clone}`);
    else rmSync(clone, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const { values } = parseCommand({ name: NAME, help: HELP, options: { only: { type: 'string', multiple: true }, keep: { type: 'boolean' } } });
  const only = values.only ?? [];
  const unknown = only.filter((n) => !REVISIONS.some((r) => r.name === n));
  if (unknown.length > 0) fail(NAME, `no revision named ${unknown.join(', ')} (see --help)`);
  const chosen = REVISIONS.filter((r) => only.length === 0 || only.includes(r.name));
  const outcomes: Outcome[] = [];
  for (const [i, r] of chosen.entries()) {
    console.log(`${NAME}: [${i + 1}/${chosen.length}] ${r.name} (${r.kind})`);
    const o = await check(r, values.keep ?? false);
    outcomes.push(o);
    console.log(
      `  ${o.ok ? 'followed' : 'NOT FOLLOWED'}: build ${o.build ? 'ok' : 'failed'}; spec:diff ${o.diffNames ? 'names it' : 'does not name it'}; old server ${o.oldServer}; revised reference ${o.newServer} (${o.seconds.toFixed(1)} s)`,
    );
  }
  const followed = outcomes.filter((o) => o.ok).length;
  console.log(`\n${NAME}: ${followed} of ${outcomes.length} revisions followed with contracts:build alone`);
  return followed === outcomes.length ? 0 : 1;
}

runCommand(NAME, main);
