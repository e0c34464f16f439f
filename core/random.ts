// One seeded generator for everything that must draw the same numbers on every machine: the reference
// server's seed data, the load compare's bootstrap, the change-point test's shuffles.

/** Uniform numbers in [0, 1) from a 32-bit seed (mulberry32: small, fast, good enough for data and resampling). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A run id: short, sortable, lower-case letters and digits, unique enough that two runs on one target never share a metric name. */
export function newRunId(now = Date.now()): string {
  return `${now.toString(36)}${Math.floor(Math.random() * 36 ** 3)
    .toString(36)
    .padStart(3, '0')}`;
}
