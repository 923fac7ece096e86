/** A small seeded PRNG (mulberry32) returning numbers in [0, 1): the same seed, the same draws. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A seed of its own for one part of a harness (a backend, a run), derived from the harness
 * seed with FNV-1a, so one run's schedule does not depend on how the runs before it went.
 */
export function deriveSeed(seed: number, ...parts: Array<string | number>): number {
  let hash = 0x811c9dc5;
  for (const char of [seed, ...parts].join(':')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A uniformly drawn integer from 0 to `max`, both included. */
export function upTo(random: () => number, max: number): number {
  return Math.floor(random() * (max + 1));
}
