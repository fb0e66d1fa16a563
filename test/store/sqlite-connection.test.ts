import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { busyTimeoutMs, openConnection } from '../../src/store/sqlite/connection.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/**
 * What the SQLite connection settles that the contract suite cannot reach: an OS crash cannot
 * be staged in a test, so the durability choice is checked where it is made.
 */
describe('a SQLite connection', () => {
  it('syncs the log before a commit becomes visible, so a seq a reader saw survives an OS crash', () => {
    const db = openConnection(home.paths.database);
    home.defer(() => db.close());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    // 2 = FULL. NORMAL (1) lets an OS crash drop commits that readers already saw, and reuse their seqs.
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('blocks its thread only briefly on a busy database, leaving longer waits to asynchronous retries', () => {
    const db = openConnection(home.paths.database);
    home.defer(() => db.close());
    expect(db.pragma('busy_timeout', { simple: true })).toBe(busyTimeoutMs);
    expect(busyTimeoutMs).toBeLessThanOrEqual(100);
  });
});
