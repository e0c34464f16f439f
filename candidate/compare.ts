// Current against candidate from the files of their suite runs: regressions (a stated clause the
// candidate breaks), changed behaviour (what the spec leaves open, differing) and noise (what differs
// between two reads of one side, learnt here and never reported). Pure over the files' contents.
import type {
  BothBroken,
  CandidateChange,
  CandidateRegression,
  ConformanceReport,
  Exchange,
  ExchangeLog,
  Observations,
  Side,
  Status,
  TestExchanges,
} from '../core/formats.ts';
import { type Aliases, type Difference, diffExchanges, differenceKey, operationOfPath, pairTest, statePairs } from './diff.ts';

/** One suite run's files. */
export interface Read {
  conformance: ConformanceReport;
  exchanges: ExchangeLog;
  observations: Observations;
}

/** The noise of a deployment: the difference keys met between two of its reads, and the tests whose path varied. */
export interface Noise {
  keys: Set<string>;
  unstableTests: Set<string>;
}

const byKey = (log: ExchangeLog) => new Map(log.tests.map((t) => [t.key, t]));
const requestsKey = (test: string) => `${test}|requests`;

/** Every difference between the paired exchanges of two reads, per test (with the tests both ran). */
function differences(a: ExchangeLog, b: ExchangeLog, aliases?: Aliases) {
  const bs = byKey(b);
  const out: { test: TestExchanges; diffs: Difference[]; pairs: [Exchange, Exchange][]; diverged: ReturnType<typeof pairTest>['diverged'] }[] = [];
  for (const t of a.tests) {
    const u = bs.get(t.key);
    if (!u) continue;
    const { pairs, diverged } = pairTest(t.exchanges, u.exchanges);
    out.push({ test: t, pairs, diverged, diffs: pairs.flatMap(([x, y]) => diffExchanges(x, y, aliases)) });
  }
  return out;
}

/**
 * What differs between reads of the same deployment (any two of `reads`, which are of one side): its noise.
 * `stateful`: the reads wrote, so each met the state the one before left; their answers are also paired by
 * what they were (statePairs) and lists without ids compared by the values their places take. Places that
 * vary with that state (the time of a trigger's action, the phase it is in) are then noise, and a
 * candidate's change confined to them goes unseen: the price of comparing reads that wrote.
 */
export function learnNoise(reads: Read[], into: Noise = { keys: new Set(), unstableTests: new Set() }, o: { stateful?: boolean } = {}): Noise {
  for (let i = 1; i < reads.length; i++) {
    for (const { test, diffs, diverged } of differences(reads[0].exchanges, reads[i].exchanges)) {
      for (const d of diffs) into.keys.add(differenceKey(d));
      if (diverged) into.unstableTests.add(test.key);
    }
    if (o.stateful) {
      const later = byKey(reads[i].exchanges);
      for (const t of reads[0].exchanges.tests) {
        const u = later.get(t.key);
        if (!u) continue;
        for (const [x, y] of statePairs(t.exchanges, u.exchanges))
          for (const d of diffExchanges(x, y, undefined, { unequalLists: 'values' })) into.keys.add(differenceKey(d));
      }
    }
    for (const d of observationDiffs(reads[0].observations, reads[i].observations)) into.keys.add(`observation|${d.id}`);
  }
  return into;
}

function observationDiffs(a: Observations, b: Observations): { id: string; clause: string; aspect: string; current: unknown; candidate: unknown }[] {
  const out = [];
  for (const clause of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const va = a[clause]?.value ?? {};
    const vb = b[clause]?.value ?? {};
    for (const aspect of new Set([...Object.keys(va), ...Object.keys(vb)])) {
      // An aspect only one side observed is not a difference of behaviour: that side's test did not get there.
      if (!(aspect in va) || !(aspect in vb)) continue;
      if (JSON.stringify(va[aspect]) !== JSON.stringify(vb[aspect]))
        out.push({ id: `${clause}:${aspect}`, clause, aspect, current: va[aspect], candidate: vb[aspect] });
    }
  }
  return out;
}

const MAX_CLAUSES = 8;
/** An assertion's message without the terminal colours Playwright gives it. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
const clausesOf = (t: TestExchanges) => [...t.clauses, ...t.observations];

/** The changed behaviour: every difference between the sides' first reads that is not noise, one entry per operation, kind and place. */
export function changes(
  current: Read,
  candidate: Read,
  noise: Noise,
  aliases?: Aliases,
): { changes: CandidateChange[]; pairedExchanges: number; pairedTests: number; ignored: number } {
  const found = new Map<string, CandidateChange>();
  let ignored = 0;
  let pairedExchanges = 0;
  const per = differences(current.exchanges, candidate.exchanges, aliases);
  const add = (d: Difference, test: TestExchanges, pair: [Exchange | null, Exchange | null]) => {
    const key = differenceKey(d);
    const seen = found.get(key);
    if (seen) {
      seen.count++;
      for (const c of clausesOf(test)) if (!seen.clauses.includes(c) && seen.clauses.length < MAX_CLAUSES) seen.clauses.push(c);
      return;
    }
    found.set(key, {
      operation: d.operation,
      kind: d.kind,
      where: d.where,
      clauses: clausesOf(test).slice(0, MAX_CLAUSES),
      current: d.current,
      candidate: d.candidate,
      count: 1,
      test: test.key,
      exchanges: { current: pair[0], candidate: pair[1] },
    });
  };
  for (const { test, pairs, diverged } of per) {
    pairedExchanges += pairs.length;
    let changedBefore = false;
    for (const [a, b] of pairs) {
      for (const d of diffExchanges(a, b, aliases)) {
        if (noise.keys.has(differenceKey(d))) {
          ignored++;
          continue;
        }
        changedBefore = true;
        add(d, test, [a, b]);
      }
    }
    // A test that took another path after a changed answer says nothing more than that answer; one whose
    // path varies between reads of one side is noise.
    if (diverged && !changedBefore) {
      if (noise.unstableTests.has(test.key)) ignored++;
      else {
        const e = diverged.current ?? diverged.candidate!;
        add(
          {
            operation: operationOfPath(e.method, e.path),
            kind: 'requests',
            where: `request ${diverged.at + 1} of ${test.key}`,
            current: diverged.current ? `${diverged.current.method} ${diverged.current.path}` : 'no more requests',
            candidate: diverged.candidate ? `${diverged.candidate.method} ${diverged.candidate.path}` : 'no more requests',
          },
          test,
          [diverged.current, diverged.candidate],
        );
      }
    }
  }
  const curls = (log: ExchangeLog) => new Map(log.tests.flatMap((t) => t.exchanges.map((e) => [e.curl, e] as const)));
  const curA = curls(current.exchanges);
  const curB = curls(candidate.exchanges);
  for (const o of observationDiffs(current.observations, candidate.observations)) {
    if (noise.keys.has(`observation|${o.id}`)) {
      ignored++;
      continue;
    }
    const ea = current.observations[o.clause].evidence.find((e) => e.aspect === o.aspect);
    const eb = candidate.observations[o.clause].evidence.find((e) => e.aspect === o.aspect);
    const e = ea ?? eb;
    found.set(`observation|${o.id}`, {
      operation: e ? operationOfPath(e.method, e.path) : o.clause,
      kind: 'observation',
      where: o.id,
      clauses: [o.id],
      current: o.current,
      candidate: o.candidate,
      count: 1,
      test: e?.test ?? '',
      exchanges: { current: (ea && curA.get(ea.curl)) ?? null, candidate: (eb && curB.get(eb.curl)) ?? null },
    });
  }
  const order = (c: CandidateChange) => `${c.operation}\u0000${c.kind}\u0000${c.where}`;
  return { changes: [...found.values()].sort((x, y) => order(x).localeCompare(order(y))), pairedExchanges, pairedTests: per.length, ignored };
}

/** The failing status of a clause in any of a side's reads, else its status in the first. */
function statusIn(reads: Read[], clause: string): { status: Status; read?: Read } {
  for (const r of reads) {
    const c = r.conformance.clauses.find((x) => x.id === clause);
    if (c && (c.status === 'fail' || c.status === 'warn')) return { status: c.status, read: r };
  }
  return { status: reads[0].conformance.clauses.find((x) => x.id === clause)?.status ?? 'uncovered' };
}

/** The exchange of `log` at the place `e` has in `from`'s test `test`: the other side's answer to the same request. */
function counterpart(test: string, e: Exchange | undefined, from: ExchangeLog, log: ExchangeLog): Exchange | null {
  if (!e) return null;
  const mine = from.tests.find((t) => t.key.endsWith(test) || t.key === test);
  const theirs = mine && log.tests.find((t) => t.key === mine.key);
  if (!mine || !theirs) return null;
  const at = mine.exchanges.findIndex((x) => x.curl === e.curl && x.status === e.status);
  return at >= 0 ? (theirs.exchanges[at] ?? null) : null;
}

export interface Verdicts {
  regressions: CandidateRegression[];
  bothBroken: BothBroken[];
  fixed: string[];
  /** Inferred clauses that warn on the candidate alone (not --strict): changed behaviour, not a regression. */
  newWarnings: CandidateChange[];
}

/** A stated clause (or an inferred one under --strict) the candidate fails: a regression unless the current fails it too. */
export function verdicts(current: Read[], candidate: Read[]): Verdicts {
  const out: Verdicts = { regressions: [], bothBroken: [], fixed: [], newWarnings: [] };
  const ids = new Set([...current, ...candidate].flatMap((r) => r.conformance.clauses.map((c) => c.id)));
  for (const id of [...ids].sort()) {
    const cur = statusIn(current, id);
    const cand = statusIn(candidate, id);
    const clause = (cand.read ?? candidate[0]).conformance.clauses.find((c) => c.id === id) ?? current[0].conformance.clauses.find((c) => c.id === id);
    if (!clause || clause.level === 'open') continue;
    const evidenceOf = (s: { read?: Read }) => s.read?.conformance.clauses.find((c) => c.id === id)?.evidence[0];
    if (cand.status === 'fail') {
      const ev = evidenceOf(cand);
      if (cur.status === 'fail') {
        const e1 = evidenceOf(cur)?.error;
        out.bothBroken.push({ clause: id, level: clause.level, current: e1 ? plain(e1) : null, candidate: ev?.error ? plain(ev.error) : null });
        continue;
      }
      const e = ev?.exchanges.at(-1);
      out.regressions.push({
        clause: id,
        level: clause.level,
        section: clause.section,
        text: clause.text,
        current: cur.status,
        test: ev?.test ?? '',
        error: ev?.error ? plain(ev.error) : null,
        exchanges: { current: counterpart(ev?.test ?? '', e, cand.read!.exchanges, current[0].exchanges), candidate: e ?? null },
      });
    } else if (cur.status === 'fail') out.fixed.push(id);
    else if (cand.status === 'warn' && cur.status !== 'warn') {
      const ev = evidenceOf(cand);
      const e = ev?.exchanges.at(-1);
      out.newWarnings.push({
        operation: e ? operationOfPath(e.method, e.path) : id,
        kind: 'inferred',
        where: id,
        clauses: [id],
        current: cur.status,
        candidate: 'warn',
        count: 1,
        test: ev?.test ?? '',
        exchanges: { current: counterpart(ev?.test ?? '', e, cand.read!.exchanges, current[0].exchanges), candidate: e ?? null },
      });
    }
  }
  return out;
}

/** The changes a regression explains: the differences of its own pair of exchanges are the broken clause's, not open behaviour. */
export function withoutExplained(found: CandidateChange[], regressions: CandidateRegression[], aliases?: Aliases): CandidateChange[] {
  const explained = new Set(
    regressions.flatMap((g) =>
      g.exchanges.current && g.exchanges.candidate ? diffExchanges(g.exchanges.current, g.exchanges.candidate, aliases).map(differenceKey) : [],
    ),
  );
  return found.filter((c) => !explained.has(differenceKey(c)));
}

export type { Side };
