import type Database from 'better-sqlite3';

/**
 * Numbered schema migrations. A migration is never edited once released: later changes append
 * a new entry, so older rows stay readable and an older binary can still open the file.
 */
export const migrations: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'runs, jobs, events, heartbeats',
    sql: `
      CREATE TABLE workflow_runs (
        id               TEXT PRIMARY KEY,
        workflow_name    TEXT NOT NULL,
        status           TEXT NOT NULL,
        conversation_id  TEXT NOT NULL,
        codebase_id      TEXT,
        working_path     TEXT,
        user_message     TEXT NOT NULL DEFAULT '',
        inputs           TEXT NOT NULL DEFAULT '{}',
        metadata         TEXT NOT NULL DEFAULT '{}',
        definition       TEXT NOT NULL,
        error            TEXT,
        parent_run_id    TEXT,
        owner_id         TEXT,
        lease_expires_at TEXT,
        created_at       TEXT NOT NULL,
        started_at       TEXT,
        completed_at     TEXT,
        last_activity_at TEXT NOT NULL
      );
      CREATE INDEX workflow_runs_status ON workflow_runs (status);
      CREATE INDEX workflow_runs_conversation ON workflow_runs (conversation_id);
      CREATE INDEX workflow_runs_created ON workflow_runs (created_at);

      CREATE TABLE jobs (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        kind             TEXT NOT NULL,
        run_id           TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        payload          TEXT NOT NULL DEFAULT '{}',
        status           TEXT NOT NULL DEFAULT 'queued',
        lease_owner      TEXT,
        lease_expires_at TEXT,
        result           TEXT,
        created_at       TEXT NOT NULL
      );
      CREATE INDEX jobs_open ON jobs (id) WHERE status <> 'done';
      CREATE INDEX jobs_run ON jobs (run_id);

      -- AUTOINCREMENT: a seq is never reused, even after a run's events are deleted, so an SSE
      -- client's Last-Event-ID can never point at a different row.
      CREATE TABLE events (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id           TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        conversation_id  TEXT NOT NULL,
        event_type       TEXT NOT NULL,
        step_name        TEXT,
        data             TEXT NOT NULL,
        created_at       TEXT NOT NULL
      );
      CREATE INDEX events_run ON events (run_id, seq);
      CREATE INDEX events_conversation ON events (conversation_id, seq);

      CREATE TABLE supervisor_heartbeats (
        id           TEXT PRIMARY KEY,
        pid          INTEGER NOT NULL,
        hostname     TEXT NOT NULL,
        started_at   TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL,
        state        TEXT NOT NULL,
        concurrency  TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'cancel intent on runs; attempt count and last error on jobs',
    sql: `
      -- Set in the transaction that claims a cancel_run job: whoever drives the run next (a
      -- take-over after a crash included) cancels it instead of resuming it.
      ALTER TABLE workflow_runs ADD COLUMN cancel_requested_at TEXT;
      -- How many times the job was claimed, and why its last attempt failed: a job that keeps
      -- failing (or keeps killing its supervisor) is given up after a bounded number of claims.
      ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN last_error TEXT;
    `,
  },
  {
    version: 3,
    name: 'one terminal event per attempt',
    sql: `
      -- The attempt a node_completed / node_failed event ends; at most one such event per attempt.
      ALTER TABLE events ADD COLUMN ends_attempt TEXT;
      CREATE UNIQUE INDEX events_one_end_per_attempt ON events (ends_attempt) WHERE ends_attempt IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: 'codebases and isolation environments',
    sql: `
      -- id is owner/repo (from the remote URL) or local/<folder>@<hash> (no remote).
      -- managed = 1: Cairn cloned it under $CAIRN_HOME/workspaces and deletes it with the row.
      CREATE TABLE codebases (
        id               TEXT PRIMARY KEY,
        name             TEXT NOT NULL,
        repository_url   TEXT,
        default_cwd      TEXT NOT NULL,
        default_branch   TEXT,
        kind             TEXT NOT NULL,
        managed          INTEGER NOT NULL DEFAULT 0,
        allow_env_keys   INTEGER NOT NULL DEFAULT 0,
        env_scan         TEXT NOT NULL,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL
      );

      CREATE TABLE isolation_environments (
        id                  TEXT PRIMARY KEY,
        codebase_id         TEXT NOT NULL REFERENCES codebases (id) ON DELETE CASCADE,
        workflow_type       TEXT NOT NULL,
        workflow_id         TEXT NOT NULL,
        provider            TEXT NOT NULL DEFAULT 'worktree',
        working_path        TEXT NOT NULL,
        branch_name         TEXT,
        created_by_platform TEXT,
        metadata            TEXT NOT NULL DEFAULT '{}',
        status              TEXT NOT NULL DEFAULT 'active',
        created_at          TEXT NOT NULL,
        updated_at          TEXT NOT NULL
      );
      CREATE INDEX isolation_environments_codebase ON isolation_environments (codebase_id, created_at);
      CREATE UNIQUE INDEX isolation_environments_one_active
        ON isolation_environments (codebase_id, workflow_type, workflow_id) WHERE status = 'active';
    `,
  },
  {
    version: 5,
    name: 'conversations and messages; jobs and events of a conversation without a run',
    sql: `
      -- platform_conversation_id is the handle of routes, streams and runs; unique on its own
      -- (every platform id Cairn makes carries its platform's prefix).
      CREATE TABLE conversations (
        id                       TEXT PRIMARY KEY,
        platform_type            TEXT NOT NULL DEFAULT 'web',
        platform_conversation_id TEXT NOT NULL UNIQUE,
        ai_assistant_type        TEXT NOT NULL DEFAULT 'claude',
        codebase_id              TEXT REFERENCES codebases (id) ON DELETE SET NULL,
        cwd                      TEXT,
        isolation_env_id         TEXT,
        title                    TEXT,
        hidden                   INTEGER NOT NULL DEFAULT 0,
        deleted_at               TEXT,
        user_id                  TEXT,
        created_at               TEXT NOT NULL,
        updated_at               TEXT NOT NULL,
        last_activity_at         TEXT NOT NULL
      );
      CREATE INDEX conversations_activity ON conversations (last_activity_at DESC, id);

      -- id: AUTOINCREMENT, so it grows in insert order and is never reused: the history order and
      -- the paging cursor (timestamps tie).
      CREATE TABLE messages (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        role            TEXT NOT NULL,
        content         TEXT NOT NULL,
        metadata        TEXT NOT NULL DEFAULT '{}',
        user_id         TEXT,
        created_at      TEXT NOT NULL
      );
      CREATE INDEX messages_conversation ON messages (conversation_id, id);

      -- A chat turn is a job of a conversation, not of a run: run_id becomes optional and
      -- conversation_id names the conversation (its platform id). SQLite cannot drop a NOT NULL,
      -- so the table is rebuilt with its rows, ids and AUTOINCREMENT counter.
      CREATE TABLE jobs_new (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        kind             TEXT NOT NULL,
        run_id           TEXT REFERENCES workflow_runs (id) ON DELETE CASCADE,
        conversation_id  TEXT,
        payload          TEXT NOT NULL DEFAULT '{}',
        status           TEXT NOT NULL DEFAULT 'queued',
        lease_owner      TEXT,
        lease_expires_at TEXT,
        result           TEXT,
        created_at       TEXT NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        last_error       TEXT
      );
      INSERT INTO jobs_new (id, kind, run_id, payload, status, lease_owner, lease_expires_at, result,
        created_at, attempts, last_error)
        SELECT id, kind, run_id, payload, status, lease_owner, lease_expires_at, result, created_at,
          attempts, last_error FROM jobs;
      DELETE FROM sqlite_sequence WHERE name = 'jobs_new';
      INSERT INTO sqlite_sequence (name, seq) SELECT 'jobs_new', seq FROM sqlite_sequence WHERE name = 'jobs';
      DROP TABLE jobs;
      ALTER TABLE jobs_new RENAME TO jobs;
      CREATE INDEX jobs_open ON jobs (id) WHERE status <> 'done';
      CREATE INDEX jobs_run ON jobs (run_id);
      CREATE INDEX jobs_conversation ON jobs (conversation_id, id) WHERE conversation_id IS NOT NULL;

      -- Chat events (conversation_lock, text) belong to a conversation and no run: run_id
      -- becomes optional. The AUTOINCREMENT counter is carried over, so no seq is ever reused.
      CREATE TABLE events_new (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id           TEXT REFERENCES workflow_runs (id) ON DELETE CASCADE,
        conversation_id  TEXT NOT NULL,
        event_type       TEXT NOT NULL,
        step_name        TEXT,
        data             TEXT NOT NULL,
        created_at       TEXT NOT NULL,
        ends_attempt     TEXT
      );
      INSERT INTO events_new (seq, run_id, conversation_id, event_type, step_name, data, created_at, ends_attempt)
        SELECT seq, run_id, conversation_id, event_type, step_name, data, created_at, ends_attempt FROM events;
      DELETE FROM sqlite_sequence WHERE name = 'events_new';
      INSERT INTO sqlite_sequence (name, seq) SELECT 'events_new', seq FROM sqlite_sequence WHERE name = 'events';
      DROP TABLE events;
      ALTER TABLE events_new RENAME TO events;
      CREATE INDEX events_run ON events (run_id, seq);
      CREATE INDEX events_conversation ON events (conversation_id, seq);
      CREATE UNIQUE INDEX events_one_end_per_attempt ON events (ends_attempt) WHERE ends_attempt IS NOT NULL;
    `,
  },
  {
    version: 6,
    name: 'worktree locks on isolation environments',
    sql: `
      -- A lock is a lease: the run using the environment, the supervisor driving that run, and
      -- when the lock lapses unless renewed (renewed with the run's lease, released at the run's
      -- terminal transition). A crashed supervisor's lock lapses with its lease.
      ALTER TABLE isolation_environments ADD COLUMN locked_by_run TEXT;
      ALTER TABLE isolation_environments ADD COLUMN lock_owner TEXT;
      ALTER TABLE isolation_environments ADD COLUMN lock_expires_at TEXT;
      CREATE INDEX isolation_environments_locked_by_run
        ON isolation_environments (locked_by_run) WHERE locked_by_run IS NOT NULL;
      -- One active environment per branch of a codebase: the same branch asked for twice is
      -- refused, never two runs in one directory.
      CREATE UNIQUE INDEX isolation_environments_one_branch
        ON isolation_environments (codebase_id, branch_name)
        WHERE status = 'active' AND branch_name IS NOT NULL;
      -- workflow_runs.codebase_id exists since migration 1; runs are now bound to codebases.
      CREATE INDEX workflow_runs_codebase ON workflow_runs (codebase_id) WHERE codebase_id IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: 'indexes for run list pages and the dashboard',
    sql: `
      -- Every run list and dashboard page is newest first (created_at DESC, rowid DESC) under at
      -- most one equality filter; each filter has an index ending in created_at, so a page is an
      -- index range walk, never a sort of the table. The single-column indexes they extend go.
      DROP INDEX IF EXISTS workflow_runs_status;
      DROP INDEX IF EXISTS workflow_runs_conversation;
      DROP INDEX IF EXISTS workflow_runs_codebase;
      CREATE INDEX IF NOT EXISTS workflow_runs_status_created ON workflow_runs (status, created_at);
      CREATE INDEX IF NOT EXISTS workflow_runs_conversation_created ON workflow_runs (conversation_id, created_at);
      CREATE INDEX IF NOT EXISTS workflow_runs_codebase_created
        ON workflow_runs (codebase_id, created_at) WHERE codebase_id IS NOT NULL;
      CREATE INDEX IF NOT EXISTS workflow_runs_workflow_created ON workflow_runs (workflow_name, created_at);

      -- Runs per status, kept by triggers in the transaction that changes a run: the dashboard's
      -- unfiltered counts are then a read of a few rows, not a count of every run (measured:
      -- ~20 ms for 100,000 runs on a 2-core machine, against the 20 ms budget of a whole page).
      CREATE TABLE workflow_run_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO workflow_run_counts (status, n) SELECT status, COUNT(*) FROM workflow_runs GROUP BY status;
      CREATE TRIGGER workflow_run_counts_insert AFTER INSERT ON workflow_runs BEGIN
        INSERT INTO workflow_run_counts (status, n) VALUES (NEW.status, 1)
          ON CONFLICT (status) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER workflow_run_counts_delete AFTER DELETE ON workflow_runs BEGIN
        UPDATE workflow_run_counts SET n = n - 1 WHERE status = OLD.status;
      END;
      CREATE TRIGGER workflow_run_counts_status AFTER UPDATE OF status ON workflow_runs
        WHEN OLD.status IS NOT NEW.status BEGIN
        UPDATE workflow_run_counts SET n = n - 1 WHERE status = OLD.status;
        INSERT INTO workflow_run_counts (status, n) VALUES (NEW.status, 1)
          ON CONFLICT (status) DO UPDATE SET n = n + 1;
      END;
    `,
  },
  {
    version: 8,
    name: 'not-before jobs (a sleeping run\'s wake-up)',
    sql: `
      -- A job with not_before is not claimed before that moment (a long wait's wake_run job).
      ALTER TABLE jobs ADD COLUMN not_before TEXT;
      -- The claim looks at jobs due now through two small indexes: open jobs without a moment
      -- (in id order), and open jobs with one (by moment), so jobs sleeping until later cost a
      -- claim nothing, and the next moment to wake for is the first entry of the second index.
      CREATE INDEX IF NOT EXISTS jobs_open_now ON jobs (id) WHERE status <> 'done' AND not_before IS NULL;
      CREATE INDEX IF NOT EXISTS jobs_open_later ON jobs (not_before, id) WHERE status <> 'done' AND not_before IS NOT NULL;
    `,
  },
  {
    version: 9,
    name: 'trigram search over run workflow names and messages',
    sql: `
      -- The dashboard's search is a case-insensitive substring of workflow_name or user_message.
      -- A LIKE over every run reads the whole table (~90 ms at 100,000 runs); a trigram index
      -- answers a search of 3 characters or more from the runs that hold it (run-pages-sql.ts).
      -- Keyed by the run's rowid. Contentless: the text stays in workflow_runs only; the run's
      -- status is kept beside it (UNINDEXED) so the per-status counts of a search read this
      -- table alone. Kept by triggers in the transaction that writes the run.
      CREATE VIRTUAL TABLE workflow_runs_search USING fts5 (
        workflow_name, user_message, status UNINDEXED,
        tokenize = 'trigram case_sensitive 0', content = '', contentless_delete = 1, contentless_unindexed = 1
      );
      INSERT INTO workflow_runs_search (rowid, workflow_name, user_message, status)
        SELECT rowid, workflow_name, user_message, status FROM workflow_runs;
      CREATE TRIGGER workflow_runs_search_insert AFTER INSERT ON workflow_runs BEGIN
        INSERT INTO workflow_runs_search (rowid, workflow_name, user_message, status)
          VALUES (NEW.rowid, NEW.workflow_name, NEW.user_message, NEW.status);
      END;
      CREATE TRIGGER workflow_runs_search_delete AFTER DELETE ON workflow_runs BEGIN
        DELETE FROM workflow_runs_search WHERE rowid = OLD.rowid;
      END;
      CREATE TRIGGER workflow_runs_search_update AFTER UPDATE OF workflow_name, user_message, status ON workflow_runs
        WHEN OLD.workflow_name IS NOT NEW.workflow_name OR OLD.user_message IS NOT NEW.user_message
          OR OLD.status IS NOT NEW.status BEGIN
        DELETE FROM workflow_runs_search WHERE rowid = OLD.rowid;
        INSERT INTO workflow_runs_search (rowid, workflow_name, user_message, status)
          VALUES (NEW.rowid, NEW.workflow_name, NEW.user_message, NEW.status);
      END;
    `,
  },
  {
    version: 10,
    name: 'run node counts and a covering index for short dashboard searches',
    sql: `
      -- The dashboard shows each run's node count; reading it from the definition parsed every
      -- definition on a page (a 10,000-node run's is megabytes). Kept here, written with the
      -- definition.
      ALTER TABLE workflow_runs ADD COLUMN node_count INTEGER NOT NULL DEFAULT 0;
      UPDATE workflow_runs SET node_count = COALESCE(json_array_length(definition, '$.nodes'), 0);
      -- A search under 3 characters cannot use the trigram index: it reads every run. Read from
      -- this index, that is a scan of the searched texts alone (about 6x less than the rows with
      -- their definitions and metadata), in date order for the page.
      CREATE INDEX workflow_runs_text ON workflow_runs (created_at, status, workflow_name, user_message);
    `,
  },
  {
    version: 11,
    name: 'private provider session handles per run and node',
    sql: `
      -- The session an unfinished AI attempt left, for the node's next attempt to continue
      -- (store/node-sessions.ts). Gone with its run.
      CREATE TABLE run_node_sessions (
        run_id TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        provider TEXT NOT NULL,
        session_id TEXT NOT NULL,
        attempt_id TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (run_id, path)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 12,
    name: 'run users and per-user AI preferences',
    sql: `
      -- The X-Service-User of the request that created the run (conversations and messages
      -- have had user_id since migration 5). NULL: no identity.
      ALTER TABLE workflow_runs ADD COLUMN user_id TEXT;
      -- A user's raw preference layer (tiers, aliases, default provider and model) as JSON.
      CREATE TABLE IF NOT EXISTS user_ai_prefs (
        user_id    TEXT PRIMARY KEY,
        prefs      TEXT NOT NULL DEFAULT '{}',
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 13,
    name: 'per-user provider credentials',
    sql: `
      -- One credential per user and vendor (credentials/). Both secrets are sealed with the install
      -- key (cairn:v1:...), never stored in plain text; expires_at is the OAuth access token's end.
      CREATE TABLE provider_credentials (
        user_id        TEXT NOT NULL,
        vendor         TEXT NOT NULL,
        kind           TEXT NOT NULL CHECK (kind IN ('api_key', 'oauth')),
        label          TEXT NOT NULL,
        sealed_secret  TEXT NOT NULL CHECK (sealed_secret LIKE 'cairn:%'),
        sealed_refresh TEXT CHECK (sealed_refresh IS NULL OR sealed_refresh LIKE 'cairn:%'),
        expires_at     TEXT,
        created_at     TEXT NOT NULL,
        updated_at     TEXT NOT NULL,
        PRIMARY KEY (user_id, vendor)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 14,
    name: 'child runs: the parent node and child index of a run started by a workflow node',
    sql: `
      -- A child run (a \`workflow:\` node, or one item of its fan-out) names its parent run
      -- (parent_run_id, there since the first version), the parent's node path and its index in the
      -- node's items (0 for a single child). One child per (parent, node, index): creating it
      -- again (a node run again after a take-over) finds the one there is.
      ALTER TABLE workflow_runs ADD COLUMN parent_node_id TEXT;
      ALTER TABLE workflow_runs ADD COLUMN child_index INTEGER;
      CREATE UNIQUE INDEX IF NOT EXISTS workflow_runs_children
        ON workflow_runs (parent_run_id, parent_node_id, child_index) WHERE parent_run_id IS NOT NULL;
    `,
  },
];

/**
 * Applies every migration newer than the file's `user_version`, each in its own IMMEDIATE
 * transaction. The version is re-read inside the transaction, so processes that start together
 * apply each migration exactly once.
 */
export function migrate(db: Database.Database): void {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if ((db.pragma('user_version', { simple: true }) as number) >= latest) return;
  for (const migration of migrations) {
    db.transaction(() => {
      if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}
