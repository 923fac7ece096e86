import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { Waymark } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';
import { seedStream } from '../support/seedStream';

const REPO = resolve(__dirname, '../..');
const CHUNKS = 300_000;
const RUN_ID = 'long-stream';
const MB = 2 ** 20;

interface Memory {
  heapUsed: number;
  rss: number;
  maxRss: number;
}

/** `test/console/support/serveConsole.ts` in a child process, asked for its memory over stdin. */
class ConsoleProcess {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly lines: AsyncIterator<string>;

  constructor(database: string) {
    this.child = spawn(
      process.execPath,
      ['--expose-gc', '-r', '@swc-node/register', 'test/console/support/serveConsole.ts', database],
      { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async next<T>(): Promise<T> {
    const line = await this.lines.next();
    if (line.done) throw new Error('the console process ended');
    return JSON.parse(line.value) as T;
  }

  memory(): Promise<Memory> {
    this.child.stdin.write('memory\n');
    return this.next<Memory>();
  }

  stop(): Promise<void> {
    return new Promise((done) => {
      this.child.once('close', () => done());
      this.child.stdin.end();
    });
  }
}

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
