// What a load run means, from its exit code and summary.json, for every run the load runner judges
// (local, merged from runners, a cloud run's report) and for `verify` alike (docs/load.md, "Levels and
// transport"): exit 1 only for a failed check (stated; inferred under --strict), exit 3 when the network
// rather than the target answered too often (no answer, redirects, 429s, pages that are not JSON) or the
// run could not be carried out, exit 2 for latency thresholds alone; a paired run's side-by-side verdict
// as an exit code.
import { type CandidateLatency, type LoadOutcome, type MeasuredAgainst, readRunSummary, writeRunSummary } from '../../core/formats.ts';

export interface LoadSummaryVerdictInput {
  thresholds?: { metric: string; threshold?: string; ok: boolean }[];
  checks?: { fails: number; stated?: { fails: number }; inferred?: { fails: number }; failed?: { name: string; level: string; fails: number }[] };
  transport?: { answers: number; failures: number; kinds: Record<string, number> };
  /** The scripts' own counters (load/lib/summary.ts), e.g. mutation_gates_refusing_rules. */
  counters?: Record<string, number>;
  /** Whether the asked load was delivered (load/artillery/delivery.ts); absent in older summaries. */
  delivery?: { ok: boolean; note: string; generators?: { saturated?: boolean }[] };
  /** Limits given as data (config.ensure) and whether they held. */
  shape?: { limits: { check: string; strict: boolean; ok: boolean; runner?: number }[] };
}

/** `endpoint X: ` for a limit on a `console.<endpoint>.<statistic>` metric, so that the line names the endpoint first. */
function limitEndpoint(check: string): string {
  const m = /^console\.(.+)\.(p\d+|min|max|mean|median|count|requests|unexpected|network_failures)\b/.exec(check.trim());
  return m ? `endpoint ${m[1]}: ` : '';
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The engine (load/artillery/run.ts) gives 0 (every threshold held), 1 (a threshold crossed) or another code (3: aborted in
 * setup, a script error: the run could not be carried out). A crossed threshold is read from the summary: a
 * check threshold is a contract matter (1); transport failures over their budget, or beside any other
 * crossing, mean the load was not carried out (3); thresholds of the calibration request alone say the
 * machine was slow, not the target (0, docs/load.md, "Calibration"); latency thresholds alone are 2.
 */
export function loadOutcome(engineExit: number, summary: LoadSummaryVerdictInput | undefined): LoadOutcome {
  const warnings = (summary?.checks?.failed ?? []).filter((c) => c.level === 'inferred').map((c) => `${c.name} (${plural(c.fails, 'failure')})`);
  // Every verdict carries the inferred checks' warnings; its note is the reasons found, joined.
  const verdict = (code: LoadOutcome['code'], ...notes: string[]): LoadOutcome => ({ code, note: notes.filter(Boolean).join('; '), warnings });
  if (engineExit !== 0 && engineExit !== 1) return verdict(3, `could not be carried out (engine exit ${engineExit})`);
  const t = summary?.transport;
  const kinds = Object.entries(t?.kinds ?? {}).map(([k, n]) => `${k} ${n}`);
  const network = t && t.failures > 0 ? `${t.failures} of ${t.answers} answers were the network's, not the target's (${kinds.join(', ')})` : '';
  // A gate that refused rules while full is a resource the target refused the suite: the user's to fix.
  const full = summary?.counters?.mutation_gates_refusing_rules ?? 0;
  const refused = full
    ? `${plural(full, 'manifest gate')} refused new rules and may be full (real servers cap a gate's rules): reset ${full === 1 ? 'it' : 'them'} or name others in the manifest`
    : '';
  // A load that fell short measured another load than the one asked for: its latencies are not judged.
  const short = summary?.delivery && !summary.delivery.ok ? summary.delivery.note : '';
  // A saturated generator that still delivered its arrivals is said, not failed: its timings read high.
  const saturated = summary?.delivery?.ok && summary.delivery.generators?.some((g) => g.saturated) ? `load generator saturated: ${summary.delivery.note}` : '';
  // A limit given as data (config.ensure, judged by Artillery's ensure plugin) that broke: the load regressed.
  const broken = (summary?.shape?.limits ?? [])
    .filter((l) => l.strict && !l.ok)
    .map((l) => `${limitEndpoint(l.check)}${l.check}${l.runner ? ` (runner ${l.runner})` : ''}`);
  const limitNote = broken.length ? `limit broken: ${broken.join(', ')}` : '';
  if (engineExit === 0) {
    if (refused || short) return verdict(3, short, refused);
    if (limitNote) return verdict(2, limitNote);
    return verdict(0, 'ok', network ? `${network}, within the profile's budget` : '', saturated);
  }
  if (!summary) return verdict(3, 'a threshold crossed, and no summary.json says which');
  const crossed = (summary.thresholds ?? []).filter((x) => !x.ok);
  const stated = summary.checks?.stated?.fails ?? 0;
  const inferred = summary.checks?.inferred?.fails ?? 0;
  if (crossed.some((x) => x.metric.startsWith('checks'))) {
    const parts = [
      stated > 0 ? plural(stated, 'stated check') + ' failed' : '',
      crossed.some((x) => x.metric === 'checks{level:inferred}') ? `${plural(inferred, 'inferred check')} failed (--strict)` : '',
    ];
    return verdict(1, parts.filter(Boolean).join(', ') || 'checks failed');
  }
  if (network || refused || short) return verdict(3, network, short, refused);
  const target = crossed.filter((x) => !x.metric.includes('{endpoint:calibration}'));
  if (target.length === 0)
    return limitNote ? verdict(2, limitNote) : verdict(0, 'only the calibration request crossed its latency thresholds: the machine was slow');
  const named = target.map((x) => `${x.metric} ${x.threshold ?? ''}`.trim()).join(', ');
  if (target.every((x) => x.metric.startsWith('http_req_duration'))) return verdict(2, `latency threshold crossed: ${named}`, limitNote);
  return verdict(1, `thresholds crossed: ${named}`);
}

/**
 * The one verdict of a run's summary.json: judged by loadOutcome, kept in the file (so that verify and
 * the report say the same), with what it was measured against when that is known, and said in one line
 * (`<label>: <script>: <note>`) after any inferred check's warning. A run that wrote no summary that
 * parses was not carried out. Resolves to the exit code.
 */
export function judgeSummary(summaryFile: string, engineExit: number, o: { label: string; script: string; against?: MeasuredAgainst }): number {
  let summary: ReturnType<typeof readRunSummary>;
  try {
    summary = readRunSummary(summaryFile);
  } catch {
    summary = undefined;
  }
  const outcome = loadOutcome(engineExit, summary);
  if (summary) writeRunSummary(summaryFile, { ...summary, ...(o.against ? { target: o.against } : {}), verdict: outcome });
  for (const w of outcome.warnings) console.error(`${o.label}: ${o.script}: warning: inferred check failed: ${w}`);
  (outcome.code === 0 ? console.log : console.error)(`${o.label}: ${o.script}: ${outcome.note}${outcome.code ? ` (exit ${outcome.code})` : ''}`);
  return outcome.code;
}

/** A paired run's exit code: 3 not carried out, 2 a regression, else 0. */
export const latencyCode = (l: CandidateLatency): number => (l.verdict === 'not carried out' ? 3 : l.verdict === 'regression' ? 2 : 0);
