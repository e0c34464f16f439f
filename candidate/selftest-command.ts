// npm run candidate:selftest: the same build, every legal variant and a sample of faults as candidate
// against the reference as current (candidate/selftest.ts); prints each case and the counts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { integerOption, parseCommand, runCommand } from '../core/command.ts';
import { type CandidateOptions, loadRead, readSide, prepareSide } from './run.ts';
import { type Case, checkedWhole, faultsInScope, listSwitches, runCases, sampleFaults, variantCases } from './selftest.ts';

const HELP = `usage: npm run candidate:selftest -- [--faults N] [--only NAME,...] [--kind variant|fault] [--writes] [--lanes N]

The reference server on both sides of \`npm run candidate\`: the same build twice must report 0 changes
and 0 regressions; each legal variant as candidate, changed behaviour and exit 0; each fault of a sample
as candidate, a regression naming its clause and exit 1. The faults are sampled, every k-th by name,
among those of stated clauses a read of the clean reference checks whole (passed, no test naming them
left out: in a read-only run a test that needs a write is, and the fault it would meet goes unseen by
the suite alone as well).
  --faults N     faults in the sample (default 30)
  --only NAME,.. only these variants and faults (and the same build); a variant with a parameter as
                 the server takes it (rules-cap:3: a cap the run's few rules reach, where the default 50 is not)
  --writes       the suite's writes reach both sides (default read-only, as the command)
  --kind variant|fault
                 only the variants, or only the faults (with the same build): two commands side by side
  --lanes N      cases at a time (default 1: each case is itself a suite run on 2 workers)
exit codes: 0 every case as expected, 1 otherwise, 3 could not run`;

async function main(): Promise<number> {
  const { values } = parseCommand({
    name: 'candidate:selftest',
    help: HELP,
    options: { faults: { type: 'string' }, only: { type: 'string' }, writes: { type: 'boolean' }, lanes: { type: 'string' }, kind: { type: 'string' } },
  });
  if (values.kind !== undefined && values.kind !== 'variant' && values.kind !== 'fault')
    throw new Error(`--kind must be variant or fault, got ${JSON.stringify(values.kind)}`);
  const n = integerOption('candidate:selftest', '--faults', values.faults, { min: 0, fallback: 30 });
  const lanes = integerOption('candidate:selftest', '--lanes', values.lanes, { min: 1, max: 4, fallback: 1 });
  const only = values.only ? new Set(values.only.split(',').filter(Boolean)) : undefined;
  const started = Date.now();
  const { variants } = listSwitches();
  // The faults generated from the contract too (reference/layers/generated.ts): most mechanical clauses
  // are read-only's to check. One that shows only beside a variant (`alongside`) is left out.
  const faults = listSwitches(true).faults.filter((f) => !f.alongside?.length);
  // The clauses a read of the clean reference checks, from one read of it.
  const dir = mkdtempSync(join(tmpdir(), 'cc-candidate-scope-'));
  const o: CandidateOptions = { current: {}, candidate: {}, writes: values.writes ?? false, strict: false, freezeOpen: false, reads: 1 };
  const t = await prepareSide('current', {}, undefined);
  let checked: Set<string>;
  try {
    const r = await readSide(t, 1, o, dir);
    checked = checkedWhole(loadRead(r.reports));
  } finally {
    await t.server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const inScope = faultsInScope(faults, checked);
  const chosen = only ? inScope.filter((f) => only.has(f.name)) : sampleFaults(inScope, n);
  const cases: Case[] = [
    { kind: 'same build', name: 'reference' },
    ...(values.kind === 'fault' ? [] : variantCases(variants, only)),
    ...(values.kind === 'variant' ? [] : chosen.map((f) => ({ kind: 'fault' as const, name: f.name, clause: f.clause }))),
  ];
  console.log(
    `candidate:selftest: ${cases.length} cases (${cases.filter((c) => c.kind === 'variant').length} variants, ${chosen.length} faults of the ${inScope.length} in scope ${values.writes ? 'with writes' : 'read-only'}), ${lanes} at a time`,
  );
  const results = await runCases(cases, { writes: values.writes ?? false, reads: 1, lanes });
  const count = (k: Case['kind']) => {
    const of = results.filter((r) => r.kind === k);
    return `${of.filter((r) => r.ok).length} of ${of.length}`;
  };
  console.log(
    `\ncandidate:selftest: same build ${count('same build')}, variants reporting changed behaviour with exit 0 ${count('variant')}, faults reporting a regression of their clause with exit 1 ${count('fault')} (${Math.round((Date.now() - started) / 1000)} s)`,
  );
  for (const r of results.filter((x) => !x.ok)) console.log(`  not as expected: ${r.kind} ${r.name}: ${r.line}`);
  return results.every((r) => r.ok) ? 0 : 1;
}

runCommand('candidate:selftest', main);
