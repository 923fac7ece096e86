import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Certificates a throwaway server was started with, as files a URL can name. */
export interface TlsFiles {
  /** The CA that signed the server's and the client's certificates. */
  readonly ca: string;
  /** A CA that signed nothing here: a server verified against it must be refused. */
  readonly otherCa: string;
  /** A client certificate (CN `certuser`) and its key, for `cert` authentication. */
  readonly clientCert: string;
  readonly clientKey: string;
}

/**
 * A PostgreSQL server of a test's own, with TLS on: `initdb` into a temporary folder, a
 * CA and a server certificate for `localhost` (only: connecting to 127.0.0.1 with
 * `verify-full` must fail) made with `openssl`, a free port, and a `pg_hba.conf` that
 * refuses every connection without TLS. Run as the `postgres` OS user when the tests run
 * as root (the server refuses to run as root). `stop()` always removes everything.
 */
export class ThrowawayPostgres {
  private constructor(
    readonly port: number,
    readonly tls: TlsFiles,
    private readonly dir: string,
    private readonly server: ChildProcess,
  ) {}

  /** Starts the server; on any failure, removes what it had made and rethrows. */
  static async start(): Promise<ThrowawayPostgres> {
    const bin = postgresBin();
    const dir = mkdtempSync(join(tmpdir(), 'waymark-tls-pg-'));
    const owner = serverUser();
    let server: ChildProcess | undefined;
    try {
      const tls = makeCertificates(dir);
      if (owner) chownTree(dir, owner);
      const run = (file: string, args: string[]): void => {
        execFileSync(join(bin, file), args, { stdio: 'pipe', ...(owner ?? {}) });
      };
      run('initdb', ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '-N']);
      writeFileSync(
        join(dir, 'data', 'pg_hba.conf'),
        [
          'local all all trust',
          'hostssl all certuser all cert',
          'hostssl all all all trust',
          'hostnossl all all all reject',
        ].join('\n') + '\n',
      );
      const port = await freePort();
      server = spawn(
        join(bin, 'postgres'),
        [
          ...['-D', join(dir, 'data'), '-p', String(port), '-k', dir],
          ...['-c', 'listen_addresses=localhost', '-c', 'fsync=off', '-c', 'ssl=on'],
          ...['-c', `ssl_cert_file=${join(dir, 'server.crt')}`],
          ...['-c', `ssl_key_file=${join(dir, 'server.key')}`],
          ...['-c', `ssl_ca_file=${join(dir, 'ca.crt')}`],
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], ...(owner ?? {}) },
      );
      await ready(server);
      const started = new ThrowawayPostgres(port, tls, dir, server);
      process.once('exit', () => server?.kill('SIGKILL'));
      return started;
    } catch (error) {
      await stopServer(server);
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Stops the server (fast shutdown) and removes its folder. */
  async stop(): Promise<void> {
    try {
      await stopServer(this.server);
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      `no PostgreSQL server binaries under ${root}/*/bin: this test starts its own server`,
    );
  }
  return join(root, versions[0], 'bin');
}

/** The `postgres` OS user's ids when running as root; undefined otherwise. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function chownTree(dir: string, owner: { uid: number; gid: number }): void {
  chownSync(dir, owner.uid, owner.gid);
  for (const name of readdirSync(dir)) chownSync(join(dir, name), owner.uid, owner.gid);
}

function makeCertificates(dir: string): TlsFiles {
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string): void =>
    openssl(
      ...['req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2'],
      ...['-subj', `/CN=waymark test ${name}`, '-addext', 'basicConstraints=critical,CA:TRUE'],
      ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    );
  const signed = (name: string, subject: string, extensions: string): void => {
    writeFileSync(join(dir, `${name}.ext`), extensions);
    openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    openssl(
      ...['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key'],
      ...['-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`],
    );
  };
  ca('ca');
  ca('other-ca');
  signed('server', '/CN=localhost', 'subjectAltName=DNS:localhost\n');
  signed('client', '/CN=certuser', 'extendedKeyUsage=clientAuth\n');
  for (const key of ['server.key', 'client.key']) chmodSync(join(dir, key), 0o600);
  return {
    ca: join(dir, 'ca.crt'),
    otherCa: join(dir, 'other-ca.crt'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
  };
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

/** Resolves when the server logs that it accepts connections; rejects if it exits first. */
function ready(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      if (log.includes('database system is ready to accept connections')) {
        server.stderr!.off('data', onData);
        server.stderr!.resume();
        resolve();
      }
    };
    server.stderr!.on('data', onData);
    server.once('exit', (code) =>
      reject(new Error(`postgres exited (${code}) before it was ready:\n${log}`)),
    );
    server.once('error', reject);
  });
}

async function stopServer(server: ChildProcess | undefined): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGINT');
  const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
