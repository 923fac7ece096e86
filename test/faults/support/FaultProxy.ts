import {
  createConnection,
  createServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import type { Disposable } from '../../../src/ground/Disposable';
import { classifyStatement } from './classifyStatement';
import { createSession, type Dialect } from './createSession';
import type { CompletionDecider, StatementDecider } from './Fault';
import { FaultLog } from './FaultLog';
import { ProxyConnection, type FaultDecisions } from './ProxyConnection';
import { resetSocket } from './resetSocket';
import type { OpenStatement } from './WireSession';

/** Where the real server is and which protocol it speaks. */
export interface FaultProxyOptions {
  readonly dialect: Dialect;
  readonly port: number;
  /** 127.0.0.1 unless given. */
  readonly host?: string;
}

/**
 * A TCP proxy in front of a real PostgreSQL or MySQL/MariaDB server that reads the wire
 * protocol in both directions and injects faults where its decision functions say: before a
 * statement reaches the server, or once the server has finished it and before the client
 * hears. With no fault chosen it forwards every byte, in order. It listens on 127.0.0.1 on a
 * port of its own, which stays the same until `close()`.
 *
 * @example
 * const proxy = await FaultProxy.start({ dialect: 'postgres', port: 5432 });
 * // "The server committed, waymark never heard": withhold the reply to an autocommit write.
 * proxy.onCompletion((c) =>
 *   c.statement.kind === 'insert' && c.status === 'idle' ? { kind: 'lost-ack' } : undefined,
 * );
 * const client = new pg.Client({ host: '127.0.0.1', port: proxy.port, user: 'postgres' });
 * // ... the INSERT fails with a connection error; the row is there.
 * await proxy.close();
 */
export class FaultProxy {
  /** What has passed and what has been injected. */
  readonly log = new FaultLog();
  private readonly connections = new Set<ProxyConnection>();
  private statementDecider: StatementDecider | undefined;
  private completionDecider: CompletionDecider | undefined;
  private readonly decisions: FaultDecisions = {
    statement: (statement) => this.statementDecider?.(statement),
    completion: (completion) => this.completionDecider?.(completion),
  };
  private refusing = false;
  private closing = false;
  private refuseTimer: NodeJS.Timeout | undefined;
  private readonly refusals: Array<() => void> = [];
  private connectionCount = 0;
  private statementCount = 0;

  private constructor(
    private readonly server: Server,
    private readonly options: FaultProxyOptions,
  ) {}

  /** Listens on an ephemeral port of 127.0.0.1, forwarding to `options.host:options.port`. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, options);
    server.on('connection', (socket) => proxy.admit(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return proxy;
  }

  /** The port clients connect to instead of the server's. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Connections open through it now. */
  get open(): number {
    return this.connections.size;
  }

  /**
   * Asks `decide` about every client statement before any of it is forwarded; replaces the
   * function given before. Dispose to stop asking it.
   *
   * @example
   * proxy.onStatement((s) => (s.kind === 'insert' ? { kind: 'cut-before' } : undefined));
   * proxy.onStatement((s) => (random() < 0.05 ? { kind: 'delay', ms: 200 } : undefined));
   */
  onStatement(decide: StatementDecider): Disposable {
    this.statementDecider = decide;
    return {
      dispose: () => {
        if (this.statementDecider === decide) this.statementDecider = undefined;
      },
    };
  }

  /**
   * Asks `decide` about every completed statement before its reply is forwarded; replaces
   * the function given before. Dispose to stop asking it.
   *
   * @example
   * proxy.onCompletion((c) => (c.statement.kind === 'commit' ? { kind: 'lost-ack' } : undefined));
   * proxy.onCompletion((c) =>
   *   c.status === 'transaction' ? { kind: 'cut-mid-transaction', forwardReply: true } : undefined,
   * );
   * proxy.onCompletion(() => ({ kind: 'delay', ms: 3_000 })); // past a lease renewal
   */
  onCompletion(decide: CompletionDecider): Disposable {
    this.completionDecider = decide;
    return {
      dispose: () => {
        if (this.completionDecider === decide) this.completionDecider = undefined;
      },
    };
  }

  /**
   * Refuses new connections (accepts and resets them at once, on the same port) until
   * `accept()`, or for `forMs` if given; resolves when it accepts again. Open connections
   * are left alone: `cutAll()` as well for an outage.
   *
   * @example
   * proxy.cutAll();
   * void proxy.refuse(2_000); // a two-second outage
   */
  refuse(forMs?: number): Promise<void> {
    this.refusing = true;
    clearTimeout(this.refuseTimer);
    if (forMs !== undefined) this.refuseTimer = setTimeout(() => this.accept(), forMs);
    const period = forMs === undefined ? 'until accept()' : `for ${forMs}ms`;
    this.log.record('refuse', 0, `new connections refused ${period}`);
    return new Promise((resolve) => this.refusals.push(resolve));
  }

  /** Takes new connections again after `refuse()`. */
  accept(): void {
    this.refusing = false;
    clearTimeout(this.refuseTimer);
    this.refuseTimer = undefined;
    for (const resolve of this.refusals.splice(0)) resolve();
  }

  /**
   * Resets every open connection, both sides, now; returns how many there were.
   *
   * @example
   * const cut = proxy.cutAll();
   */
  cutAll(): number {
    const count = this.connections.size;
    for (const connection of this.connections) connection.cut();
    this.log.record('cut-all', 0, `${count} open connections cut`);
    return count;
  }

  /** Cuts every connection, stops listening and releases the port and every timer. */
  async close(): Promise<void> {
    this.closing = true;
    this.accept();
    const connections = [...this.connections];
    for (const connection of connections) connection.cut();
    await Promise.all(connections.map((connection) => connection.closed));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private admit(client: Socket): void {
    client.on('error', () => undefined);
    if (this.refusing || this.closing) {
      if (this.refusing) this.log.refused++;
      return resetSocket(client);
    }
    this.log.accepted++;
    const id = ++this.connectionCount;
    const upstream = createConnection({
      host: this.options.host ?? '127.0.0.1',
      port: this.options.port,
    });
    let sequence = 0;
    const open: OpenStatement = (command, sql, inTransaction) => ({
      connectionId: id,
      ordinal: ++this.statementCount,
      sequence: ++sequence,
      command,
      kind: classifyStatement(sql),
      sql,
      inTransaction,
    });
    const session = createSession(this.options.dialect, open);
    const connection = new ProxyConnection(id, client, upstream, session, this.decisions, this.log);
    this.connections.add(connection);
    void connection.closed.then(() => this.connections.delete(connection));
  }
}
