// npm run bench:nights -- --nights N: a year of nights in minutes. One reference server on a database
// file, as a long-lived staging is, and `npm run verify` against it N times in a row with one history,
// as a nightly job runs it. Per night: the exit code, the verdict, the stated clauses checked, and what
// the night left on the target (phases skipped, rules added to the fullest gate, metrics created), from
// the night's reports and from the server's own tables.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { integerOption, parseCommand, runCommand } from '../../core/command.ts';
import { ConfigError, ROOT, targetSetInEnv } from '../../core/config.ts';
import { readConformance, readLedgerFile } from '../../core/formats.ts';
import { randomApiKey, startReference } from '../../core/reference.ts';
import Database from '../../core/sqlite.ts';

const NAME = 'bench:nights';
const HELP = `usage: npm run bench:nights -- [--nights N] [--variant NAME] [--skip-load] [--read-only] [--keep DIR]

Starts one reference server on a database file and runs npm run verify against it N nights in a row
(one reports folder and one run history, as a nightly job has), then prints per night: exit code,
verdict, stated clauses checked, trigger phases skipped, rules added to the gate that got most,
metrics created, and the totals the server's tables hold. docs/nightly.md has the figures.

  --nights N       how many nights (default 25)
  --variant NAME   a legal variant of the reference server (npm run serve -- --list-faults), e.g. rules-cap
  --skip-load      verify --skip-load each night (the conformance suite alone)
  --read-only      verify --read-only each night
  --keep DIR       keep the reports folder (with its history) and the database in DIR
  --help           this text

Environment: none read; CONSOLE_BASE_URL must be unset (the bench starts its own server).
Exit 0 when every night ran (whatever its verdict: the table is the result), 3 when the bench could not run.`;

const { values } = parseCommand({
  name: NAME,
  help: HELP,
  options: {
    nights: { type: 'string' },
    variant: { type: 'string', multiple: true },
    'skip-load': { type: 'boolean' },
    'read-only': { type: 'boolean' },
    keep: { type: 'string' },
  },
});

interface Night {
  night: number;
  exit: number;
  verdict: string;
  checked: string;
  /** Stated clauses unchecked for a reason the user can fix. */
  uncovered: number;
  skipped: number;
  rules: number;
  metrics: number;
  seconds: number;
  note: string;
}

/** What the server's tables hold: rules of each manifest gate, metrics, phases skipped in all. */
function tables(db: string): { rules: Record<string, number>; metrics: number; skipped: number } {
  const d = new Database(db, { readonly: true });
  try {
    const rules: Record<string, number> = {};
    for (const r of d.prepare("SELECT id, doc FROM gates WHERE id LIKE 'gate_cc_%'").all() as { id: string; doc: string }[])
      rules[r.id] = JSON.parse(r.doc).rules.length;
    const metrics = (d.prepare('SELECT count(*) AS n FROM metrics').get() as { n: number }).n;
    let skipped = 0;
    for (const r of d.prepare('SELECT doc FROM triggers').all() as { doc: string }[])
      skipped += (JSON.parse(r.doc).actions as { type: string }[]).filter((a) => a.type === 'SKIPPED').length;
    return { rules, metrics, skipped };
  } finally {
    d.close();
  }
}

function verify(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; tail: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'scripts/verify.ts'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b) => {
    out = (out + b).slice(-20_000);
  });
  child.stderr.on('data', (b) => {
    out = (out + b).slice(-20_000);
  });
  return new Promise((done) => child.on('close', (code) => done({ code: code ?? 3, tail: out })));
}

runCommand(NAME, async () => {
  if (targetSetInEnv()) throw new ConfigError('CONSOLE_BASE_URL is set: the bench starts its own reference server (unset it)');
  const nights = integerOption(NAME, '--nights', values.nights, { min: 1, max: 400, fallback: 25 });
  const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'cc-nights-'));
  mkdirSync(dir, { recursive: true });
  const db = join(dir, 'staging.sqlite');
  const apiKey = randomApiKey();
  const server = await startReference({ apiKey, db, variants: values.variant });
  const env: NodeJS.ProcessEnv = { ...process.env, CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: apiKey, CONSOLE_REPORTS_DIR: join(dir, 'reports') };
  const args = [...(values['skip-load'] ? ['--skip-load'] : []), ...(values['read-only'] ? ['--read-only'] : [])];
  const rows: Night[] = [];
  const head = `${'night'.padStart(5)} ${'exit'.padStart(4)} ${'verdict'.padEnd(11)} ${'stated'.padStart(9)} ${'phases'.padStart(6)} ${'rules'.padStart(5)} ${'metrics'.padStart(7)} ${'secs'.padStart(5)}  note`;
  console.log(
    `${NAME}: ${nights} nights of npm run verify ${args.join(' ')} against one reference server on ${db}${values.variant ? ` (variant ${values.variant.join(', ')})` : ''}`,
  );
  console.log(head);
  let before = tables(db);
  try {
    for (let night = 1; night <= nights; night++) {
      const t0 = Date.now();
      const { code, tail } = await verify(env, args);
      const after = tables(db);
      const conf = readConformance(join(dir, 'reports'))?.summary;
      const ledger = readLedgerFile(join(dir, 'reports'));
      const rulesAdded = Math.max(0, ...Object.keys(after.rules).map((g) => after.rules[g] - (before.rules[g] ?? 0)));
      const warning = /WARNING the manifest[^\n]*/.exec(tail)?.[0].replace(/^WARNING /, '') ?? '';
      const row: Night = {
        night,
        exit: code,
        verdict: conf?.verdict.toUpperCase() ?? /verdict\s+(\S+)/.exec(tail)?.[1] ?? '?',
        checked: conf?.coverage ? `${conf.coverage.checked}/${conf.coverage.total}` : '-',
        uncovered: conf?.coverage?.uncovered ?? 0,
        skipped: after.skipped - before.skipped,
        rules: rulesAdded,
        metrics: after.metrics - before.metrics,
        seconds: (Date.now() - t0) / 1000,
        note: [
          (conf?.incomplete ?? []).map((g) => g.reason).join('; '),
          warning,
          ledger && ledger.totals.notRestored ? `${ledger.totals.notRestored} writes not restored` : '',
        ]
          .filter(Boolean)
          .join(' | '),
      };
      rows.push(row);
      before = after;
      console.log(
        `${String(night).padStart(5)} ${String(code).padStart(4)} ${row.verdict.padEnd(11)} ${row.checked.padStart(9)} ${String(row.skipped).padStart(6)} ${String(row.rules).padStart(5)} ${String(row.metrics).padStart(7)} ${row.seconds.toFixed(0).padStart(5)}  ${row.note.slice(0, 160)}`,
      );
    }
  } finally {
    await server.stop();
  }
  const final = tables(db);
  const full = rows.filter((r) => r.exit === 0 && r.uncovered === 0).length;
  const firstIncomplete = rows.find((r) => r.verdict === 'INCOMPLETE')?.night ?? null;
  const greenUnchecked = rows.filter((r) => r.exit === 0 && r.uncovered > 0).length;
  console.log(
    `${NAME}: ${full} of ${nights} nights exit 0 with every stated clause checked; first INCOMPLETE night: ${firstIncomplete ?? 'none'}; nights exit 0 with a stated clause unchecked: ${greenUnchecked}; ` +
      `the server holds ${final.metrics} metrics and ${Object.entries(final.rules)
        .map(([g, n]) => `${g} ${n} rules`)
        .join(', ')}; max a night: ${Math.max(...rows.map((r) => r.rules))} rules to one gate, ${Math.max(...rows.map((r) => r.metrics))} metrics`,
  );
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  return 0;
});
