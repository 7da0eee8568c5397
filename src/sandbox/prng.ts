// Seeded pseudo-random numbers for the sandbox's outcomes and faults, so a seed replays the same run.

export type Prng = () => number;

/** mulberry32: a small, fast generator with good enough spread for simulation; returns [0, 1). */
export function createPrng(seed: number): Prng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator for one named stream (e.g. one endpoint), independent of the other streams of the seed. */
export function createNamedPrng(seed: number, name: string): Prng {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return createPrng(hash >>> 0);
}
