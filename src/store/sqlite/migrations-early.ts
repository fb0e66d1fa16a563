import type { Migration } from './migration.js';

/** Migrations 1–7: the first schema, conversations and messages, worktree locks, run pages. */
export const earlyMigrations: readonly Migration[] = [
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
];
