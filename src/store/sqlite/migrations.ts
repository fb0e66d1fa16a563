import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';
import { earlyMigrations } from './migrations-early.js';

/**
 * Numbered schema migrations. A migration is never edited once released: later changes append
 * a new entry, so older rows stay readable and an older binary can still open the file. The
 * first seven are in migrations-early.ts.
 */
export const migrations: readonly Migration[] = [
  ...earlyMigrations,
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
  {
    version: 15,
    name: 'node sessions kept after a node completes, for the nodes that continue them',
    sql: `
      -- 1: the session of a completed attempt, kept for a later node that continues it
      -- (context: shared or { resume }) or for a loop's next iteration (fresh_context: false).
      -- 0: the session an unfinished attempt left, for the node's own retry.
      ALTER TABLE run_node_sessions ADD COLUMN completed INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 16,
    name: 'a one-row table the health probe writes',
    sql: `
      -- /health/db commits a write here: a database that answers reads can still refuse every
      -- write (a full disk), and the probe must say so.
      CREATE TABLE store_probe (
        id        INTEGER PRIMARY KEY CHECK (id = 1),
        probed_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 17,
    name: 'schedules and the decision taken on each of their due times',
    sql: `
      -- A schedule: a workflow started on a cron expression read in an IANA time zone. A declared
      -- one (a workflow's \`triggers:\`) names the scope that declared it (declared_in); one made
      -- over the API has none. cursor_at: the newest due time decided; the fire loop looks after it.
      CREATE TABLE schedules (
        id            TEXT PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE,
        workflow_name TEXT NOT NULL,
        codebase_id   TEXT,
        inputs        TEXT NOT NULL DEFAULT '{}',
        cron          TEXT NOT NULL,
        timezone      TEXT NOT NULL,
        overlap       TEXT NOT NULL CHECK (overlap IN ('skip', 'buffer_one', 'buffer_all', 'cancel_other', 'allow_all')),
        catch_up_ms   INTEGER NOT NULL CHECK (catch_up_ms >= 0),
        paused        INTEGER NOT NULL DEFAULT 0,
        declared_in   TEXT,
        cursor_at     TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        updated_at    TEXT NOT NULL
      );
      -- Each due time of a schedule is decided once: the key is the exactly-once guarantee.
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
    version: 18,
    name: 'webhooks and the deliveries they admitted',
    sql: `
      -- A webhook: a workflow started by a signed POST /api/hooks/<name>. Its secret is sealed with
      -- the install key; inputs maps workflow inputs to paths into the delivery's JSON payload.
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
      -- Each delivery id is admitted once per hook, in the transaction that creates its run: the
      -- key is the exactly-once guarantee of a redelivery.
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
    version: 19,
    name: 'webhook deliveries by when they were received',
    sql: `
      -- The supervisor forgets deliveries older than their retention, oldest first, a batch at a
      -- time: without this each batch would scan the whole table under the write lock.
      CREATE INDEX hook_deliveries_received ON hook_deliveries (received_at);
    `,
  },
  {
    version: 20,
    name: 'the files a run captured when it started',
    sql: `
      -- Each distinct content of a captured command or script file, once, by its hash: a thousand
      -- runs of one workflow hold its files once. Forgotten when no run's files name it.
      CREATE TABLE run_file_contents (
        hash    TEXT PRIMARY KEY,
        content TEXT NOT NULL,
        bytes   INTEGER NOT NULL
      );
      -- The files a run captured (store/run-files.ts): kind command or script, named as its nodes
      -- name them; hash and path are null for a file that was not found. One row of kind workflow
      -- holds the hash of the definition the capture was made with. Gone with its run.
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
    version: 21,
    name: 'GitHub hooks, and deliveries acknowledged without a run',
    sql: `
      -- A GitHub hook (docs/github.md): its trigger settings (JSON) and its API token, sealed with
      -- the install key. Both null for a plain webhook.
      ALTER TABLE hooks ADD COLUMN github TEXT;
      ALTER TABLE hooks ADD COLUMN sealed_github_token TEXT;
      -- A delivery a GitHub hook ignored keeps its key (a redelivery does nothing again) and its
      -- reason, without a run: run_id becomes nullable, which SQLite does by rebuilding the table.
      CREATE TABLE hook_deliveries_next (
        hook_id     TEXT NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
        delivery_id TEXT NOT NULL,
        run_id      TEXT,
        ignored     TEXT,
        received_at TEXT NOT NULL,
        PRIMARY KEY (hook_id, delivery_id),
        CHECK ((run_id IS NULL) <> (ignored IS NULL))
      );
      INSERT INTO hook_deliveries_next (hook_id, delivery_id, run_id, received_at)
        SELECT hook_id, delivery_id, run_id, received_at FROM hook_deliveries;
      DROP TABLE hook_deliveries;
      ALTER TABLE hook_deliveries_next RENAME TO hook_deliveries;
      CREATE INDEX hook_deliveries_received ON hook_deliveries (received_at);
    `,
  },
  {
    version: 22,
    name: "the GitHub writes a run's github nodes made",
    sql: `
      -- One row per write a github: node reserved (docs/github.md, "Writing back to GitHub"),
      -- counted against the workflow's caps; github_id is what GitHub answered, once recorded.
      -- Keyed by the node's write, so a retried node finds its own. Gone with its run.
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
    version: 23,
    name: "GitHub runs' status comments",
    sql: `
      -- A GitHub run's status comment (docs/github.md): its id and the run status it last showed,
      -- so a restarted API asks GitHub nothing about a comment that shows its run's end already;
      -- and which API process makes it, so processes starting together make one comment.
      ALTER TABLE hook_deliveries ADD COLUMN status_comment_id INTEGER;
      ALTER TABLE hook_deliveries ADD COLUMN status_shown TEXT;
      ALTER TABLE hook_deliveries ADD COLUMN status_claimed_by TEXT;
      ALTER TABLE hook_deliveries ADD COLUMN status_claimed_at TEXT;
    `,
  },
];

/**
 * Applies every migration newer than the file's `user_version`, in order, in one IMMEDIATE
 * transaction: a new database gets its whole schema with one sync to disk instead of one per
 * migration (each sync costs ~15 ms of waiting on an ordinary disk, and every `cairn serve` on a
 * new home used to wait for 16 of them), and a failed migration leaves the file as it was. The
 * version is re-read inside the transaction, so processes that start together apply each
 * migration exactly once.
 */
export function migrate(db: Database.Database): void {
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if ((db.pragma('user_version', { simple: true }) as number) >= latest) return;
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (const migration of migrations) {
      if (current >= migration.version) continue;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
  }).immediate();
}
