import {
  createConnection,
  createServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';

/**
 * A TCP forwarder on a port of its own to a database server: a stand-in for a second host.
 * `kill()` drops every connection and stops listening, as a host that died.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  /** Connections it has accepted so far. */
  accepted = 0;

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
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Connections open through it now. */
  get open(): number {
    return this.sockets.size / 2;
  }

  /** Resets every connection and stops listening: the next connect is refused. */
  async kill(): Promise<void> {
    for (const socket of this.sockets) socket.resetAndDestroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
