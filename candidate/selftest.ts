// The proof of `npm run candidate` (npm run candidate:selftest, and a few cases in npm test): the
// reference on both sides. The current is one reference, read twice; each case is a candidate reference
// compared with it: the same build (read twice, like the command) reports 0 changes and 0 regressions;
// each legal variant reports changed behaviour and exit 0; each fault of a sample reports a regression
// naming the fault's clause and exit 1. A fault's sample is drawn, every k-th by name, from the faults of
// stated clauses the current's read checks (in a read-only run a clause that needs a write is left out).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSwitches, pool } from '../contracts/selftest-runs.ts';
import { ConfigError } from '../core/config.ts';
import type { ListedSwitch, Side } from '../core/formats.ts';
import type { Read } from './compare.ts';
import { type CandidateOptions, aliasesOf, emptyReport, judge, loadRead, readSide, prepareSide, type SideUnderTest } from './run.ts';

export type CaseKind = 'same build' | 'variant' | 'fault';
export interface Case {
  kind: CaseKind;
  name: string;
  /** The clause a fault's regression must name. */
  clause?: string;
}
export interface CaseResult extends Case {
  ok: boolean;
  code: number;
  regressions: string[];
  changes: number;
  line: string;
}

export interface SelftestOptions {
  writes: boolean;
  /** Candidate reads per case (the same build always twice). */
  reads: number;
  lanes: number;
  /** Only the suite's tests whose title matches, in the candidate reads of variants and faults (the same build reads all). */
  grep?: string;
  say?: (line: string) => void;
}

async function readSideTimes(t: SideUnderTest, times: number, o: CandidateOptions, dir: string): Promise<Read[]> {
  const reads: Read[] = [];
  for (let n = 1; n <= times; n++) {
    const r = await readSide(t, n, o, dir);
    if (r.code !== 0 && r.code !== 1) throw new ConfigError(`the ${t.side} could not be tested: ${r.line ?? `exit ${r.code}`}`);
    reads.push(loadRead(r.reports));
  }
  return reads;
}

/** The expectation of each kind of case, in one line. */
export function judgeCase(c: Case, code: number, regressions: string[], changes: number): { ok: boolean; line: string } {
  if (c.kind === 'same build')
    return {
      ok: code === 0 && regressions.length === 0 && changes === 0,
      line: `${changes} changes, ${regressions.length} regressions, exit ${code} (expected 0, 0, 0)`,
    };
  if (c.kind === 'variant')
    return {
      ok: code === 0 && regressions.length === 0 && changes > 0,
      line: `${changes} changes, ${regressions.length} regressions${regressions.length ? ` (${regressions.join(', ')})` : ''}, exit ${code}`,
    };
  const named = regressions.includes(c.clause!);
  return {
    ok: code === 1 && named,
    line: `exit ${code}, regressions ${regressions.join(', ') || 'none'}${named ? '' : ` (expected ${c.clause})`}`,
  };
}

/** Runs the cases against one current reference read twice; each case's result as it ends. */
export async function runCases(cases: Case[], so: SelftestOptions): Promise<CaseResult[]> {
  const say = so.say ?? ((l: string) => console.log(l));
  const dir = mkdtempSync(join(tmpdir(), 'cc-candidate-selftest-'));
  const o: CandidateOptions = { current: {}, candidate: {}, writes: so.writes, strict: false, freezeOpen: false, reads: 2, say: () => {} };
  const current = await prepareSide('current', {}, undefined);
  try {
    const currentReads = await readSideTimes(current, 2, o, join(dir, 'current'));
    return await pool(
      cases.map((c, i) => async () => {
        const side: { faults?: string[]; variants?: string[] } = c.kind === 'fault' ? { faults: [c.name] } : c.kind === 'variant' ? { variants: [c.name] } : {};
        const t = await prepareSide('candidate' as Side, side, undefined);
        try {
          // A candidate the suite cannot test (its preflight refuses it) ends as the command would: exit 3.
          const untestable = (reason: string): CaseResult => {
            const { ok, line } = judgeCase(c, 3, [], 0);
            say(`${ok ? 'ok  ' : 'BAD '} ${c.kind.padEnd(10)} ${c.name.padEnd(34)} ${line}: ${reason}`);
            return { ...c, ok, code: 3, regressions: [], changes: 0, line: `${line}: ${reason}` };
          };
          let reads: Read[];
          try {
            const same = c.kind === 'same build';
            const ro: CandidateOptions = same || !so.grep ? o : { ...o, playwrightArgs: ['--grep', so.grep] };
            reads = await readSideTimes(t, same ? 2 : so.reads, ro, join(dir, `case-${i}`));
          } catch (err) {
            if (err instanceof ConfigError) return untestable(err.message);
            throw err;
          }
          const report = emptyReport(o, Date.now());
          const code = judge(report, { current: currentReads, candidate: reads }, aliasesOf(current.manifest, t.manifest), false);
          const regressions = report.regressions.map((g) => g.clause);
          const { ok, line } = judgeCase(c, code, regressions, report.changes.length);
          say(
            `${ok ? 'ok  ' : 'BAD '} ${c.kind.padEnd(10)} ${c.name.padEnd(34)} ${line}${c.kind === 'variant' && report.changes[0] ? `; first: ${report.changes[0].operation} ${report.changes[0].kind} at ${report.changes[0].where}` : ''}`,
          );
          return { ...c, ok, code, regressions, changes: report.changes.length, line };
        } finally {
          await t.server?.stop();
          rmSync(join(dir, `case-${i}`), { recursive: true, force: true });
        }
      }),
      so.lanes,
    );
  } finally {
    await current.server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every k-th of `faults` (sorted by name) to make `n`: a sample that is the same on every run. */
export function sampleFaults<T extends { name: string }>(faults: T[], n: number): T[] {
  const sorted = [...faults].sort((a, b) => a.name.localeCompare(b.name));
  if (sorted.length <= n) return sorted;
  const step = sorted.length / n;
  return Array.from({ length: n }, (_, i) => sorted[Math.floor(i * step)]);
}

/**
 * The clauses a read of the clean reference checks whole: passed, and no test naming them left out (a
 * read-only run passes a clause on the tests it ran, while the test that would meet its fault needs a
 * write: against that fault the read-only suite passes too, and so does the comparison).
 */
export function checkedWhole(read: Read): Set<string> {
  const skipped = new Set(read.exchanges.tests.filter((t) => t.status === 'skipped').flatMap((t) => t.clauses));
  return new Set(read.conformance.clauses.filter((c) => c.status === 'pass' && !skipped.has(c.id)).map((c) => c.id));
}

/** The faults a read of the clean reference can catch: of stated clauses it checks whole. */
export function faultsInScope(faults: ListedSwitch[], checked: Set<string>): ListedSwitch[] {
  return faults.filter((f) => f.level === 'stated' && checked.has(f.clause));
}

export { listSwitches };

/** The variant cases: every variant, or those `only` names (by name, or with a parameter as `rules-cap:3`). */
export function variantCases(variants: { name: string; parameter?: string }[], only?: Set<string>): Case[] {
  if (!only) return variants.map((v) => ({ kind: 'variant', name: v.name }));
  return [...only].filter((o) => variants.some((v) => v.name === o || (v.parameter && v.name === o.split(':')[0]))).map((o) => ({ kind: 'variant', name: o }));
}
