/**
 * A console in a process of its own, for measuring it: `node -r @swc-node/register
 * serveConsole.ts <database-url>`. Prints `{ "url", "token" }` as one JSON line once it
 * listens; on each line read from stdin it answers with one JSON line of its memory after a
 * full garbage collection (run it with `--expose-gc`): `{ heapUsed, rss, maxRss }` in bytes,
 * `maxRss` the peak resident size so far. Ends when stdin closes.
 */
import { createInterface } from 'node:readline';
import { Waymark } from 'waymark';
import { startConsole } from 'waymark/console';

async function main(): Promise<void> {
  const runtime = await Waymark.create({ database: process.argv[2], migrate: false });
  const served = await startConsole(runtime, { port: 0 });
  process.stdout.write(`${JSON.stringify({ url: served.url, token: served.token })}\n`);
  const lines = createInterface({ input: process.stdin });
  for await (const request of lines) {
    if (request.trim() === '') continue;
    (globalThis as { gc?: () => void }).gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    const maxRss = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(`${JSON.stringify({ heapUsed, rss, maxRss })}\n`);
  }
  await served.close();
  await runtime.close({ grace: 0 });
}

void main();
