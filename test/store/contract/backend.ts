import { afterEach, beforeEach } from 'vitest';
import type { OpenStoreOptions, StoreConfig } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';

/**
 * What the store contract needs from a backend: a fresh database per test, connections to it,
 * and a way to make it busy from another process. SQLite provides one (sqlite-backend.ts);
 * a PostgreSQL store provides another and runs the same contract.
 */
export interface StoreBackend {
  /** Creates an empty, migrated database for one test. */
  setUp(): Promise<StoreHarness>;
}

export interface StoreHarness {
  /** Where the database lives, for child processes that open their own store. */
  config: StoreConfig;
  /** Opens another connection to the database; `tearDown` closes it. */
  open(opts?: OpenStoreOptions): Store;
  /**
   * Starts another process that takes the database's write lock (so every write of the store
   * under test has to wait) and holds it until `release`.
   */
  holdWriteLock(): Promise<WriteLockHolder>;
  /** Registers something to clean up before the database is removed. */
  defer(fn: () => unknown): void;
  /** Closes every connection and process opened for the test, then removes the database. */
  tearDown(): Promise<void>;
}

export interface WriteLockHolder {
  /** Commits the holder's transaction; resolves once the lock is free. */
  release(): Promise<void>;
}

/** Gives each test of the enclosing `describe` its own database; returns a getter for it. */
export function useHarness(backend: StoreBackend): () => StoreHarness {
  let harness: StoreHarness | undefined;
  beforeEach(async () => {
    harness = await backend.setUp();
  });
  afterEach(async () => {
    await harness?.tearDown();
    harness = undefined;
  });
  return () => {
    if (!harness) throw new Error('the store harness exists only inside a test');
    return harness;
  };
}
