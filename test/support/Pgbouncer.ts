import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';

/** How a suite's pooler is set up. */
export interface PgbouncerOptions {
  /** PgBouncer's `pool_mode`; default `transaction`, what managed poolers offer. */
  readonly poolMode?: 'session' | 'transaction';
  /** Server connections per database and user (`default_pool_size`); default 2. */
  readonly poolSize?: number;
}

const READY_WITHIN_MS = 15_000;
const KEEP_LOG_CHARS = 20_000;

/**
 * A PgBouncer of a test's own, in front of the PostgreSQL server a test database URL names:
 * a free port on 127.0.0.1, a generated ini (every database name routed to that server,
 * `auth_type = trust` with the URL's user in its auth file), run in the foreground as a child
 * of the test process (`-u postgres` when the tests run as root: PgBouncer refuses to run as
 * root). `stop()` ends it and removes its folder; it also dies with the test process, on a
 * normal exit (`process.on('exit')`) and on a SIGKILL (a watchdog shell kills it once the
 * test process's end of a pipe closes). `scripts/ensure-pgbouncer.sh` installs it.
 */
export class Pgbouncer {
  private constructor(
    /** The port it listens on, on 127.0.0.1. */
    readonly port: number,
    private readonly dir: string,
    private readonly server: ChildProcess,
    private readonly watchdog: ChildProcess,
    private readonly log: { text: string },
    private readonly killOnExit: () => void,
  ) {}

  /** Starts a pooler in front of the server of `upstreamUrl`; resolves once it answers. */
  static async start(upstreamUrl: string, options: PgbouncerOptions = {}): Promise<Pgbouncer> {
    const program = findPgbouncer();
    const upstream = new URL(upstreamUrl);
    const user = decodeURIComponent(upstream.username) || 'postgres';
    const dir = mkdtempSync(join(tmpdir(), 'waymark-pgbouncer-'));
    const port = await freePort();
    const ini = join(dir, 'pgbouncer.ini');
    writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`);
    writeFileSync(
      ini,
      [
        '[databases]',
        `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        `pool_mode = ${options.poolMode ?? 'transaction'}`,
        `default_pool_size = ${options.poolSize ?? 2}`,
        'max_client_conn = 2000',
        'log_connections = 0',
        'log_disconnections = 0',
      ].join('\n') + '\n',
    );
    // The folder is root's 0700 from mkdtemp; the pooler reads it as postgres after -u.
    chmodSync(dir, 0o755);
    const asRoot = process.getuid?.() === 0;
    const server = spawn(program, [...(asRoot ? ['-u', 'postgres'] : []), ini], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = { text: '' };
    const keep = (chunk: Buffer): void => {
      log.text = (log.text + chunk.toString()).slice(-KEEP_LOG_CHARS);
    };
    server.stdout.on('data', keep);
    server.stderr.on('data', keep);
    const watchdog = startWatchdog(server);
    const killOnExit = (): void => void server.kill('SIGKILL');
    process.once('exit', killOnExit);
    const started = new Pgbouncer(port, dir, server, watchdog, log, killOnExit);
    try {
      await started.answers(user);
      return started;
    } catch (error) {
      await started.stop();
      throw error;
    }
  }

  /** `url` (a test database on the upstream server) made to go through this pooler. */
  url(url: string, parameters: Record<string, string> = {}): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    for (const [key, value] of Object.entries(parameters)) through.searchParams.set(key, value);
    return through.toString();
  }

  /** Stops the pooler (every client connection drops) and removes its folder. */
  async stop(): Promise<void> {
    process.removeListener('exit', this.killOnExit);
    this.watchdog.kill('SIGKILL');
    try {
      if (this.server.exitCode === null && this.server.signalCode === null) {
        const exited = new Promise<void>((resolve) => this.server.once('exit', () => resolve()));
        this.server.kill('SIGTERM'); // PgBouncer: immediate shutdown
        const timer = setTimeout(() => this.server.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  /** Resolves once a query through the pooler is answered; rejects if the pooler exits first. */
  private async answers(user: string): Promise<void> {
    const exited = new Promise<never>((_, reject) => {
      this.server.once('exit', (code, signal) =>
        reject(
          new Error(`pgbouncer exited (${signal ?? code}) before it answered:\n${this.log.text}`),
        ),
      );
    });
    exited.catch(() => undefined);
    const deadline = Date.now() + READY_WITHIN_MS;
    for (;;) {
      const client = new Client({ host: '127.0.0.1', port: this.port, user, database: 'postgres' });
      client.on('error', () => undefined);
      try {
        await Promise.race([client.connect().then(() => client.query('SELECT 1')), exited]);
        return;
      } catch (error) {
        if (this.server.exitCode !== null || this.server.signalCode !== null) await exited;
        if (Date.now() > deadline) {
          throw new Error(
            `pgbouncer on port ${this.port} did not answer within ${READY_WITHIN_MS} ms ` +
              `(${(error as Error).message}):\n${this.log.text}`,
            { cause: error },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  }
}

/** The pgbouncer program (Debian keeps it in /usr/sbin, outside a user's PATH). */
function findPgbouncer(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  const found = dirs.map((dir) => join(dir, 'pgbouncer')).find((path) => existsSync(path));
  if (!found) {
    throw new Error(
      'pgbouncer is not installed; this suite runs waymark through a real PgBouncer. ' +
        'Run scripts/ensure-pgbouncer.sh (npm test does), or: sudo apt-get install -y pgbouncer',
    );
  }
  return found;
}

/**
 * A shell that kills `server` once its stdin reaches end of file, which happens when this
 * process ends, however it ends (SIGKILL included). Neither it nor its pipe keeps the event
 * loop alive.
 */
function startWatchdog(server: ChildProcess): ChildProcess {
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'while read -r _; do :; done; kill -KILL "$1" 2>/dev/null',
      'watchdog',
      String(server.pid),
    ],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  watchdog.unref();
  (watchdog.stdin as unknown as Socket).unref();
  return watchdog;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
