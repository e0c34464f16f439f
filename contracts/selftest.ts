// npm run conformance:selftest: proof that the suite catches faults and never fails a legal server.
// The reference server is started with each injected fault (the suite must fail, exit 1 under
// --strict) and each legal "not shown" variation (the suite must pass, exit 0 under --strict).
// The names come from the server's own list (`serve --list-faults`), never from its code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../scripts/lib/config.ts';
import { startReference } from '../scripts/lib/reference-process.ts';

interface Switch { name: string; description: string; clause: string }

const HELP = `usage: npm run conformance:selftest -- [--only NAME[,NAME]]

Runs the conformance suite (--strict) against the reference server with each fault (must fail) and
each legal variant (must pass), and against the clean server (must pass). Prints both counts.`;

// The suite files that exercise each fault; variants run the whole suite (they must pass all of it).
const FILES: [RegExp, string[]][] = [
  [/^auth-/, ['auth']],
  [/add-rules|gate-updated|disable-|rules-/, ['gates']],
  [/experiments|filter-|created-time|envelope-data/, ['experiments']],
  [/pipelines/, ['pipelines']],
  [/page-overlap|limit-ignored|pagination-missing/, ['experiments', 'pipelines']],
  [/metric|directionality/, ['metrics']],
  [/overrides/, ['overrides']],
  [/phaseid|trigger-/, ['triggers']],
  [/validation-500/, ['negative', 'metrics']],
];

function filesFor(fault: string): string[] {
  const match = FILES.find(([re]) => re.test(fault));
  if (!match) throw new Error(`selftest: no suite files declared for fault ${fault}`);
  return match[1].map((f) => `contracts/conformance/${f}.spec.ts`);
}

function listSwitches(): { faults: Switch[]; variants: Switch[] } {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'reference/cli.ts'), '--list-faults'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`serve --list-faults failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function runSuite(opts: { faults?: string[]; variants?: string[]; files?: string[] }): Promise<{ code: number | null; failed: string[] }> {
  const server = await startReference({ faults: opts.faults, variants: opts.variants, stderr: 'ignore' });
  const reports = mkdtempSync(join(tmpdir(), 'cc-selftest-'));
  try {
    const env = { ...process.env, CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey, CONSOLE_REPORTS_DIR: reports };
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'scripts/conformance.ts'), '--strict', ...(opts.files ?? [])], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    let failed: string[] = [];
    try {
      failed = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')).failures.map((f: { test: string }) => f.test);
    } catch {
      failed = [`no report: ${r.stderr?.split('\n')[0]}`];
    }
    return { code: r.status, failed };
  } finally {
    rmSync(reports, { recursive: true, force: true });
    await server.stop();
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    console.log(HELP);
    return 0;
  }
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((args[onlyAt + 1] ?? '').split(',')) : undefined;
  const { faults, variants } = listSwitches();
  const started = Date.now();
  let caught = 0;
  let accepted = 0;
  const problems: string[] = [];

  if (!only) {
    const clean = await runSuite({});
    console.log(`${clean.code === 0 ? 'ok  ' : 'BAD '} clean server: suite ${clean.code === 0 ? 'passes' : `fails (${clean.failed.join('; ')})`}`);
    if (clean.code !== 0) problems.push('the suite fails the clean reference server');
  }
  for (const f of faults.filter((x) => !only || only.has(x.name))) {
    const r = await runSuite({ faults: [f.name], files: filesFor(f.name) });
    const ok = r.code === 1;
    if (ok) caught++;
    else problems.push(`fault ${f.name} not caught (exit ${r.code})`);
    console.log(`${ok ? 'ok  ' : 'BAD '} fault   ${f.name.padEnd(34)} ${ok ? `caught by: ${r.failed[0]}` : `NOT caught (exit ${r.code})`}`);
  }
  for (const v of variants.filter((x) => !only || only.has(x.name))) {
    const r = await runSuite({ variants: [v.name] });
    const ok = r.code === 0;
    if (ok) accepted++;
    else problems.push(`variant ${v.name} failed: ${r.failed.join('; ')}`);
    console.log(`${ok ? 'ok  ' : 'BAD '} variant ${v.name.padEnd(34)} ${ok ? 'passes' : `FAILS: ${r.failed.join('; ')}`}`);
  }
  const nf = faults.filter((x) => !only || only.has(x.name)).length;
  const nv = variants.filter((x) => !only || only.has(x.name)).length;
  console.log(`\nselftest: ${caught} of ${nf} faults caught, ${accepted} of ${nv} legal variants passed (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  for (const p of problems) console.log(`  ${p}`);
  return problems.length === 0 ? 0 : 1;
}

main().then((c) => process.exit(c), (err) => {
  console.error(`selftest: ${(err as Error).message}`);
  process.exit(3);
});
