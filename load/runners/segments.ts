// The execution segments of N runners, written as the k6 operator writes them
// (grafana/k6-operator pkg/segmentation: runner i of N runs `(i-1)/N:i/N` of the sequence
// `0,1/N,...,(N-1)/N,1`), so that a run here splits a test exactly as a TestRun of parallelism N does.

export interface Segments {
  /** `--execution-segment-sequence`, the same for every runner. */
  sequence: string;
  /** `--execution-segment` of runner 1 to N, in order. */
  segments: string[];
}

const bound = (i: number, n: number) => (i === 0 ? '0' : i === n ? '1' : `${i}/${n}`);

export function segmentsFor(n: number): Segments {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`runners must be a positive integer, got ${n}`);
  const points = Array.from({ length: n + 1 }, (_, i) => bound(i, n));
  return { sequence: points.join(','), segments: points.slice(1).map((to, i) => `${points[i]}:${to}`) };
}

/** The k6 arguments of runner `index` (1 to n), as the operator passes them. */
export function segmentArgs(index: number, n: number): string[] {
  const { sequence, segments } = segmentsFor(n);
  if (index < 1 || index > n) throw new RangeError(`runner ${index} of ${n}`);
  return [`--execution-segment=${segments[index - 1]}`, `--execution-segment-sequence=${sequence}`];
}
