/** One numbered schema migration of the PostgreSQL store: its SQL runs once, in its own transaction. */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The PostgreSQL schema, numbered like SQLite's but its own (PostgreSQL started at SQLite's 16th
 * version: one migration holds what SQLite reached in sixteen). Columns keep SQLite's shapes
 * (ISO timestamps and JSON as text, booleans as 0/1) so that rows read back the same through
 * the same schemas. A released migration is never edited: later changes append a new one.
 */
export const pgMigrations: readonly PgMigration[] = [
  {
    version: 1,
    name: 'the schema of SQLite migrations 1-16',
    sql: `
      CREATE TABLE workflow_runs (
        id                  TEXT PRIMARY KEY,
        -- Insertion order: the run list's cursor breaks ties of created_at with it (SQLite's rowid).
        row_seq             BIGSERIAL NOT NULL UNIQUE,
        workflow_name       TEXT NOT NULL,
        status              TEXT NOT NULL,
        conversation_id     TEXT NOT NULL,
        codebase_id         TEXT,
        working_path        TEXT,
        user_message        TEXT NOT NULL DEFAULT '',
        inputs              TEXT NOT NULL DEFAULT '{}',
        metadata            TEXT NOT NULL DEFAULT '{}',
        definition          TEXT NOT NULL,
        node_count          INTEGER NOT NULL DEFAULT 0,
        error               TEXT,
        parent_run_id       TEXT,
        parent_node_id      TEXT,
        child_index         INTEGER,
        user_id             TEXT,
        owner_id            TEXT,
        lease_expires_at    TEXT,
        cancel_requested_at TEXT,
        created_at          TEXT NOT NULL,
        started_at          TEXT,
        completed_at        TEXT,
        last_activity_at    TEXT NOT NULL
      );
      CREATE INDEX workflow_runs_created ON workflow_runs (created_at, row_seq);
      CREATE INDEX workflow_runs_status_created ON workflow_runs (status, created_at, row_seq);
      CREATE INDEX workflow_runs_conversation_created ON workflow_runs (conversation_id, created_at);
      CREATE INDEX workflow_runs_codebase_created ON workflow_runs (codebase_id, created_at) WHERE codebase_id IS NOT NULL;
      CREATE INDEX workflow_runs_workflow_created ON workflow_runs (workflow_name, created_at);
      CREATE INDEX workflow_runs_parent ON workflow_runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
      CREATE UNIQUE INDEX workflow_runs_children
        ON workflow_runs (parent_run_id, parent_node_id, child_index) WHERE parent_run_id IS NOT NULL;

      CREATE TABLE jobs (
        id               BIGSERIAL PRIMARY KEY,
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
        last_error       TEXT,
        not_before       TEXT
      );
      CREATE INDEX jobs_open_now ON jobs (id) WHERE status <> 'done' AND not_before IS NULL;
      CREATE INDEX jobs_open_later ON jobs (not_before, id) WHERE status <> 'done' AND not_before IS NOT NULL;
      CREATE INDEX jobs_run ON jobs (run_id);
      CREATE INDEX jobs_conversation ON jobs (conversation_id, id) WHERE conversation_id IS NOT NULL;

      -- seq is handed out at commit (below), never at insert: a row becomes visible with a seq
      -- greater than every seq visible before it, so a reader that remembers the last seq it saw
      -- never skips a row whose transaction committed after a later one began. id is the row's
      -- handle inside its own transaction.
      CREATE SEQUENCE events_seq;
      CREATE TABLE events (
        id               BIGSERIAL PRIMARY KEY,
        seq              BIGINT UNIQUE,
        run_id           TEXT REFERENCES workflow_runs (id) ON DELETE CASCADE,
        conversation_id  TEXT NOT NULL,
        event_type       TEXT NOT NULL,
        step_name        TEXT,
        data             TEXT NOT NULL,
        created_at       TEXT NOT NULL,
        ends_attempt     TEXT
      );
      CREATE INDEX events_run ON events (run_id, seq);
      CREATE INDEX events_conversation ON events (conversation_id, seq);
      CREATE UNIQUE INDEX events_one_end_per_attempt ON events (ends_attempt) WHERE ends_attempt IS NOT NULL;

      -- At commit (a deferred constraint trigger runs in the committing transaction, after all its
      -- statements), under one advisory lock held until the commit is visible: the next
      -- transaction to hand out seqs waits for this one's to be visible first. Only the commit of
      -- a transaction that wrote events is serialised, not its work.
      CREATE FUNCTION events_assign_seq() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        PERFORM pg_advisory_xact_lock(4242001);
        UPDATE events SET seq = nextval('events_seq') WHERE id = NEW.id;
        RETURN NULL;
      END
      $fn$;
      CREATE CONSTRAINT TRIGGER events_seq_at_commit AFTER INSERT ON events
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION events_assign_seq();

      CREATE TABLE supervisor_heartbeats (
        id           TEXT PRIMARY KEY,
        pid          INTEGER NOT NULL,
        hostname     TEXT NOT NULL,
        started_at   TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL,
        state        TEXT NOT NULL,
        concurrency  TEXT NOT NULL
      );

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
        locked_by_run       TEXT,
        lock_owner          TEXT,
        lock_expires_at     TEXT,
        created_at          TEXT NOT NULL,
        updated_at          TEXT NOT NULL
      );
      CREATE INDEX isolation_environments_codebase ON isolation_environments (codebase_id, created_at);
      CREATE UNIQUE INDEX isolation_environments_one_active
        ON isolation_environments (codebase_id, workflow_type, workflow_id) WHERE status = 'active';
      CREATE INDEX isolation_environments_locked_by_run
        ON isolation_environments (locked_by_run) WHERE locked_by_run IS NOT NULL;
      CREATE UNIQUE INDEX isolation_environments_one_branch
        ON isolation_environments (codebase_id, branch_name) WHERE status = 'active' AND branch_name IS NOT NULL;

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

      CREATE TABLE messages (
        id              BIGSERIAL PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        role            TEXT NOT NULL,
        content         TEXT NOT NULL,
        metadata        TEXT NOT NULL DEFAULT '{}',
        user_id         TEXT,
        created_at      TEXT NOT NULL
      );
      CREATE INDEX messages_conversation ON messages (conversation_id, id);

      CREATE TABLE run_node_sessions (
        run_id     TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        path       TEXT NOT NULL,
        provider   TEXT NOT NULL,
        session_id TEXT NOT NULL,
        attempt_id TEXT NOT NULL,
        completed  INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (run_id, path)
      );

      CREATE TABLE user_ai_prefs (
        user_id    TEXT PRIMARY KEY,
        prefs      TEXT NOT NULL DEFAULT '{}',
        updated_at TEXT NOT NULL
      );

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
      );

      CREATE TABLE store_probe (
        id        INTEGER PRIMARY KEY CHECK (id = 1),
        probed_at TEXT NOT NULL
      );

      -- RFC 7386 JSON merge patch over text columns holding JSON (SQLite's json_patch): objects
      -- merge key by key, null removes a key, anything else replaces.
      CREATE FUNCTION cairn_merge_patch(target jsonb, patch jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $fn$
      DECLARE
        k text;
        v jsonb;
        result jsonb;
      BEGIN
        IF patch IS NULL OR jsonb_typeof(patch) <> 'object' THEN RETURN patch; END IF;
        result := CASE WHEN target IS NOT NULL AND jsonb_typeof(target) = 'object' THEN target ELSE '{}'::jsonb END;
        FOR k, v IN SELECT * FROM jsonb_each(patch) LOOP
          IF jsonb_typeof(v) = 'null' THEN
            result := result - k;
          ELSE
            result := jsonb_set(result, ARRAY[k], cairn_merge_patch(result -> k, v));
          END IF;
        END LOOP;
        RETURN result;
      END
      $fn$;
    `,
  },
  {
    version: 2,
    name: 'schedules and the decision taken on each of their due times',
    sql: `
      -- As SQLite's migration 17: a schedule (cursor_at: the newest due time decided), and one row
      -- per decided due time under the (schedule, due time) key that makes each fire exactly once.
      CREATE TABLE schedules (
        id            TEXT PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE,
        workflow_name TEXT NOT NULL,
        codebase_id   TEXT,
        inputs        TEXT NOT NULL DEFAULT '{}',
        cron          TEXT NOT NULL,
        timezone      TEXT NOT NULL,
        overlap       TEXT NOT NULL CHECK (overlap IN ('skip', 'buffer_one', 'buffer_all', 'cancel_other', 'allow_all')),
        catch_up_ms   BIGINT NOT NULL CHECK (catch_up_ms >= 0),
        paused        INTEGER NOT NULL DEFAULT 0,
        declared_in   TEXT,
        cursor_at     TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        updated_at    TEXT NOT NULL
      );
      CREATE TABLE schedule_fires (
        schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
        due_at      TEXT NOT NULL,
        outcome     TEXT NOT NULL CHECK (outcome IN ('started', 'skipped', 'buffered', 'missed', 'failed')),
        run_id      TEXT,
        manual      INTEGER NOT NULL DEFAULT 0,
        reason      TEXT,
        decided_at  TEXT NOT NULL,
        started_at  TEXT,
        PRIMARY KEY (schedule_id, due_at)
      );
      CREATE INDEX schedule_fires_runs ON schedule_fires (schedule_id, run_id) WHERE run_id IS NOT NULL;
      CREATE INDEX schedule_fires_buffered ON schedule_fires (schedule_id, due_at) WHERE outcome = 'buffered';
    `,
  },
  {
    version: 3,
    name: 'webhooks and the deliveries they admitted',
    sql: `
      -- As SQLite's migration 18: a hook (its secret sealed), and one row per admitted delivery under
      -- the (hook, delivery id) key that makes a redelivery start no second run.
      CREATE TABLE hooks (
        id            TEXT PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE,
        workflow_name TEXT NOT NULL,
        codebase_id   TEXT,
        signature     TEXT NOT NULL CHECK (signature IN ('github', 'generic')),
        inputs        TEXT NOT NULL DEFAULT '{}',
        sealed_secret TEXT NOT NULL,
        created_at    TEXT NOT NULL
      );
      CREATE TABLE hook_deliveries (
        hook_id     TEXT NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
        delivery_id TEXT NOT NULL,
        run_id      TEXT NOT NULL,
        received_at TEXT NOT NULL,
        PRIMARY KEY (hook_id, delivery_id)
      );
    `,
  },
  {
    version: 4,
    name: 'webhook deliveries by when they were received',
    sql: `
      -- As SQLite's migration 19: the retention's prune finds the oldest deliveries without a scan.
      CREATE INDEX hook_deliveries_received ON hook_deliveries (received_at);
    `,
  },
  {
    version: 5,
    name: 'the files a run captured when it started',
    sql: `
      -- As SQLite's migration 20: each distinct content once, by hash, and the files each run captured.
      CREATE TABLE run_file_contents (
        hash    TEXT PRIMARY KEY,
        content TEXT NOT NULL,
        bytes   BIGINT NOT NULL
      );
      CREATE TABLE run_files (
        run_id TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        kind   TEXT NOT NULL CHECK (kind IN ('workflow', 'command', 'script')),
        name   TEXT NOT NULL,
        path   TEXT,
        hash   TEXT,
        PRIMARY KEY (run_id, kind, name)
      );
      CREATE INDEX run_files_hash ON run_files (hash) WHERE hash IS NOT NULL;
    `,
  },
  {
    version: 6,
    name: 'GitHub hooks, and deliveries acknowledged without a run',
    sql: `
      -- As SQLite's migration 21: a GitHub hook's settings and sealed token; an ignored delivery
      -- keeps its key and its reason, without a run.
      ALTER TABLE hooks ADD COLUMN github TEXT;
      ALTER TABLE hooks ADD COLUMN sealed_github_token TEXT;
      ALTER TABLE hook_deliveries ALTER COLUMN run_id DROP NOT NULL;
      ALTER TABLE hook_deliveries ADD COLUMN ignored TEXT;
      ALTER TABLE hook_deliveries ADD CONSTRAINT hook_deliveries_run_or_ignored CHECK ((run_id IS NULL) <> (ignored IS NULL));
    `,
  },
  {
    version: 7,
    name: "the GitHub writes a run's github nodes made",
    sql: `
      -- As SQLite's migration 22.
      CREATE TABLE run_github_writes (
        run_id     TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        write_key  TEXT NOT NULL,
        kind       TEXT NOT NULL CHECK (kind IN ('comment', 'label', 'pull_request')),
        github_id  TEXT,
        url        TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (run_id, write_key)
      );
    `,
  },
  {
    version: 8,
    name: "GitHub runs' status comments",
    sql: `
      -- As SQLite's migration 23: a GitHub run's status comment, what it last showed, who makes it.
      ALTER TABLE hook_deliveries ADD COLUMN status_comment_id BIGINT;
      ALTER TABLE hook_deliveries ADD COLUMN status_shown TEXT;
      ALTER TABLE hook_deliveries ADD COLUMN status_claimed_by TEXT;
      ALTER TABLE hook_deliveries ADD COLUMN status_claimed_at TEXT;
    `,
  },
  {
    version: 9,
    name: 'a claim token on jobs',
    sql: `
      -- Each claim (one statement, jobs-sql.ts claim) writes a token of its own: a claimant whose
      -- answer was lost with its connection finds by it the job its claim leased, if it committed.
      ALTER TABLE jobs ADD COLUMN claim_token TEXT;
    `,
  },
];
