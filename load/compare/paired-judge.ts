// The side-by-side verdict of paired runs (`npm run candidate -- --latency`): per operation, the
// candidate judged against the current pair by pair, each run calibrated by its own ruler's pairs
// (load/compare/paired-detect.ts), and why a run's pairs cannot be judged at all. Statistics only: the
// runs themselves are the load runner's (load/command/run-plan.ts).
import type { CandidateLatency, CandidateLatencyEndpoint, LoadDelivery, LoadScript } from '../../core/formats.ts';
import { SHARED_TABLE } from '../lib/profiles.ts';
import type { Records } from '../lib/runtime.ts';
import { detectPaired, operationOfTag, pairsByTag } from './paired-detect.ts';

/** One profile's paired run, for the verdict. */
export interface PairedRun {
  script: LoadScript;
  records: Records;
  /** Its reports, relative to the reports folder. */
  reports: string;
}

const counter = (records: Records, name: string) => records.counters[name] ?? 0;

const fmt = (n: number) => Number(n.toPrecision(3)).toString();

/** The candidate's requests and unexpected answers per operation (setup's probes and the ruler left out). */
function candidateAnswers(records: Records): Map<string, { requests: number; unexpected: number }> {
  const out = new Map<string, { requests: number; unexpected: number }>();
  for (const [endpoint, e] of Object.entries(records.endpoints)) {
    const c = e.candidate;
    if (!c || c.answers === 0 || endpoint === 'setup' || endpoint === 'calibration') continue;
    const op = operationOfTag(endpoint);
    const had = out.get(op) ?? { requests: 0, unexpected: 0 };
    out.set(op, { requests: had.requests + c.answers, unexpected: had.unexpected + c.unexpected });
  }
  return out;
}

/**
 * Why the candidate could not be timed: more of its answers were the network's (no answer, a gateway's
 * HTML error page, a redirect, a 429: core/transport-rule.ts) than the profile lets a run have. The
 * current's own answers are held to that budget by the run's thresholds; the candidate's are only
 * counted, and a verdict from the few pairs left would pass a side that was never measured.
 */
export function candidateNetwork(records: Records, profile: string): string | undefined {
  const kinds: Record<string, number> = {};
  let answers = 0;
  let network = 0;
  for (const e of Object.values(records.endpoints)) {
    if (!e.candidate) continue;
    answers += e.candidate.answers;
    for (const [kind, n] of Object.entries(e.candidate.network)) {
      kinds[kind] = (kinds[kind] ?? 0) + (n ?? 0);
      network += n ?? 0;
    }
  }
  const maxRate = SHARED_TABLE[profile as keyof typeof SHARED_TABLE]?.maxEndpointErrorRate ?? 0;
  if (network === 0 || network <= maxRate * answers) return undefined;
  const list = Object.entries(kinds)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  return `the candidate's network answered ${network} of its ${answers} requests, not the candidate (${list.join(', ')}; more than the ${profile} profile's ${fmt(maxRate * 100)}%): its latency cannot be measured`;
}

/**
 * Why a paired run's pairs cannot be judged, or undefined: the asked load was not delivered (its pairs
 * are another run's, as a load run's latency is not judged then: load/command/outcome.ts), or the
 * candidate's network answered for it (candidateNetwork).
 */
export function pairedRunUnjudged(run: { records: Records; delivery?: LoadDelivery }, profile: string): string | undefined {
  if (run.delivery && !run.delivery.ok) return run.delivery.note;
  return candidateNetwork(run.records, profile);
}

/** The operations a run has pairs of (the ruler left out): what its share of the family-wise alpha is counted by. */
function pairedOperations(records: Records): Set<string> {
  const byTag = pairsByTag(records);
  return new Set(
    Object.entries(byTag)
      .filter(([tag, p]) => tag !== 'calibration' && p.current.length > 0)
      .map(([tag]) => operationOfTag(tag)),
  );
}

/**
 * The side-by-side verdict of paired runs: per operation, the candidate judged against the current pair
 * by pair, each run with its own ruler. With K operations over all runs, each is held to alpha / K
 * (Bonferroni over paging and mutation alike: their operations do not overlap). An operation the
 * candidate answered unexpectedly more often than the profile allows is not decidable, never a
 * regression: its pairs are the requests the candidate happened to take, and the contract compare
 * judges what it answered.
 */
export function judgePairedRuns(
  runs: PairedRun[],
  o: { profile: string; minEffect: number; alpha?: number; seed?: number; reports: string },
): CandidateLatency {
  const alpha = o.alpha ?? 0.01;
  const tested = runs.map((r) => pairedOperations(r.records));
  const k = Math.max(
    1,
    tested.reduce((n, s) => n + s.size, 0),
  );
  const maxRate = SHARED_TABLE[o.profile as keyof typeof SHARED_TABLE]?.maxEndpointErrorRate ?? 0;
  const endpoints: CandidateLatencyEndpoint[] = [];
  const rulers: NonNullable<CandidateLatency['runs']> = [];
  let confidence = 0.95;
  let minEffect = o.minEffect;
  runs.forEach((run, i) => {
    const d = detectPaired(pairsByTag(run.records), { minEffect: o.minEffect, alpha: (alpha * Math.max(1, tested[i].size)) / k, seed: o.seed });
    confidence = d.confidence;
    minEffect = d.minEffect;
    rulers.push({ script: run.script, calibration: d.calibration, reports: run.reports });
    const answers = candidateAnswers(run.records);
    for (const e of d.operations) {
      const a = answers.get(e.endpoint);
      const tooMany = a !== undefined && a.unexpected > maxRate * a.requests;
      endpoints.push({
        ...e,
        script: run.script,
        ...(a ? { candidate: a } : {}),
        ...(tooMany
          ? {
              regression: false,
              decidable: false,
              reason: `not decidable: the candidate answered ${a.unexpected} of ${a.requests} unexpectedly (more than the ${o.profile} profile's ${fmt(maxRate * 100)}%): ${e.reason}`,
            }
          : {}),
      });
    }
    // An operation the candidate never answered as its pair expected has no pairs at all: listed, not judged.
    for (const [op, a] of answers)
      if (!d.operations.some((e) => e.endpoint === op) && a.unexpected > 0)
        endpoints.push({
          endpoint: op,
          script: run.script,
          regression: false,
          decidable: false,
          ratio: 1,
          lower: 1,
          upper: 1,
          p: 1,
          alpha: 0,
          n: { current: 0, candidate: 0 },
          median: { current: 0, candidate: 0 },
          candidate: a,
          reason: `not decidable: no pairs, the candidate answered ${a.unexpected} of ${a.requests} unexpectedly`,
        });
  });
  const regression = endpoints.some((e) => e.regression);
  return {
    scripts: runs.map((r) => r.script),
    profile: o.profile,
    verdict: regression ? 'regression' : 'pass',
    minEffect,
    alpha,
    confidence,
    calibration: rulers[0]?.calibration ?? null,
    runs: rulers,
    endpoints,
    requests: {
      paired: runs.reduce((n, r) => n + counter(r.records, 'load_paired_reqs'), 0),
      candidateFirst: runs.reduce((n, r) => n + counter(r.records, 'load_candidate_first'), 0),
    },
    reports: o.reports,
  };
}
