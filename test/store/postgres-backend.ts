import { afterAll } from 'vitest';
import pg from 'pg';
import { openStore, postgresStoreConfig } from '../../src/store/open-store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import type { StoreBackend, WriteLockHolder } from './contract/backend.js';

const TEMPLATE = 'cairn_template';

/**
 * A PostgreSQL StoreBackend over one cluster for the test file (started at the first test,
 * stopped after the file): a template database migrated once, and a fresh database cloned from
 * it for each test (`CREATE DATABASE ... TEMPLATE`, far cheaper than migrating each time).
 * Call at the top of a test file: it registers the cluster's stop with afterAll.
 */
export function usePostgresBackend(): StoreBackend & { cluster(): Promise<PostgresCluster> } {
  let started: Promise<PostgresCluster> | undefined;
  let databases = 0;
  const cluster = () =>
    (started ??= (async () => {
      const c = await startPostgresCluster();
      const template = openStore(postgresStoreConfig(await c.createDatabase(TEMPLATE)));
      await template.ping(); // migrates
      await template.close();
      return c;
    })());
  afterAll(async () => {
    if (started) await (await started).stop();
  });

  return {
    cluster,
    async setUp() {
      const c = await cluster();
      const name = `test_${++databases}`;
      const url = await c.createDatabase(name, TEMPLATE);
      const config = postgresStoreConfig(url);
      const cleanups: (() => unknown)[] = [];
      return {
        config,
        open(opts = {}) {
          const store = openStore(config, { pollMs: 50, ...opts });
          cleanups.push(() => store.close());
          return store;
        },
        holdWriteLock: async () => holdWriteLock(url, cleanups),
        defer: (fn) => cleanups.push(fn),
        async tearDown() {
          for (const fn of cleanups.reverse()) await fn();
          await c.admin(`DROP DATABASE "${name}" WITH (FORCE)`);
        },
      };
    },
  };
}

/**
 * Another session takes every table of the database in EXCLUSIVE mode (reads go on, every
 * write waits), as a long transaction of another program would, until `release` commits.
 */
async function holdWriteLock(url: string, cleanups: (() => unknown)[]): Promise<WriteLockHolder> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanups.push(() => client.end().catch(() => {}));
  const { rows } = await client.query<{ name: string }>(`SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'`);
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${rows.map((r) => r.name).join(', ')} IN EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
    },
  };
}
