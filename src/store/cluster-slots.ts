/**
 * Places shared by every process on one database: at most `limit` holders of a key at once, in
 * whichever process or host they run. PostgreSQL only (store/postgres/slot-locks.ts); on SQLite
 * one supervisor counts its own limits exactly and none is needed.
 */
export interface ClusterSlots {
  /**
   * Runs `fn` holding one of the `limit` places of `key`, waiting for one first. Undefined when
   * `signal` aborted the wait: `fn` did not run.
   */
  run<T>(key: string, limit: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<{ value: T } | undefined>;
  close(): Promise<void>;
}
