import type { Store } from '../store.js';
import { isBusyError } from './busy-retry.js';
import { ChangeWatch } from './change-watch.js';
import { sqliteCodebaseStore } from './codebase-store.js';
import { sqliteConversationStore } from './conversation-store.js';
import { sqliteCredentialStore } from './credential-store.js';
import { sqliteEventStore } from './event-store.js';
import { sqliteHookStore } from './hook-store.js';
import { sqliteHeartbeatStore } from './heartbeat-store.js';
import { sqliteJobStore } from './job-store.js';
import { sqliteNodeSessionStore } from './node-session-store.js';
import { probeStatements } from './probe-sql.js';
import { sqliteRunStore } from './run-store.js';
import { sqliteScheduleStore } from './schedule-store.js';
import { SqliteSession, type SqliteSessionOptions } from './session.js';
import { sqliteUserPrefsStore } from './user-prefs-store.js';
import { sqliteRunFileStore } from './run-file-store.js';
import { sqliteGitHubWriteStore } from './github-write-store.js';

export interface SqliteStoreOptions extends SqliteSessionOptions {
  /** Fallback poll interval of the change watch. */
  pollMs?: number;
  /** The supervisor whose writes for a run are fenced by its ownership (store/rules/write-fence.ts). */
  writer?: string;
}

/**
 * The SQLite implementation of Store: one better-sqlite3 connection, owned by one thread, shared
 * by the aggregate stores composed here.
 */
export function openSqliteStore(opts: SqliteStoreOptions): Store {
  const session = new SqliteSession(opts);
  const changes = new ChangeWatch(session.db, opts.path, opts.pollMs ?? 500);
  const probe = probeStatements(session.db);
  return {
    ...sqliteRunStore(session),
    ...sqliteJobStore(session, opts.writer),
    ...sqliteEventStore(session, opts.writer),
    ...sqliteHeartbeatStore(session),
    ...sqliteCodebaseStore(session, opts.writer),
    ...sqliteConversationStore(session),
    ...sqliteNodeSessionStore(session, opts.writer),
    ...sqliteUserPrefsStore(session),
    ...sqliteRunFileStore(session),
    ...sqliteCredentialStore(session),
    ...sqliteScheduleStore(session),
    ...sqliteHookStore(session),
    ...sqliteGitHubWriteStore(session),

    // One try each, no retry: a health probe reports a stuck database instead of waiting it out.
    // A database that answers reads can still refuse every write (a full disk), so the probe
    // commits a write too; a database busy with another writer is taking writes, and passes.
    ping: async () => {
      session.db.prepare('SELECT 1').get();
      try {
        session.writeOnce('write the health probe', () => probe.touch(session.now()));
      } catch (err) {
        if (!isBusyError(err)) throw err;
      }
    },

    close: async () => {
      changes.stop();
      session.close();
    },

    onChange: (listener) => changes.subscribe(listener),
  };
}
