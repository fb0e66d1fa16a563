import type pg from 'pg';
import { pgDriver } from './pg-driver.js';
import { CHANGE_CHANNEL, type PgSession } from './session.js';

/**
 * Calls listeners after a commit to the database, from any process. Two sources: LISTEN on one
 * dedicated connection (every writing transaction notifies; PostgreSQL delivers a notification
 * only once its transaction committed, so a woken listener can read the commit), and a poll of
 * the server's transaction counter (`pg_snapshot_xmax` moves when any transaction that wrote
 * anything ends) as the fallback and safety net: nothing depends on a notification arriving (a
 * pooler in transaction mode drops LISTEN, a connection breaks). Coalesced to one call per tick.
 */
export class ChangeListen {
  private readonly listeners = new Set<() => void>();
  private client: pg.Client | undefined;
  private connecting = false;
  private poll: NodeJS.Timeout | undefined;
  private scheduled = false;
  private lastXmax: string | undefined;
  private stopped = false;

  constructor(
    private readonly session: PgSession,
    private readonly pollMs: number,
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => {});
  }

  close(): void {
    this.stopped = true;
    this.stop();
  }

  private start(): void {
    if (this.stopped) return;
    void this.listen();
    this.poll = setInterval(() => void this.check(), this.pollMs);
    this.poll.unref();
  }

  /** Opens the listening connection; on failure the poll carries on, and tries again at its next tick. */
  private async listen(): Promise<void> {
    if (this.client || this.connecting || this.stopped || this.listeners.size === 0) return;
    this.connecting = true;
    const client = new (pgDriver().Client)({ connectionString: this.session.url, application_name: 'cairn-listen' });
    client.on('error', () => {
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
    });
    client.on('notification', () => this.fire());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (this.stopped || this.listeners.size === 0) {
        await client.end();
        return;
      }
      this.client = client;
      // Commits between the last look and the LISTEN would otherwise wait for the poll.
      this.fire();
    } catch {
      client.end().catch(() => {});
    } finally {
      this.connecting = false;
    }
  }

  private async check(): Promise<void> {
    if (!this.client) void this.listen();
    if (this.session.closed) return;
    try {
      const xmax = await this.session.read('look for changes', async (q) => {
        const [row] = await q('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax');
        return row!.xmax as string;
      });
      if (xmax !== this.lastXmax) {
        this.lastXmax = xmax;
        this.fire();
      }
    } catch {
      // Unreachable or closing: the next tick looks again (a timer must not throw).
    }
  }

  private fire(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    });
  }
}
