import { createServer, connect, type Socket } from 'node:net';

/** A TCP hop in front of a PostgreSQL server that can lose one answer, as a cut connection does. */
export interface AnswerCuttingProxy {
  /** `postgres://…` of the server, through the proxy. */
  url: string;
  /**
   * Arms the proxy: the next message from a client that contains `marker` (a statement's text
   * or its prepared name) reaches the server, which answers it in full (its commit done); then
   * that connection is cut, both ways, before any of the answer reaches the client.
   */
  cutAnswerTo(marker: string): void;
  /** How many answers were cut. */
  readonly cuts: number;
  close(): Promise<void>;
}

/** ReadyForQuery with its length: the server has finished the query (and any implicit commit). */
const READY = Buffer.from([0x5a, 0, 0, 0, 5]);

export async function startAnswerCuttingProxy(serverUrl: string): Promise<AnswerCuttingProxy> {
  const target = new URL(serverUrl);
  let marker: string | undefined;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const server = connect(Number(target.port), target.hostname);
    sockets.add(client).add(server);
    let held: Buffer[] | undefined;
    client.on('data', (d) => {
      if (marker !== undefined && d.toString('latin1').includes(marker)) {
        marker = undefined;
        held = [];
      }
      server.write(d);
    });
    server.on('data', (d) => {
      if (!held) return client.write(d);
      held.push(d);
      const answer = Buffer.concat(held);
      // Cut only once the whole answer is in: the last message is ReadyForQuery (its status byte after it).
      if (answer.length >= 6 && answer.subarray(-6, -1).equals(READY)) {
        cuts += 1;
        client.destroy();
        server.destroy();
      }
    });
    for (const s of [client, server]) s.on('error', () => {}).on('close', () => (client.destroy(), server.destroy()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((proxy.address() as { port: number }).port);
  return {
    url: url.toString(),
    cutAnswerTo: (m) => void (marker = m),
    get cuts() {
      return cuts;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}
