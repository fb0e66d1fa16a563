import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore, sqliteStoreConfig } from '../../src/store/open-store.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from './fixtures.js';

/**
 * The database holds every run's messages, outputs and sealed secrets: with the usual umask (022)
 * its folder, file, WAL and shared-memory file must still be the user's alone.
 */

let home: TempHome;
let umask: number;
beforeEach(async () => {
  home = await makeTempHome();
  umask = process.umask(0o022);
});
afterEach(async () => {
  process.umask(umask);
  await home.close();
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

it('creates the database folder 0700 and the database, its WAL and its shared memory 0600', async () => {
  const database = join(home.home, 'fresh', 'db', 'cairn.sqlite');
  const store = openStore(sqliteStoreConfig(database));
  home.defer(() => store.close());
  await store.createRun(newRun());
  expect(existsSync(`${database}-wal`)).toBe(true);
  expect(modeOf(join(home.home, 'fresh'))).toBe(0o700);
  expect(modeOf(join(home.home, 'fresh', 'db'))).toBe(0o700);
  for (const file of [database, `${database}-wal`, `${database}-shm`]) expect(modeOf(file), file).toBe(0o600);
});

it('tightens the files of an older install, created 0644, when it opens them', async () => {
  const database = home.paths.database;
  const older = openStore(sqliteStoreConfig(database));
  await older.createRun(newRun());
  // Another connection keeps the WAL and shared-memory files in place while they are loosened.
  const holder = new Database(database);
  holder.prepare('SELECT count(*) FROM sqlite_master').get();
  home.defer(() => holder.close());
  await older.close();
  for (const file of [database, `${database}-wal`, `${database}-shm`]) chmodSync(file, 0o644);
  const store = openStore(sqliteStoreConfig(database));
  home.defer(() => store.close());
  for (const file of [database, `${database}-wal`, `${database}-shm`]) expect(modeOf(file), file).toBe(0o600);
  expect(await store.listRuns({ limit: 5 })).toHaveLength(1);
});
