// The suite files the self-test runs for each hand-written fault (it stops at the first failure in them)
// and the proof map runs whole: those whose tests name the fault's clause, or the files its entry in
// reference/layers/ names; data only, so that in-process tests read it.
import { CLAUSES } from './support/clauses.ts';
import type { ListedSwitch } from '../core/formats.ts';

/** A test's file from its title: titles start with their file's resource (`gates: ...`, `negative data: ...`). */
const fileOfTitle = (title: string) => title.split(/[: ]/)[0];

/** The suite files (paths) that exercise a hand-written fault; [] for the whole suite. */
export function filesFor(fault: Pick<ListedSwitch, 'clause' | 'files'>): string[] {
  const names = fault.files ?? [...new Set((CLAUSES.find((c) => c.id === fault.clause)?.checkedBy ?? []).map(fileOfTitle))].sort();
  return names.map((f) => `contracts/conformance/${f}.spec.ts`);
}

/**
 * Faults the suite catches only with an option that is off by default, and the environment that turns it
 * on: wrong keys derived from the real one are sent only with --auth-probes derived (for a throwaway
 * key), so a server that compares keys ignoring case or by a prefix passes a default run, on purpose.
 */
const FAULT_OPTIONS: [RegExp, NodeJS.ProcessEnv][] = [[/^auth-key-(case-insensitive|prefix-only)$/, { CONSOLE_AUTH_PROBES: 'derived' }]];

/** The environment a hand-written fault is caught with beside the self-test's own ({} for most). */
export function optionsFor(fault: string): NodeJS.ProcessEnv {
  return FAULT_OPTIONS.find(([re]) => re.test(fault))?.[1] ?? {};
}

/**
 * Legal variants that leave stated clauses undecided, and the waiver a user of such a target writes: a
 * server that keeps only an experiment's own groups refuses the suite's marker groups, so what a patch
 * keeps cannot be told on it. Undecided is never a pass: without the waiver the run is INCOMPLETE.
 */
const VARIANT_OPTIONS: [RegExp, NodeJS.ProcessEnv][] = [
  [
    /^overrides-known-groups-only$/,
    {
      CONSOLE_WAIVE: [
        "overrides.patch.persisted=the target keeps only an experiment's own groups: the suite's marker groups are refused",
        "overrides.patch.response.items=the target keeps only an experiment's own groups: the suite's marker groups are refused",
      ].join('\n'),
    },
  ],
];

/** The environment a run of legal variants needs beside the self-test's own: the waivers of each. */
export function variantOptions(variants: string[]): NodeJS.ProcessEnv {
  const waive = variants.flatMap((v) => VARIANT_OPTIONS.filter(([re]) => re.test(v)).map(([, env]) => env.CONSOLE_WAIVE ?? ''));
  return waive.length ? { CONSOLE_WAIVE: waive.filter(Boolean).join('\n') } : {};
}
