import type { Socket } from 'node:net';

/**
 * Ends `socket` with a TCP reset, as a dead peer or a dropped route would. A socket still
 * connecting, or whose end has been sent, is destroyed plainly: libuv cannot reset a socket
 * after a shutdown (Node then never emits 'close'), and a reset would wait for the connection.
 */
export function resetSocket(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.connecting || socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}
