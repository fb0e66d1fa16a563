import type Database from 'better-sqlite3';
import type { CapturedFile, CapturedFileKind, RunFileCapture } from '../run-files.js';

interface FileRow {
  kind: CapturedFileKind | 'workflow';
  name: string;
  path: string | null;
  hash: string | null;
  content: string | null;
}

/**
 * Statements for a run's captured files (migration 20): `run_files` names each file of a run (and
 * the hash of its definition, kind `workflow`), `run_file_contents` holds each distinct content
 * once, by hash.
 */
export function runFileStatements(db: Database.Database) {
  const list = db.prepare(
    `SELECT f.kind, f.name, f.path, f.hash, c.content FROM run_files f
       LEFT JOIN run_file_contents c ON c.hash = f.hash WHERE f.run_id = ? ORDER BY f.kind, f.name`,
  );
  const hashesOf = db.prepare('SELECT DISTINCT hash FROM run_files WHERE run_id = ? AND hash IS NOT NULL');
  const clear = db.prepare('DELETE FROM run_files WHERE run_id = ?');
  const insertFile = db.prepare('INSERT INTO run_files (run_id, kind, name, path, hash) VALUES (@runId, @kind, @name, @path, @hash)');
  const insertContent = db.prepare(
    'INSERT INTO run_file_contents (hash, content, bytes) VALUES (@hash, @content, @bytes) ON CONFLICT (hash) DO NOTHING',
  );
  const forget = db.prepare(
    `DELETE FROM run_file_contents WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM run_files WHERE run_files.hash = run_file_contents.hash)`,
  );

  return {
    get(runId: string): RunFileCapture | undefined {
      const rows = list.all(runId) as FileRow[];
      const workflow = rows.find((row) => row.kind === 'workflow');
      if (!workflow) return undefined;
      const files = rows
        .filter((row): row is FileRow & { kind: CapturedFileKind } => row.kind !== 'workflow')
        .map((row): CapturedFile => ({ kind: row.kind, name: row.name, path: row.path, hash: row.hash, content: row.content }));
      return { workflowHash: workflow.hash ?? '', files };
    },
    /** The hashes the run's files name: the contents to look at once the run's rows are gone. */
    hashes(runId: string): string[] {
      return (hashesOf.all(runId) as { hash: string }[]).map((row) => row.hash);
    },
    replace(runId: string, capture: RunFileCapture): void {
      const before = this.hashes(runId);
      clear.run(runId);
      insertFile.run({ runId, kind: 'workflow', name: '', path: null, hash: capture.workflowHash });
      for (const file of capture.files) {
        if (file.hash !== null && file.content !== null) {
          insertContent.run({ hash: file.hash, content: file.content, bytes: Buffer.byteLength(file.content, 'utf8') });
        }
        insertFile.run({ runId, kind: file.kind, name: file.name, path: file.path, hash: file.hash });
      }
      this.forgetUnused(before);
    },
    /** Forgets the contents among `hashes` that no run's files name any more. */
    forgetUnused(hashes: readonly string[]): void {
      for (const hash of hashes) forget.run(hash);
    },
  };
}
