import {
  createConnection,
  createServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { mulberry32 } from '../../support/SeededRandom';

/**
 * A TCP forwarder that re-cuts the byte stream, both ways, into seeded random pieces of 1 to
 * 64 bytes written on separate turns of the event loop, so the reader behind it gets messages
 * split (and, when it falls behind, merged) at arbitrary points. Bytes keep their order.
 */
export class Rechunker {
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(targetPort: number, seed: number): Promise<Rechunker> {
    const random = mulberry32(seed);
    const server = createServer();
    const rechunker = new Rechunker(server);
    server.on('connection', (client) => {
      const upstream = createConnection(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        rechunker.sockets.add(socket);
        socket.setNoDelay(true);
        socket.on('error', () => undefined);
        socket.on('close', () => rechunker.sockets.delete(socket));
      }
      forwardInPieces(client, upstream, random);
      forwardInPieces(upstream, client, random);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return rechunker;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function forwardInPieces(from: Socket, to: Socket, random: () => number): void {
  const pieces: Buffer[] = [];
  let ended = false;
  let writing = false;
  const writeNext = (): void => {
    const piece = pieces.shift();
    if (!piece) {
      writing = false;
      if (ended) to.end();
      return;
    }
    if (!to.destroyed) to.write(piece);
    setImmediate(writeNext);
  };
  from.on('data', (chunk: Buffer) => {
    for (let at = 0; at < chunk.length;) {
      const size = 1 + Math.floor(random() * 64);
      pieces.push(chunk.subarray(at, at + size));
      at += size;
    }
    if (!writing) {
      writing = true;
      setImmediate(writeNext);
    }
  });
  from.on('end', () => {
    ended = true;
    if (!writing) to.end();
  });
  from.on('close', () => {
    if (!ended) to.destroy();
  });
}
