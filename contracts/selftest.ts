// npm run conformance:selftest: proof that the suite catches faults and never fails a legal server.
// The reference server is started with each injected fault (the suite must fail under --strict: a
// counting failure, not a crash) and each legal "not shown" variation (the suite must pass under
// --strict; a variant marked strict: 'warns' is legal but meets an inferred clause, so it must pass in
// default mode with at least one warning instead), and clean (must pass, twice in a row against the
// same server). Prints both counts.
// The names come from the server's own list (`serve --list-faults`), never from its code.
//
// Budget (npm test): at most 5 minutes on 2 cores. So each fault runs only the suite files declared
// for it (selftest-runs.ts, shared with the proof map), stopping at the first failure, with one Playwright worker, two runs at a time; each
// variant runs the whole suite (it must pass all of it). Playwright is run directly with the suite's
// own reporter (no HTML report), and the verdict is read from the conformance.json it writes, exactly
// as `npm run conformance` does (its exit codes are tested in scripts/exit-codes.test.ts).
import { parseCommand, runCommand } from '../core/command.ts';
import { LARGE_LISTS, VARIANT_GROUPS, WAITING_VARIANTS } from './selftest-groups.ts';
import { filesFor, optionsFor, variantOptions } from './selftest-files.ts';
import type { ListedVariant } from '../core/formats.ts';
import { listSwitches, pool, runSuite, stopHosts, withServer } from './selftest-runs.ts';
import { blameTable, type BlameRow } from './selftest-blame.ts';

const HELP = `usage: npm run conformance:selftest -- [--only NAME[,NAME]] [--lanes N] [--grouped] [--blame [--whole]] [--without-options]

Runs the conformance suite (strict) against the reference server with each fault (must fail) and
each legal variant (must pass; a variant marked 'warns' runs in default mode and must pass with at
least one warning), and against the clean server twice (must pass both times).
  --only NAME,...  only these faults or variants (and no clean runs)
  --lanes N        runs at a time (default 2, one per core); a variant whose run mostly waits
                   (selftest-groups.ts WAITING_VARIANTS: steady-429) runs beside them, in no lane
  --grouped        the variants that must pass under --strict run in the groups of VARIANT_GROUPS, each
                   group against one server with all of its variants at once (npm test: about half
                   the time); a group that fails is run again variant by variant, to name the one
  --blame          only the faults (of --only, else all), and after them a table of the clauses each
                   fault's run failed (status fail in its conformance.json), whether the fault's own
                   clause is among them, and the median and maximum per fault (npm run selftest:blame)
  --whole          with --blame: each fault against the whole suite, not stopping at the first failure
                   (one defect fails many tests: the blame of a whole run; about twice as long)
  --large-lists    only the runs against a list longer than the list budget (selftest-groups.ts
                   LARGE_LISTS: legal with and without a page cap, the list faults caught); they
                   run in every full self-test too
  --without-options
                   each fault runs without the suite options it is caught with (selftest-files.ts
                   optionsFor: the derived keys of --auth-probes derived), to show that those faults
                   are caught only with them (they are then reported NOT caught)
exit codes: 0 every fault caught and every variant passed, 1 otherwise, 3 could not run`;

async function main(): Promise<number> {
  const { values } = parseCommand({
    name: 'selftest',
    help: HELP,
    options: {
      only: { type: 'string' },
      lanes: { type: 'string' },
      grouped: { type: 'boolean' },
      blame: { type: 'boolean' },
      whole: { type: 'boolean' },
      'large-lists': { type: 'boolean' },
      'without-options': { type: 'boolean' },
    },
  });
  if (values.whole && !values.blame) throw new Error('--whole goes with --blame');
  const only = values.only !== undefined ? new Set(values.only.split(',').filter(Boolean)) : undefined;
  const lanes = values.lanes !== undefined ? Number(values.lanes) : 2;
  if (!Number.isInteger(lanes) || lanes < 1) throw new Error(`--lanes must be a positive integer, got ${values.lanes}`);
  const { faults: allFaults, variants: allVariants } = listSwitches();
  const largeOnly = values['large-lists'] === true;
  const faults = largeOnly ? [] : allFaults.filter((x) => !only || only.has(x.name));
  // --blame measures the faults alone: the variants and the clean runs fail no clause.
  const variants = values.blame || largeOnly ? [] : allVariants.filter((x) => !only || only.has(x.name));
  if (only) for (const n of only) if (![...allFaults, ...allVariants].some((x) => x.name === n)) throw new Error(`--only: no fault or variant named ${n}`);
  const started = Date.now();
  const problems: string[] = [];

  type Job = () => Promise<boolean>;
  const cleanJobs: Job[] = [];
  if (!only && !values.blame && !largeOnly) {
    // Twice against one server: the suite leaves the target able to pass it again (runs.repeatable).
    cleanJobs.push(() =>
      withServer({}, async (s) => {
        const first = await runSuite(s);
        const second = first.verdict === 'pass' ? await runSuite(s) : first;
        const ok = first.verdict === 'pass' && second.verdict === 'pass';
        console.log(
          `${ok ? 'ok  ' : 'BAD '} clean server      ${ok ? `passes twice in a row (${first.tests} tests)` : `FAILS: ${(first.verdict === 'pass' ? second : first).failed.join('; ')}`}`,
        );
        if (!ok) problems.push('the suite fails the clean reference server (or its second run)');
        return ok;
      }),
    );
  }
  // Lists longer than the list budget: legal with and without a page cap, and the list faults still caught.
  const largeJobs: Job[] = [];
  if (!only && !values.blame) {
    const at = `${LARGE_LISTS.scale} experiments`;
    for (const vs of LARGE_LISTS.variants)
      largeJobs.push(() =>
        withServer({ scale: LARGE_LISTS.scale, variants: vs }, async (s) => {
          const r = await runSuite(s, { files: ['contracts/conformance/experiments.spec.ts', 'contracts/conformance/pipelines.spec.ts'], strict: true });
          const ok = r.verdict === 'pass' && r.tests > 0;
          const label = `large list (${at}${vs.length ? `, ${vs.join(', ')}` : ''})`;
          console.log(`${ok ? 'ok  ' : 'BAD '} ${label.padEnd(42)} ${ok ? 'passes' : `FAILS: ${r.failed.join('; ')}`}`);
          if (!ok) problems.push(`${label}: the suite does not pass it (see above)`);
          return ok;
        }),
      );
    for (const f of LARGE_LISTS.faults)
      largeJobs.push(() =>
        withServer({ scale: LARGE_LISTS.scale, faults: [f] }, async (s) => {
          const r = await runSuite(s, { files: filesFor(allFaults.find((x) => x.name === f) ?? { clause: '' }), stopAtFirstFailure: true });
          const ok = r.verdict === 'fail' && r.failed.length > 0;
          console.log(`${ok ? 'ok  ' : 'BAD '} fault   ${`${f} at ${at}`.padEnd(34)} ${ok ? `caught by: ${r.failed[0]}` : `NOT caught (${r.verdict})`}`);
          if (!ok) problems.push(`fault ${f} at ${at} not caught`);
          return ok;
        }),
      );
  }
  // A 'warns' variant is legal but meets an inferred clause: it runs in default mode, where it must pass
  // and show the warning (a variant that stopped warning no longer exercises what it was made for).
  const runVariants = (vs: ListedVariant[]): Promise<boolean> =>
    withServer({ variants: vs.map((v) => v.name) }, async (s) => {
      const warns = vs.some((v) => v.strict === 'warns');
      const r = await runSuite(s, { strict: !warns, options: variantOptions(vs.map((v) => v.name)) });
      const passed = r.verdict === 'pass' && r.tests > 0;
      const ok = passed && (!warns || r.warned.length > 0);
      const shown = r.warned.length > 3 ? `${r.warned.slice(0, 3).join(', ')}, ...` : r.warned.join(', ');
      const verdict = !passed
        ? `FAILS${warns ? ' in default mode' : ''}: ${r.failed.join('; ')}`
        : !warns
          ? 'passes'
          : ok
            ? `passes in default mode with ${r.warned.length} inferred clause${r.warned.length === 1 ? '' : 's'} warning (${shown})`
            : 'passes in default mode but shows NO warning (expected one: see reference/faults.ts)';
      const label = vs.length === 1 ? vs[0].name : `group of ${vs.length}: ${vs.map((v) => v.name).join(', ')}`;
      console.log(`${ok ? 'ok  ' : 'BAD '} variant ${label.padEnd(34)} ${verdict}`);
      return ok;
    });
  // --grouped: the groups of VARIANT_GROUPS (of the variants chosen) first, every other variant alone.
  const grouped = values.grouped
    ? VARIANT_GROUPS.map((g) => variants.filter((v) => v.strict === 'pass' && g.includes(v.name))).filter((g) => g.length > 1)
    : [];
  const inGroup = new Set(grouped.flat().map((v) => v.name));
  const units: ListedVariant[][] = [...grouped, ...variants.filter((v) => !inGroup.has(v.name)).map((v) => [v])];
  let acceptedVariants = 0;
  const variantJobs: Job[] = units.map((unit) => async () => {
    if (await runVariants(unit)) {
      acceptedVariants += unit.length;
      return true;
    }
    // A group that fails: each of its variants alone, so that the report names the one the suite fails.
    let alone = 0;
    for (const v of unit) {
      const ok = unit.length === 1 ? false : await runVariants([v]);
      if (ok) alone++;
      else problems.push(`variant ${v.name} (${v.description}): the suite does not pass it (see above)`);
    }
    // Each passes alone, not together: a server with all of them is legal too, so that is a failure of its own.
    if (unit.length > 1 && alone === unit.length)
      problems.push(`variants ${unit.map((v) => v.name).join(', ')}: each passes alone, the suite fails them together`);
    return false;
  });
  const blame: BlameRow[] = [];
  const faultJobs: Job[] = faults.map(
    (f) => () =>
      withServer({ faults: [f.name], ...(f.scale ? { scale: f.scale } : {}) }, async (s) => {
        const files = values.whole ? [] : filesFor(f);
        const options = values['without-options'] ? {} : optionsFor(f.name);
        const r = await runSuite(s, { files, stopAtFirstFailure: !values.whole, options });
        const ok = r.verdict === 'fail' && r.failed.length > 0;
        const withStatus = (status: string) => r.clauses.filter((c) => c.status === status).map((c) => c.id);
        blame.push({ fault: f.name, clause: f.clause, caught: ok, failed: withStatus('fail'), unreached: withStatus('unreached') });
        const withOptions = Object.entries(options).map(([k, v]) => `${k}=${v}`);
        console.log(
          `${ok ? 'ok  ' : 'BAD '} fault   ${f.name.padEnd(34)} ${ok ? `caught by: ${r.failed[0]}` : `NOT caught (${r.verdict}${files.length ? `, files ${files.map((x) => x.split('/').pop()).join(' ')}` : ''})`}${withOptions.length ? ` [with ${withOptions.join(' ')}]` : ''}`,
        );
        if (!ok) problems.push(`fault ${f.name} (${f.description}) not caught`);
        return ok;
      }),
  );
  // Clean and variant runs first: they are the long ones, so the short fault runs fill the lanes at the end.
  const jobs = [...cleanJobs, ...variantJobs, ...largeJobs, ...faultJobs];
  // A variant that runs alone and mostly waits (WAITING_VARIANTS) takes no lane: it starts at once, beside them.
  const waits = new Set(units.flatMap((u, i) => (u.length === 1 && WAITING_VARIANTS.includes(u[0].name) ? [cleanJobs.length + i] : [])));
  const [laneResults, waitResults] = await Promise.all([
    pool(
      jobs.filter((_, i) => !waits.has(i)),
      lanes,
    ),
    Promise.all(jobs.filter((_, i) => waits.has(i)).map((job) => job())),
  ]);
  const results = jobs.map((_, i) => (waits.has(i) ? waitResults : laneResults).shift()!);
  const cleanOk = results.slice(0, cleanJobs.length).every(Boolean);
  const accepted = acceptedVariants;
  const caught = results.slice(cleanJobs.length + variantJobs.length + largeJobs.length).filter(Boolean).length;
  console.log(
    `\nselftest: ${caught} of ${faults.length} faults caught, ${accepted} of ${variants.length} legal variants passed${grouped.length ? ` (${inGroup.size} of them in ${grouped.length} groups)` : ''}${only || values.blame || largeOnly ? '' : cleanOk ? ', clean server passed twice' : ', clean server FAILED'} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
  if (largeJobs.length)
    console.log(
      `selftest: large lists: ${results.slice(cleanJobs.length + variantJobs.length, cleanJobs.length + variantJobs.length + largeJobs.length).filter(Boolean).length} of ${largeJobs.length} runs as expected`,
    );
  for (const p of problems) console.log(`  ${p}`);
  if (values.blame) console.log(`\n${blameTable(faults.map((f) => blame.find((b) => b.fault === f.name)!))}`);
  return problems.length === 0 ? 0 : 1;
}

// The warm server processes end with the command, waited for (so that its CPU time counts theirs).
runCommand('selftest', () => main().finally(stopHosts));
