// The proof map's logic (the command is proof.ts): which part of the suite a fault runs against, the
// map made from the runs, the clauses no fault proves and why, and the check of a rerun against the
// pairs the map claims. Nothing here starts a process.
import type { ClauseProof, ClauseProofEntry, FaultProofRun, ListedSwitch } from '../core/formats.ts';
import { seededRandom } from '../core/random.ts';
import type { Clause } from './support/clauses.ts';
import { filesFor, optionsFor } from './selftest-files.ts';
import type { Outcome } from './selftest-runs.ts';

/**
 * The rule a pair is claimed by. The self-test's mode: strict, so a violated inferred clause is `fail`
 * too (in default mode it would be `warn`, and the map would need two rules for one fact).
 */
export const RULE =
  'a fault proves a clause when a strict run of the suite (CONSOLE_STRICT=1) against the reference started with that fault alone, and the variants it needs, marks the clause "fail" in conformance.json; which clauses a failed test marks is the suite\'s blame at the commit named';

/**
 * Clauses no fault can prove on the reference by construction, and why. Checked against the runs: a
 * clause listed here that a fault does prove is reported (proof.test.ts holds the list to the catalogue).
 */
export const CANNOT_PROVE: Record<string, string> = {
  'runs.repeatable':
    'a property of two runs in a row: the self-test runs the suite twice against the clean server (contracts/selftest.ts); no test of one run names it, so no run of one fault can fail it',
  'writes.durable':
    'needs the service restarted between a write and its read, which the suite cannot do to a target; reliability:crash checks it on the reference (kill -9 under load, restart, count lost writes: docs/reliability.md)',
};

/** What of the suite a fault runs against, and how it reads in the map. */
export interface Selection {
  files: string[];
  grep?: string;
  /** Suite options the fault is caught with (selftest-files.ts optionsFor), when it needs any. */
  options?: NodeJS.ProcessEnv;
  describe: string;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A generated fault runs the tests that name its clause (clauses.yaml, checkedBy): the clause is marked
 * only through them, so nothing else of the suite could prove it. A hand-written fault runs the files the
 * self-test gives it, all of them (not stopping at the first failure), or the whole suite.
 */
export function selectionFor(fault: ListedSwitch, clauses: readonly Clause[]): Selection {
  if (fault.generated) {
    const titles = clauses.find((c) => c.id === fault.clause)?.checkedBy ?? [];
    if (titles.length > 0)
      return {
        files: [],
        grep: `/${titles.map(escapeRegExp).join('|')}/i`,
        describe: `the ${titles.length} test${titles.length === 1 ? '' : 's'} naming ${fault.clause}`,
      };
    return { files: [], describe: 'the whole suite (no test names its clause)' };
  }
  const files = filesFor(fault);
  const describe = files.length ? files.map((f) => f.split('/').pop()).join(' ') : 'the whole suite';
  const options = Object.entries(optionsFor(fault.name));
  if (options.length === 0) return { files, describe };
  return { files, options: Object.fromEntries(options), describe: `${describe} with ${options.map(([k, v]) => `${k}=${v}`).join(' ')}` };
}

/** The stated and inferred clauses a run failed. */
export function failedClauses(outcome: Pick<Outcome, 'clauses'>): string[] {
  return outcome.clauses.filter((c) => c.status === 'fail' && c.level !== 'open').map((c) => c.id);
}

/** `*` in a name given to --only stands for any text: `gen:message:*`. */
export function nameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const res = patterns.map((p) => new RegExp(`^${p.split('*').map(escapeRegExp).join('.*')}$`));
  return (name) => res.some((re) => re.test(name));
}

/** Why a clause no fault proves is unproved, from what was run. */
function whyUnproved(id: string, runs: readonly FaultProofRun[]): string {
  if (CANNOT_PROVE[id]) return CANNOT_PROVE[id];
  const aimed = runs.filter((r) => r.clause === id);
  if (aimed.length === 0) return 'no fault targets it';
  return aimed
    .map((r) => {
      const others = r.fails.length
        ? `failing ${r.fails.length} other clause${r.fails.length === 1 ? '' : 's'} (${r.fails.slice(0, 3).join(', ')}${r.fails.length > 3 ? ', ...' : ''})`
        : 'failing no clause';
      return `${r.name} ran (${r.selection}: ${r.verdict}) ${others}`;
    })
    .join('; ');
}

export interface MapMeta {
  madeAt: string;
  commit: string | null;
  dirty: boolean;
  partial: boolean;
  seconds: number;
  lanes: number;
}

/** The map: every stated and inferred clause of the catalogue with the faults whose runs failed it. */
export function buildMap(catalogue: readonly Pick<Clause, 'id' | 'level' | 'section'>[], runs: readonly FaultProofRun[], meta: MapMeta): ClauseProof {
  const judged = catalogue.filter((c): c is Pick<Clause, 'id' | 'section'> & { level: 'stated' | 'inferred' } => c.level !== 'open');
  const clauses: ClauseProofEntry[] = judged.map((c) => {
    const provedBy = runs.filter((r) => r.fails.includes(c.id)).map((r) => r.name);
    const targetedBy = runs.filter((r) => r.clause === c.id).map((r) => r.name);
    return { id: c.id, level: c.level, section: String(c.section), provedBy, targetedBy, ...(provedBy.length ? {} : { why: whyUnproved(c.id, runs) }) };
  });
  const count = (level: 'stated' | 'inferred') => {
    const of = clauses.filter((c) => c.level === level);
    const proved = of.filter((c) => c.provedBy.length > 0).length;
    // Proved by a fault written or generated for the clause itself: the figure a finer blame cannot
    // lower by much, where a pair of a fault and another clause of the same failed test may go.
    const aimed = of.filter((c) => c.provedBy.some((f) => c.targetedBy.includes(f))).length;
    return { total: of.length, proved, unproved: of.length - proved, aimed };
  };
  return {
    format: 'console-conformance.clause-proof/1',
    madeAt: meta.madeAt,
    commit: meta.commit,
    dirty: meta.dirty,
    rule: RULE,
    partial: meta.partial,
    summary: {
      stated: count('stated'),
      inferred: count('inferred'),
      faults: {
        run: runs.length,
        handWritten: runs.filter((r) => !r.generated && !r.variant).length,
        generated: runs.filter((r) => r.generated).length,
        variants: runs.filter((r) => r.variant).length,
        failingNothing: runs.filter((r) => r.fails.length === 0).length,
        problems: runs.filter((r) => !['pass', 'fail'].includes(r.verdict)).length,
      },
      seconds: meta.seconds,
      lanes: meta.lanes,
    },
    clauses,
    faults: [...runs].sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** The map as text: one line per clause and per run (a diff of two maps reads by clause), the rest indented. */

/** A rerun of a fault compared with what the map claims of it. */
export interface Verified {
  name: string;
  claimed: string[];
  /** Claimed clauses the rerun did not fail. */
  missing: string[];
  /** Clauses the rerun failed that the map does not claim (not a problem: shown). */
  extra: string[];
}

export function verifyRun(claimed: FaultProofRun, rerun: readonly string[]): Verified {
  return {
    name: claimed.name,
    claimed: claimed.fails,
    missing: claimed.fails.filter((c) => !rerun.includes(c)),
    extra: rerun.filter((c) => !claimed.fails.includes(c)),
  };
}

/** `n` of the map's runs that claim something, picked by a seeded shuffle (the same seed, the same sample). */
export function sampleRuns(runs: readonly FaultProofRun[], n: number, seed: number): FaultProofRun[] {
  const claiming = runs.filter((r) => r.fails.length > 0);
  const random = seededRandom(seed);
  const order = claiming.map((r) => ({ r, k: random() })).sort((a, b) => a.k - b.k);
  return order.slice(0, n).map((x) => x.r);
}
