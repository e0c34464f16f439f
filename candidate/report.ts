// What `npm run candidate` leaves: candidate.json (core/formats.ts), its JUnit cases, and the verdict
// screen, each line saying which side it is about.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CandidateChange, CandidateLatency, CandidateLatencyEndpoint, CandidateReport, Exchange } from '../core/formats.ts';
import { xmlEscape as esc } from '../core/xml.ts';

const short = (v: unknown, n = 120) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > n ? `${s.slice(0, n)}...` : s;
};
const line = (e: Exchange | null) => (e ? `${e.method} ${e.path} -> ${e.status} ${short(e.responseBody, 160)}` : '(no such request)');

/** One change in one line: operation, kind, place, both sides' values. */
export function changeLine(c: CandidateChange): string {
  return `${c.operation}: ${c.kind} at ${c.where}: current ${short(c.current)}, candidate ${short(c.candidate)}${c.count > 1 ? ` (${c.count} times)` : ''} [${c.clauses.slice(0, 3).join(', ') || 'no clause'}]`;
}

const fig = (n: number) => Number(n.toPrecision(3)).toString();

/** One operation of the side-by-side latency in one line, naming the side it is about. */
export function latencyLine(e: CandidateLatencyEndpoint): string {
  const what = `${e.endpoint}: candidate median ${fig(e.median.candidate)} ms is ${fig(e.ratio)}x the current's ${fig(e.median.current)} ms (pair by pair, calibrated; 95% CI ${fig(e.lower)}-${fig(e.upper)}x, signed-rank p ${fig(e.p)}, ${e.n.current} pairs)`;
  const undecided =
    e.candidate?.unexpected && !e.decidable
      ? `: not decided, the candidate answered ${e.candidate.unexpected} of ${e.candidate.requests} unexpectedly`
      : ': too few pairs to tell';
  return `${e.regression ? 'SLOWER   ' : 'latency  '} ${what}${e.decidable ? '' : undecided}`;
}

/** The latency part of the screen. */
export function latencyLines(l: CandidateLatency): string[] {
  if (l.verdict === 'not carried out') return [`latency   NOT CARRIED OUT: ${l.reason}`];
  const out = [
    `latency   ${l.scripts.join(' + ')} (${l.profile}): ${l.requests.paired} requests sent to both sides, ${l.requests.candidateFirst} of them to the candidate first; calibration ratio candidate/current ${(l.runs ?? [{ script: l.scripts[0], calibration: l.calibration }]).map((r) => `${r.script} ${r.calibration === null ? 'unknown' : fig(r.calibration)}`).join(', ')}`,
  ];
  for (const n of l.notes ?? []) out.push(`latency   note: ${n}`);
  for (const [side, file] of Object.entries(l.ledgers ?? {})) out.push(`latency   the ${side}'s writes and restores: ${file}`);
  for (const e of l.endpoints) out.push(latencyLine(e));
  const slower = l.endpoints.filter((e) => e.regression).length;
  out.push(
    slower
      ? `LATENCY REGRESSION: the candidate is slower on ${slower} operation${slower === 1 ? '' : 's'} by more than --min-effect ${fig(l.minEffect * 100)}% (exit 2)`
      : `latency   no operation of the candidate shown slower by more than --min-effect ${fig(l.minEffect * 100)}%`,
  );
  return out;
}

/** The verdict screen: what the run found, each line naming its side. */
export function verdictScreen(r: CandidateReport, reportsShown: string): string {
  const out: string[] = [];
  const side = (s: 'current' | 'candidate') => r.sides.find((x) => x.side === s)!;
  out.push('', '=== current vs candidate');
  for (const s of ['current', 'candidate'] as const)
    out.push(
      `${s.padEnd(9)} ${side(s).target} (manifest ${side(s).manifest}): ${side(s)
        .reads.map((x) => x.verdict)
        .join(', ')}`,
    );
  if (r.reason) {
    out.push(`NOT CARRIED OUT: ${r.reason}`);
    return out.join('\n');
  }
  out.push(
    `compared  ${r.paired.exchanges} exchanges of ${r.paired.tests} tests in pairs, ${r.options.readOnly ? 'read-only' : 'with writes'}; noise learnt from ${r.options.reads} read${r.options.reads === 1 ? '' : 's'} of each side: ${r.noise.places} places, ${r.noise.differencesIgnored} differences ignored`,
  );
  for (const g of r.regressions) {
    out.push(`REGRESSION candidate breaks ${g.level} clause ${g.clause} (current: ${g.current}): ${short((g.error ?? '').split('\n')[0], 200)}`);
    out.push(`  current   ${line(g.exchanges.current)}`);
    out.push(`  candidate ${line(g.exchanges.candidate)}`);
  }
  for (const b of r.bothBroken) out.push(`both      break ${b.level} clause ${b.clause} (no change: the current breaks it too)`);
  for (const f of r.fixed) out.push(`current   breaks ${f}; the candidate keeps it`);
  for (const c of r.changes) out.push(`CHANGED   ${changeLine(c)}`);
  const verdict =
    r.verdict === 'regression'
      ? `REGRESSION: the candidate breaks ${r.regressions.length} clause${r.regressions.length === 1 ? '' : 's'} the current keeps`
      : r.verdict === 'changed'
        ? `CHANGED: ${r.changes.length} change${r.changes.length === 1 ? '' : 's'} of open behaviour, no regression${r.options.freezeOpen ? ' (--freeze-open: exit 1)' : ''}`
        : 'SAME: no regression, no change of open behaviour';
  if (r.latency) out.push(...latencyLines(r.latency));
  out.push(`candidate: ${verdict}${r.latency?.verdict === 'regression' ? '; LATENCY REGRESSION' : ''}; ${reportsShown} written`);
  return out.join('\n');
}

/** JUnit: one case per regression (failed), per change (failed under --freeze-open), and one for the whole comparison. */
export function candidateJunit(r: CandidateReport): string {
  const cases: string[] = [];
  const detail = (p: { current: Exchange | null; candidate: Exchange | null }) => esc(`current   ${line(p.current)}\ncandidate ${line(p.candidate)}`);
  for (const g of r.regressions)
    cases.push(
      `    <testcase classname="candidate.regression" name="${esc(g.clause)}"><failure message="${esc(`the candidate breaks ${g.clause}; current: ${g.current}`)}">${esc(g.error ?? '')}\n${detail(g.exchanges)}</failure></testcase>`,
    );
  for (const c of r.changes) {
    const body = `${esc(changeLine(c))}\n${detail(c.exchanges)}`;
    cases.push(
      `    <testcase classname="candidate.change" name="${esc(`${c.operation} ${c.kind} ${c.where}`)}">${r.options.freezeOpen ? `<failure message="${esc('open behaviour changed (--freeze-open)')}">${body}</failure>` : `<system-out>${body}</system-out>`}</testcase>`,
    );
  }
  for (const e of r.latency?.endpoints ?? [])
    cases.push(
      `    <testcase classname="candidate.latency" name="${esc(e.endpoint)}">${e.regression ? `<failure message="${esc(`the candidate is slower (${fig(e.ratio)}x)`)}">${esc(latencyLine(e))}</failure>` : `<system-out>${esc(latencyLine(e))}</system-out>`}</testcase>`,
    );
  if (r.reason) cases.push(`    <testcase classname="candidate" name="comparison"><error message="${esc(r.reason)}"/></testcase>`);
  else
    cases.push(`    <testcase classname="candidate" name="comparison"><system-out>${esc(`${r.paired.exchanges} exchanges compared`)}</system-out></testcase>`);
  const failures = r.regressions.length + (r.options.freezeOpen ? r.changes.length : 0) + (r.latency?.endpoints.filter((e) => e.regression).length ?? 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="candidate">\n  <testsuite name="current vs candidate" tests="${cases.length}" failures="${failures}" errors="${r.reason ? 1 : 0}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

export function writeCandidateJunit(dir: string, r: CandidateReport, guard: (t: string) => string): string {
  const file = join(dir, 'candidate', 'junit.xml');
  mkdirSync(join(dir, 'candidate'), { recursive: true });
  writeFileSync(file, guard(candidateJunit(r)));
  return file;
}
