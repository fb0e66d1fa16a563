import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { pgDriver } from './pg-driver.js';
import { CairnError } from '../../shared/errors.js';
import { clockNow } from '../../shared/clock.js';
import { redactDatabaseUrl } from '../store-config.js';
import { migrate } from './migrate.js';
import { decodeRow, encodeParams } from './nul-codec.js';
import { SERVER_KEEPALIVE_SQL } from './server-keepalive.js';

/** A row as the driver answers it (bigint columns already numbers: see `types`). */
export type Row = Record<string, unknown>;

/**
 * Runs one statement with positional parameters ($1, $2, ...) and answers its rows. A `name`
 * makes it a prepared statement of each connection, parsed and planned once (for the hot
 * statements only: a connection keeps every statement it was given a name for).
 */
export type Query = (sql: string, params?: readonly unknown[], name?: string) => Promise<Row[]>;

/** A read `writeThenRead` sends with the COMMIT: its SQL (no parameters), and what it answers from the rows. */
export interface ReadAfterCommit<T, R> {
  sql(result: T): string | undefined;
  take(result: T, rows: Row[]): R;
}

export interface PgSessionOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Milliseconds since the epoch; injectable so lease expiry can be tested without waiting. */
  clock?: () => number;
  /** How long an operation keeps retrying an unreachable or locked database before STORE_UNAVAILABLE. */
  busyBudgetMs?: number;
  /** Connections of this store's pool (default 4: each process and worker thread opens its own store). */
  maxConnections?: number;
}

export const defaultBusyBudgetMs = 30_000;

/** The channel every writing transaction notifies (change-listen.ts listens on it). */
export const CHANGE_CHANNEL = 'cairn_store_changes';

/** The notification a `statement` that changed rows selects, once per changed row it returns. */
export const NOTIFY_CHANGE = `pg_notify('${CHANGE_CHANNEL}', '')`;

/**
 * How long one try waits for a lock another transaction holds before it is rolled back and
 * retried: long enough for an ordinary row-lock wait, short enough that a closed store or an
 * exhausted budget is noticed soon.
 */
const LOCK_TIMEOUT_MS = 500;

/** bigint (int8) columns as JavaScript numbers: ids and seqs stay far below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pgDriver().types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** SQLSTATEs of a try worth repeating: a lock wait past lock_timeout, a deadlock, a serialization failure, a server going away. */
const retryableCodes = new Set(['55P03', '40P01', '40001', '57P01', '57P02', '57P03', '53300']);
/** A named statement missing, or there already, on the server connection a pooler handed over: tried again unnamed. */
const preparedGoneCodes = new Set(['26000', '42P05']);
/**
 * Errors of a server out of reach. A network split shows as any of the unreachable ones (a host
 * whose interface or route to the server is gone answers ENETUNREACH, ENETDOWN or EHOSTDOWN):
 * waited out like a server restart, never taken as the operation's own failure.
 */
const connectionCodes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
]);

/** Whether `err` says the server could not be reached (or the connection to it broke). */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (connectionCodes.has(code) || code.startsWith('08'))) return true;
  const message = (err as Error | null)?.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

/** A transaction whose COMMIT's answer was lost, and whose session the server still runs. */
class CommitUnsure extends Error {
  constructor(which: string) {
    super(`the outcome of the transaction ${which}, whose commit was sent before the connection broke, is not known yet`);
  }
}

function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && (retryableCodes.has(code) || preparedGoneCodes.has(code))) || isConnectionError(err) || err instanceof CommitUnsure;
}

/**
 * One store's pool of connections to a PostgreSQL database, and the two doors every statement
 * goes through: `read` and `write` (one transaction). Both retry a database that is locked by
 * another transaction or unreachable, asynchronously, for the busy budget, then fail with
 * STORE_UNAVAILABLE naming the server (never its password). The schema is migrated on first use.
 */
export class PgSession {
  readonly pool: pg.Pool;
  readonly url: string;
  private readonly clock: () => number;
  private readonly closing = new AbortController();
  private readonly budgetMs: number;
  private migrated: Promise<void> | undefined;
  /** Whether statements given a name are prepared (queryOf). */
  private prepares = true;
  /** The pool's end, once closing: an operation cut short by the close fails after it (close settles first). */
  private ended: Promise<void> | undefined;

  constructor(opts: PgSessionOptions) {
    this.url = opts.url;
    this.clock = opts.clock ?? clockNow;
    this.budgetMs = opts.busyBudgetMs ?? defaultBusyBudgetMs;
    this.pool = new (pgDriver().Pool)({
      connectionString: opts.url,
      max: opts.maxConnections ?? 4,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      types,
      application_name: 'cairn',
    });
    // A connection the server drops (a restart, a cut network) must not crash the process. An
    // idle one is the pool's ('error' on the pool); one in use emits 'error' on itself too, and
    // an 'error' event nobody listens to is thrown: the statement it was running fails anyway,
    // and the operation is tried again on a new connection.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => {
      client.on('error', () => {});
      // Queued before the statement the connection was opened for. A network split then ends
      // this connection's session on the server within 15 s (server-keepalive.ts), rolling back
      // a transaction it cut off, rather than keeping its locks for hours. Refused (a pooler
      // that keeps no session), the connection serves all the same.
      client.query(SERVER_KEEPALIVE_SQL).catch(() => {});
    });
  }

  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** The clock's time, plus `offsetMs`, as an ISO string (how every timestamp is stored). */
  now(offsetMs = 0): string {
    return new Date(this.clock() + offsetMs).toISOString();
  }

  /** Runs the read `fn` on one connection, retrying while the database is unreachable. */
  read<T>(what: string, fn: (q: Query) => Promise<T>): Promise<T> {
    return this.retrying(what, async (client) => fn(this.queryOf(client)));
  }

  /**
   * Runs `fn` in one transaction and notifies the change channel with its commit. `fn` may run
   * more than once (a lock wait past the timeout, a deadlock, a lost connection roll the try
   * back), so it must not have effects outside the database.
   */
  write<T>(what: string, fn: (q: Query) => Promise<T>): Promise<T> {
    return this.transact(what, fn, undefined);
  }

  /**
   * `write`, then a read of what the commit made (event seqs are handed out at commit), sent with
   * the COMMIT in the same round trip. `after` answers the read's SQL for the write's result, or
   * undefined for none; it has no parameters, so it may quote only numbers.
   */
  writeThenRead<T, R>(what: string, fn: (q: Query) => Promise<T>, after: ReadAfterCommit<T, R>): Promise<R> {
    return this.transact(what, fn, after);
  }

  private transact<T, R>(what: string, fn: (q: Query) => Promise<T>, after: ReadAfterCommit<T, R> | undefined): Promise<R> {
    /**
     * A try whose COMMIT was sent but whose answer never came (the connection broke: a restart,
     * a cut network): it may have committed. The next try asks the server first, by the
     * transaction's id, rather than write it all again (an event twice, a node's end twice).
     */
    let unsure: { xid: string; result: T } | undefined;
    const finish = async (client: pg.PoolClient, result: T, afterCommit?: readonly pg.QueryResult[]): Promise<R> => {
      if (!after) return result as unknown as R;
      const sql = after.sql(result);
      if (sql === undefined) return after.take(result, []);
      const rows = afterCommit ? (afterCommit.at(-1)!.rows as Row[]) : (await client.query(sql)).rows as Row[];
      return after.take(result, rows.map(decodeRow));
    };
    return this.retrying(what, async (client) => {
      if (unsure) {
        const { rows } = await client.query('SELECT pg_xact_status($1::xid8) AS status', [unsure.xid]);
        const status = rows[0]?.status as string | null;
        if (status === 'committed') return finish(client, unsure.result);
        // Its session has not ended yet (the server has not noticed the cut): ask again shortly.
        if (status === 'in progress') throw new CommitUnsure(unsure.xid);
        unsure = undefined; // rolled back: try again
      }
      const begun = (await client.query(
        `BEGIN; SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms'; SELECT pg_current_xact_id()::text AS xid`,
      )) as unknown as pg.QueryResult[];
      const xid = begun.at(-1)!.rows[0]!.xid as string;
      try {
        const result = await fn(this.queryOf(client));
        const read = after?.sql(result);
        let committed: pg.QueryResult[];
        try {
          committed = (await client.query(`SELECT pg_notify('${CHANGE_CHANNEL}', ''); COMMIT${read === undefined ? '' : `; ${read}`}`)) as unknown as pg.QueryResult[];
        } catch (err) {
          if (isRetryable(err)) unsure = { xid, result };
          throw err;
        }
        return finish(client, result, read === undefined ? undefined : committed);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    });
  }

  /**
   * Runs `fn`, which sends exactly one statement, in that statement's own implicit transaction:
   * one round trip, where `write` takes three more (BEGIN, and the notification with COMMIT). A
   * statement that changes rows notifies the change channel itself (NOTIFY_CHANGE), so its
   * commit wakes the listeners as a write's does. Locks wait at most LOCK_TIMEOUT_MS, as in a
   * write (set once per connection). Retried as a write is; when a try's answer was lost with
   * its connection, the statement may have committed, so `settle`, when given, is asked first on
   * the next try and its answer taken if it finds that commit (a claim finds the job it leased).
   */
  statement<T>(what: string, fn: (q: Query) => Promise<T>, settle?: (q: Query) => Promise<T | undefined>): Promise<T> {
    /** The server process of the try whose answer was lost: its statement may still be running. */
    let lostOn: number | undefined;
    return this.retrying(what, async (client) => {
      const q = this.queryOf(client);
      if (!timedClients.has(client)) {
        await client.query(`SET lock_timeout = '${LOCK_TIMEOUT_MS}ms'`);
        timedClients.add(client);
      }
      if (lostOn !== undefined && settle) {
        // Asked only once that statement has ended (committed or not), or its commit would be missed.
        const [running] = await q(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`, [lostOn]);
        if (running) throw new CommitUnsure(`of server process ${lostOn}`);
        const settled = await settle(q);
        if (settled !== undefined) return settled;
      }
      lostOn = undefined;
      try {
        return await fn(q);
      } catch (err) {
        if (isConnectionError(err)) lostOn = (client as unknown as { processID?: number }).processID ?? 0;
        throw err;
      }
    });
  }

  /** One try, no retry: for the health probe, which reports a stuck database rather than wait. */
  async once<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await this.migrateOnce(client);
      return await fn(this.queryOf(client));
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closing.abort();
    this.ended = this.pool.end().catch(() => {});
    await this.ended;
  }

  /**
   * Statements go through the NUL escape (nul-codec.ts) both ways. A pooler in transaction mode
   * without prepared statement support hands a connection's statements to others: a named one
   * is then missing (26000) or already there (42P05), and this session names none from then on
   * (the try is repeated, as for a lost connection).
   */
  private queryOf(client: pg.PoolClient): Query {
    return async (sql, params = [], name) => {
      const values = encodeParams(params);
      const named = name !== undefined && this.prepares;
      try {
        const result = await (named ? client.query({ name, text: sql, values }) : client.query(sql, values));
        return (result.rows as Row[]).map(decodeRow);
      } catch (err) {
        if (named && preparedGoneCodes.has((err as { code?: unknown } | null)?.code as string)) this.prepares = false;
        throw err;
      }
    };
  }

  private async migrateOnce(client: pg.PoolClient): Promise<void> {
    this.migrated ??= migrate(client).catch((err: unknown) => {
      this.migrated = undefined;
      throw err;
    });
    await this.migrated;
  }

  private async retrying<T>(what: string, attempt: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const started = performance.now();
    for (let tries = 1; ; tries++) {
      if (this.closed) throw this.unavailable(what, tries, 0, undefined, true);
      let client: pg.PoolClient | undefined;
      let broken = false;
      try {
        client = await this.pool.connect();
        await this.migrateOnce(client);
        return await attempt(client);
      } catch (err) {
        broken = isConnectionError(err);
        if (!isRetryable(err)) throw err;
        const waitedMs = Math.round(performance.now() - started);
        const leftMs = this.budgetMs - waitedMs;
        client?.release(broken);
        client = undefined;
        if (leftMs <= 0 && !this.closed) throw this.unavailable(what, tries, waitedMs, err, false);
        try {
          await sleep(Math.min(leftMs, backoffMs(tries)), undefined, { signal: this.closing.signal });
        } catch {
          // Closed while waiting.
        }
        if (this.closed) {
          await this.ended;
          throw this.unavailable(what, tries, waitedMs, err, true);
        }
      } finally {
        client?.release(broken);
      }
    }
  }

  private unavailable(what: string, tries: number, waitedMs: number, cause: unknown, closed: boolean): CairnError {
    const where = redactDatabaseUrl(this.url);
    const message = closed
      ? `The store was closed while waiting to ${what}: the PostgreSQL database at ${where} was busy or unreachable`
      : isConnectionError(cause)
        ? `Could not reach the PostgreSQL database at ${where} for ${Math.round(waitedMs / 1000)} s while trying to ${what} ` +
          `(${redact((cause as Error).message, this.url)}). Check that the server is running and that DATABASE_URL names it; ` +
          'retry later.'
        : `The PostgreSQL database at ${where} stayed locked for ${Math.round(waitedMs / 1000)} s while trying to ${what}: ` +
          'another session holds a long transaction or a table lock on it. Retry later; if it persists, find the session ' +
          'in pg_stat_activity and end its transaction.';
    return new CairnError('STORE_UNAVAILABLE', message, { what, tries, waitedMs, closed }, cause === undefined ? undefined : { cause });
  }
}

/**
 * The connections whose session has its lock_timeout set (a `statement` has no transaction to
 * SET LOCAL it in). Behind a pooler in transaction mode the setting may not follow the
 * connection: such a statement then waits for a lock as long as it is held.
 */
const timedClients = new WeakSet<pg.PoolClient>();


/** Exponential from 5 ms, capped at 250 ms, with jitter. */
function backoffMs(tries: number): number {
  const ceiling = Math.min(250, 5 * 2 ** (tries - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** A driver message with the URL's password taken out, should it ever quote it. */
function redact(message: string, url: string): string {
  let password: string;
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return message;
  }
  return password ? message.split(password).join('***') : message;
}
