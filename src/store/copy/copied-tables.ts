/**
 * What `cairn migrate --from sqlite --to postgres` copies: every table of the store, parents
 * before the tables whose foreign keys name them, under the same name on both backends.
 */
export const copiedTables = [
  'codebases',
  'isolation_environments',
  'conversations',
  'messages',
  'workflow_runs',
  'run_file_contents',
  'run_files',
  'jobs',
  'events',
  'run_node_sessions',
  'run_github_writes',
  'schedules',
  'schedule_fires',
  'user_ai_prefs',
  'provider_credentials',
  'hooks',
  'hook_deliveries',
  'supervisor_heartbeats',
  'store_probe',
] as const;
export type CopiedTable = (typeof copiedTables)[number];

/**
 * Tables that describe the processes of a server, not an install's data: a target holding only
 * these (a `cairn serve` started on it once and stopped) counts as empty, and their rows there
 * are replaced by the source's.
 */
export const processTables: ReadonlySet<CopiedTable> = new Set(['supervisor_heartbeats', 'store_probe']);

/**
 * SQLite tables that are derived from the copied ones and that PostgreSQL does without: the
 * dashboard search's trigram index (PostgreSQL searches with ILIKE), the per-status run counts
 * its triggers keep, and SQLite's own bookkeeping of AUTOINCREMENT (the sequences are set instead).
 */
export function isDerivedSqliteTable(name: string): boolean {
  return name.startsWith('sqlite_') || name === 'workflow_runs_search' || name.startsWith('workflow_runs_search_') || name === 'workflow_run_counts';
}

/**
 * Columns whose name differs between the backends, as `target: source expression`. A run's
 * insertion order is SQLite's rowid and PostgreSQL's row_seq; an event's number is SQLite's seq
 * and both id and seq in PostgreSQL (seq is what readers page by, id the row's handle).
 */
export const renamedColumns: Partial<Record<CopiedTable, Record<string, string>>> = {
  workflow_runs: { row_seq: 'rowid' },
  events: { id: 'seq' },
};

/** The PostgreSQL sequences to move past the copied rows: sequence name, table, column. */
export const targetSequences: readonly { table: CopiedTable; column: string; sequence?: string }[] = [
  { table: 'workflow_runs', column: 'row_seq' },
  { table: 'jobs', column: 'id' },
  { table: 'events', column: 'id' },
  { table: 'events', column: 'seq', sequence: 'events_seq' },
  { table: 'messages', column: 'id' },
];
