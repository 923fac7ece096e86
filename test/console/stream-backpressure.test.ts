import { connect, type Socket } from 'node:net';
import { Waymark } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';
import { seedStream } from '../support/seedStream';
import { ConsoleProcess } from './support/ConsoleProcess';

const CHUNKS = 300_000;
const RUN_ID = 'long-stream';
const MB = 2 ** 20;

describe.each<Backend>(['sqlite-file', 'postgres'])(
  'a stream of 300,000 chunks served by the console on %s',
  (backend) => {
    let db: TestDatabase;
    let served: ConsoleProcess;
    let base: { url: string; token: string };
    const path = `api/runs/${RUN_ID}/streams/llm`;

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      const runtime = await Waymark.create({ database: db.url });
      try {
        await seedHistory(runtime.dataSource, { runId: RUN_ID, steps: 1, status: 'completed' });
        await seedStream(runtime.dataSource, { runId: RUN_ID, stream: 'llm', chunks: CHUNKS });
      } finally {
        await runtime.close();
      }
      served = new ConsoleProcess(db.url);
      base = await served.next<{ url: string; token: string }>();
    }, 120_000);
    afterAll(async () => {
      await served?.stop();
      await db?.drop();
    });

    /** Reads the whole stream; the number of events before `event: end`. */
    const readAll = async (): Promise<number> => {
      const response = await fetch(`${base.url}${path}`, {
        headers: { authorization: `Bearer ${base.token}` },
      });
      const text = await response.text();
      expect(text.endsWith('event: end\ndata: {}\n\n')).toBe(true);
      return (text.match(/^id: /gm) ?? []).length;
    };

    /** A client that asks for the stream and then never reads: its socket stays paused. */
    const stalledReader = (): Promise<Socket> =>
      new Promise((done, fail) => {
        const url = new URL(path, base.url);
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(
            `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n` +
              `Authorization: Bearer ${base.token}\r\n\r\n`,
          );
          socket.pause();
          done(socket);
        });
        socket.once('error', fail);
      });

    it('three readers that do not read cost a bounded buffer, and nothing once they left', async () => {
      expect(await readAll()).toBe(CHUNKS); // warms up what serving it uses; then the baseline
      const before = await served.memory();
      const stalled = await Promise.all([1, 2, 3].map(() => stalledReader()));
      // A reader that reads it all: meanwhile the stalled ones had every chance to be served.
      expect(await readAll()).toBe(CHUNKS);
      const during = await served.memory();
      for (const socket of stalled) socket.destroy();
      await readAll(); // the console noticed they left before it serves this one to the end
      const after = await served.memory();

      expect((during.heapUsed - before.heapUsed) / MB).toBeLessThan(40);
      expect((during.rss - before.rss) / MB).toBeLessThan(150);
      expect((during.maxRss - before.rss) / MB).toBeLessThan(150);
      expect((after.heapUsed - before.heapUsed) / MB).toBeLessThan(20);
      expect((after.rss - before.rss) / MB).toBeLessThan(150);
    }, 120_000);
  },
);
