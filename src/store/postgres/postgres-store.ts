import type { Store } from '../store.js';
import { ChangeListen } from './change-listen.js';
import { pgCodebaseStore } from './codebase-store.js';
import { pgConversationStore } from './conversation-store.js';
import { pgCredentialStore } from './credential-store.js';
import { pgEventStore } from './event-store.js';
import { pgHookStore } from './hook-store.js';
import { pgHeartbeatStore } from './heartbeat-store.js';
import { pgJobStore } from './job-store.js';
import { pgNodeSessionStore } from './node-session-store.js';
import { pgRunStore } from './run-store.js';
import { pgScheduleStore } from './schedule-store.js';
import { PgSession, type PgSessionOptions } from './session.js';
import { pgUserPrefsStore } from './user-prefs-store.js';
import { pgRunFileStore } from './run-file-store.js';
import { pgGitHubWriteStore } from './github-write-store.js';

export interface PostgresStoreOptions extends PgSessionOptions {
  /** Fallback poll interval of the change notification. */
  pollMs?: number;
  /** The supervisor whose writes for a run are fenced by its ownership (store/rules/write-fence.ts). */
  writer?: string;
}

/**
 * The PostgreSQL implementation of Store: a pool of connections per Store (each process and
 * worker thread opens its own), shared by the aggregate stores composed here. Its schema is
 * migrated on first use (migrations.ts).
 */
export function openPostgresStore(opts: PostgresStoreOptions): Store {
  const session = new PgSession(opts);
  const changes = new ChangeListen(session, opts.pollMs ?? 500);
  return {
    ...pgRunStore(session),
    ...pgJobStore(session, opts.writer),
    ...pgEventStore(session, opts.writer),
    ...pgHeartbeatStore(session),
    ...pgCodebaseStore(session, opts.writer),
    ...pgConversationStore(session),
    ...pgNodeSessionStore(session, opts.writer),
    ...pgUserPrefsStore(session),
    ...pgRunFileStore(session),
    ...pgCredentialStore(session),
    ...pgScheduleStore(session),
    ...pgHookStore(session),
    ...pgGitHubWriteStore(session),

    // One try, no retry: a health probe reports a stuck or unreachable database instead of
    // waiting. It commits a write too: a server that answers reads can still refuse writes.
    ping: async () => {
      await session.once(async (q) => {
        await q('BEGIN');
        await q(`SET LOCAL lock_timeout = '1s'`);
        try {
          await q('INSERT INTO store_probe (id, probed_at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at', [session.now()]);
          await q('COMMIT');
        } catch (err) {
          await q('ROLLBACK').catch(() => {});
          // A table another session keeps locked is a busy database: it is taking writes.
          if ((err as { code?: string }).code !== '55P03') throw err;
        }
      });
    },

    close: async () => {
      changes.close();
      await session.close();
    },

    onChange: (listener) => changes.subscribe(listener),
  };
}
