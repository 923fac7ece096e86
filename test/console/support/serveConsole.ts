/**
 * A console in a process of its own, for measuring it: `node -r @swc-node/register
 * serveConsole.ts <database-url>`. Prints `{ "url", "token" }` as one JSON line once it
 * listens; on each line read from stdin it answers with one JSON line of its memory after a
 * full garbage collection (run it with `--expose-gc`): `{ heapUsed, rss, maxRss, peakRss }` in
 * bytes, `maxRss` the peak resident size so far, `peakRss` the peak since the last line
 * `mark` (sampled every 2 ms). Ends when stdin closes.
 */
import { createInterface } from 'node:readline';
import { Waymark } from 'waymark';
import { startConsole } from 'waymark/console';

async function main(): Promise<void> {
  const runtime = await Waymark.create({ database: process.argv[2], migrate: false });
  const served = await startConsole(runtime, { port: 0 });
  process.stdout.write(`${JSON.stringify({ url: served.url, token: served.token })}\n`);
  // The peak resident size since the last `mark`, sampled: the process's own peak (maxRss)
  // may come from before the mark (start-up, warm-up), which the measurement must not count.
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 2);
  const lines = createInterface({ input: process.stdin });
  for await (const request of lines) {
    if (request.trim() === '') continue;
    (globalThis as { gc?: () => void }).gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    if (request.trim() === 'mark') peakRss = rss;
    peakRss = Math.max(peakRss, rss);
    const maxRss = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(`${JSON.stringify({ heapUsed, rss, maxRss, peakRss })}\n`);
  }
  clearInterval(sampler);
  await served.close();
  await runtime.close({ grace: 0 });
}

void main();
