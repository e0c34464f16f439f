// What a load run was measured against, kept in its summary.json and its baseline, so a run is not
// compared with a baseline of another server: the committed baselines time the reference server, and
// a correct server whose endpoints are slower than the reference's (a real database, a network hop)
// is not a regression of anything. Only the kind and origin are kept: never a path, a query or
// credentials a base URL might carry.
import { readFileSync, writeFileSync } from 'node:fs';
import { type MeasuredAgainst, type RunSummary, readRunSummary, writeRunSummary } from '../../core/formats.ts';
import { formatJson } from './run-samples.ts';

/** The target of a run: the reference server started for it (no base URL), else the base URL's origin. */
export function measuredAgainst(baseUrl: string | undefined): MeasuredAgainst {
  return baseUrl ? { kind: 'external', origin: new URL(baseUrl).origin } : { kind: 'reference' };
}

export function describeTarget(t: MeasuredAgainst): string {
  return t.kind === 'reference' ? 'the reference server' : t.origin;
}

/** Adds `target` to the summary.json the run wrote. */
export function attachTarget(summaryFile: string, target: MeasuredAgainst): void {
  const summary = readRunSummary(summaryFile);
  if (!summary) throw new Error(`no ${summaryFile}`);
  writeRunSummary(summaryFile, { ...summary, target });
}

function isTarget(t: unknown): t is MeasuredAgainst {
  if (typeof t !== 'object' || t === null) return false;
  const { kind, origin } = t as Record<string, unknown>;
  return kind === 'reference' || (kind === 'external' && typeof origin === 'string');
}

/**
 * Why a run cannot be compared with a baseline of another target, or null. Only the reference server
 * and an external target are told apart: two external origins may be one deployment on a new port
 * or host, which the user who keeps that baseline knows. A side that does not say (written before
 * the target was kept, or merged from runners that did not) is compared as before.
 */
export function targetMismatch(run: RunSummary, baseline: RunSummary): string | null {
  const r = isTarget(run.target) ? run.target : null;
  const b = isTarget(baseline.target) ? baseline.target : null;
  if (!r || !b || r.kind === b.kind) return null;
  return `the baseline was measured on ${describeTarget(b)}, this run on ${describeTarget(r)}: their timings say nothing of each other; record this target's own baseline (npm run baseline:update, or verify --baselines DIR)`;
}

/** The target several runners share, else undefined. */
export function commonTarget(summaries: RunSummary[]): MeasuredAgainst | undefined {
  const first = summaries[0]?.target;
  if (!isTarget(first)) return undefined;
  return summaries.every((s) => isTarget(s.target) && JSON.stringify(s.target) === JSON.stringify(first)) ? first : undefined;
}
