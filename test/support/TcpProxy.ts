import {
  createConnection,
  createServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';

/**
 * A TCP forwarder on a port of its own to a database server: a stand-in for a second host.
 * `kill()` drops every connection and stops listening, as a host that died; `refuse()` does
 * the same for a while (a server restarting) until `accept()` listens on the same port again.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  /** Connections it has accepted so far. */
  accepted = 0;
  private boundPort = 0;

  private constructor(private readonly server: Server) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on('connection', (client) => {
      proxy.accepted++;
      const upstream = createConnection(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('close', () => proxy.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await proxy.listen(0);
    proxy.boundPort = (server.address() as AddressInfo).port;
    return proxy;
  }

  /** The port it listens on, also while it refuses connections. */
  get port(): number {
    return this.boundPort;
  }

  /** Connections open through it now. */
  get open(): number {
    return this.sockets.size / 2;
  }

  /** Resets every connection and stops listening: the next connect is refused. */
  async kill(): Promise<void> {
    await this.refuse();
  }

  /** Resets every connection and stops listening, until {@link accept}: connects are refused. */
  async refuse(): Promise<void> {
    // A socket already half-closed is destroyed: resetAndDestroy() on one (Node 20) leaves
    // it open and spins the event loop.
    for (const socket of this.sockets) {
      if (socket.writableEnded) socket.destroy();
      else socket.resetAndDestroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Listens again, on the same port, after {@link refuse}. */
  async accept(): Promise<void> {
    await this.listen(this.boundPort);
  }

  private listen(port: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }
}
