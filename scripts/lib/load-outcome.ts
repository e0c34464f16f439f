// What verify makes of a k6 run that crossed a threshold (load.ts exit 1), from its summary.json.

/**
 * k6 exit 1 (a threshold crossed): a contract matter (failed checks, error rates) is 1; latency
 * thresholds alone are 2; thresholds of the calibration request alone say the machine was slow, not
 * the target (docs/load.md, "Calibration"), and count as a pass with a note.
 */
export function loadFailureKind(summary: { thresholds?: { metric: string; ok: boolean }[]; checks?: { fails: number } } | undefined): {
  code: 0 | 1 | 2;
  note: string;
} {
  const crossed = (summary?.thresholds ?? []).filter((t) => !t.ok);
  if (!summary || crossed.length === 0 || (summary.checks?.fails ?? 0) > 0) return { code: 1, note: 'checks or thresholds failed' };
  const target = crossed.filter((t) => !t.metric.includes('{endpoint:calibration}'));
  if (target.length === 0) return { code: 0, note: 'only the calibration request crossed its latency thresholds: the machine was slow' };
  if (target.every((t) => t.metric.startsWith('http_req_duration'))) return { code: 2, note: 'latency threshold crossed' };
  return { code: 1, note: 'checks or thresholds failed' };
}
