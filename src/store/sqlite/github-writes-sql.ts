import type Database from 'better-sqlite3';
import type { GitHubWriteKind, GitHubWriteRecord, GitHubWriteReservation } from '../github-writes.js';
import { decideGitHubWrite } from '../rules/github-write-caps.js';

type Row = { write_key: string; kind: string; github_id: string | null; url: string | null; created_at: string };
const recordOf = (row: Row): GitHubWriteRecord => ({ key: row.write_key, kind: row.kind as GitHubWriteKind, githubId: row.github_id, url: row.url, createdAt: row.created_at });

/** Statements for `run_github_writes` (migration 22); `reserve` runs inside the caller's write transaction. */
export function githubWriteStatements(db: Database.Database) {
  const runExists = db.prepare('SELECT 1 FROM workflow_runs WHERE id = ?');
  const one = db.prepare('SELECT write_key, kind, github_id, url, created_at FROM run_github_writes WHERE run_id = ? AND write_key = ?');
  const used = db.prepare('SELECT COUNT(*) AS n FROM run_github_writes WHERE run_id = ? AND kind = ?');
  const insert = db.prepare('INSERT INTO run_github_writes (run_id, write_key, kind, created_at) VALUES (?, ?, ?, ?)');
  const record = db.prepare('UPDATE run_github_writes SET github_id = ?, url = ? WHERE run_id = ? AND write_key = ?');
  const list = db.prepare('SELECT write_key, kind, github_id, url, created_at FROM run_github_writes WHERE run_id = ? ORDER BY created_at, write_key');
  return {
    reserve(input: { runId: string; key: string; kind: GitHubWriteKind; cap: number }, now: string): GitHubWriteReservation {
      if (!runExists.get(input.runId)) return { reserved: false, why: 'run_not_found' };
      const existing = one.get(input.runId, input.key) as Row | undefined;
      const decision = decideGitHubWrite(existing && recordOf(existing), (used.get(input.runId, input.kind) as { n: number }).n, input.cap);
      if (decision.outcome === 'existing') return { reserved: true, write: decision.write, existing: true };
      if (decision.outcome === 'cap') return { reserved: false, why: 'cap', used: decision.used };
      insert.run(input.runId, input.key, input.kind, now);
      return { reserved: true, write: { key: input.key, kind: input.kind, githubId: null, url: null, createdAt: now }, existing: false };
    },
    record(input: { runId: string; key: string; githubId: string; url: string | null }): void {
      record.run(input.githubId, input.url, input.runId, input.key);
    },
    list(runId: string): GitHubWriteRecord[] {
      return (list.all(runId) as Row[]).map(recordOf);
    },
  };
}
