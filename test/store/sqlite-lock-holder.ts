/**
 * A separate process that takes the SQLite write lock (BEGIN IMMEDIATE) and holds it until told
 * to release, the way a long write transaction in another program would.
 * Protocol: sends `locked`; on `release`, commits, sends `released` and exits.
 * Usage: fork with `--import tsx`; argv: database path.
 */
import Database from 'better-sqlite3';

const [databasePath] = process.argv.slice(2);
if (!databasePath) throw new Error('usage: sqlite-lock-holder <database path>');
const db = new Database(databasePath);
db.pragma('busy_timeout = 10000');
db.exec('BEGIN IMMEDIATE');
process.on('message', (message) => {
  if ((message as { type?: string }).type !== 'release') return;
  db.exec('COMMIT');
  db.close();
  process.send?.({ type: 'released' }, () => process.exit(0));
});
process.send?.({ type: 'locked' });
