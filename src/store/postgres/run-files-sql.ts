import type { CapturedFile, CapturedFileKind, RunFileCapture } from '../run-files.js';
import type { Query } from './session.js';

/** Statements for a run's captured files (migration 5), as SQLite's run-files-sql.ts. */
export function runFileStatements(q: Query) {
  return {
    async get(runId: string): Promise<RunFileCapture | undefined> {
      const rows = await q(
        `SELECT f.kind, f.name, f.path, f.hash, c.content FROM run_files f
           LEFT JOIN run_file_contents c ON c.hash = f.hash WHERE f.run_id = $1 ORDER BY f.kind, f.name`,
        [runId],
      );
      const workflow = rows.find((row) => row.kind === 'workflow');
      if (!workflow) return undefined;
      const files = rows
        .filter((row) => row.kind !== 'workflow')
        .map((row): CapturedFile => ({
          kind: row.kind as CapturedFileKind,
          name: row.name as string,
          path: (row.path as string | null) ?? null,
          hash: (row.hash as string | null) ?? null,
          content: (row.content as string | null) ?? null,
        }));
      return { workflowHash: (workflow.hash as string | null) ?? '', files };
    },
    /** The hashes the run's files name: the contents to look at once the run's rows are gone. */
    async hashes(runId: string): Promise<string[]> {
      return (await q('SELECT DISTINCT hash FROM run_files WHERE run_id = $1 AND hash IS NOT NULL', [runId])).map((row) => row.hash as string);
    },
    async replace(runId: string, capture: RunFileCapture): Promise<void> {
      const before = await this.hashes(runId);
      await q('DELETE FROM run_files WHERE run_id = $1', [runId]);
      await q('INSERT INTO run_files (run_id, kind, name, path, hash) VALUES ($1, $2, $3, $4, $5)', [runId, 'workflow', '', null, capture.workflowHash]);
      for (const file of capture.files) {
        if (file.hash !== null && file.content !== null) {
          // DO UPDATE, not DO NOTHING: the row is locked until this commits, so a concurrent
          // forgetUnused of the same hash waits and then sees this run's file naming it.
          await q(
            'INSERT INTO run_file_contents (hash, content, bytes) VALUES ($1, $2, $3) ON CONFLICT (hash) DO UPDATE SET bytes = EXCLUDED.bytes',
            [file.hash, file.content, Buffer.byteLength(file.content, 'utf8')],
          );
        }
        await q('INSERT INTO run_files (run_id, kind, name, path, hash) VALUES ($1, $2, $3, $4, $5)', [runId, file.kind, file.name, file.path, file.hash]);
      }
      await this.forgetUnused(before);
    },
    /** Forgets the contents among `hashes` that no run's files name any more. */
    async forgetUnused(hashes: readonly string[]): Promise<void> {
      if (hashes.length === 0) return;
      await q(
        `DELETE FROM run_file_contents c WHERE c.hash = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM run_files f WHERE f.hash = c.hash)`,
        [[...hashes]],
      );
    },
  };
}
