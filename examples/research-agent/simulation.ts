import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** A short, stable hex digest of `text`. The fakes derive their output from it. */
export function fingerprint(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** Scales every simulated delay; tests that need no audience set it to 0. */
export const latency = { scale: 1 };

/**
 * Waits 150–300 ms, always the same time for the same `seed`, so that a person can watch
 * the demo progress. Rejects early when `signal` aborts.
 */
export async function simulateLatency(seed: string, signal?: AbortSignal): Promise<void> {
  const ms = (150 + (parseInt(fingerprint(seed), 16) % 151)) * latency.scale;
  await sleep(ms, undefined, { signal });
}
