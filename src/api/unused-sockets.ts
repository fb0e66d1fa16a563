import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Ends, at shutdown, the connections that never carried a request. Clients open such sockets
 * ahead of need (browsers preconnect; undici opens one when a streamed response is aborted),
 * and Node's `closeIdleConnections` leaves them alone: `server.close()` then waited until the
 * client gave up on them (4 s for undici, minutes for a browser) before the process could exit.
 * Sockets that carried a request are left to Node and fastify: in flight they finish, idle
 * keep-alive ones are closed.
 */
export function trackUnusedSockets(server: Server): { destroyAll(): void } {
  const unused = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (req: { socket: Socket }) => unused.delete(req.socket));
  return {
    destroyAll() {
      for (const socket of unused) socket.destroy();
      unused.clear();
    },
  };
}
