import type { GitHubWriteKind, GitHubWriteRecord, GitHubWriteStore } from '../github-writes.js';
import { decideGitHubWrite } from '../rules/github-write-caps.js';
import type { PgSession } from './session.js';

type Row = { write_key: string; kind: string; github_id: string | null; url: string | null; created_at: string };
const recordOf = (row: Row): GitHubWriteRecord => ({ key: row.write_key, kind: row.kind as GitHubWriteKind, githubId: row.github_id, url: row.url, createdAt: row.created_at });
const COLUMNS = 'write_key, kind, github_id, url, created_at';

/**
 * GitHubWriteStore over the session's pool (`run_github_writes`, gone with its run). A reservation
 * holds its run's row (FOR UPDATE) while it counts and inserts, so two at once never both take
 * the last place of a cap.
 */
export function pgGitHubWriteStore(session: PgSession): GitHubWriteStore {
  return {
    reserveGitHubWrite: (input) =>
      session.write('reserve a GitHub write', async (q) => {
        const [run] = await q('SELECT id FROM workflow_runs WHERE id = $1 FOR UPDATE', [input.runId]);
        if (!run) return { reserved: false, why: 'run_not_found' } as const;
        const [existing] = await q(`SELECT ${COLUMNS} FROM run_github_writes WHERE run_id = $1 AND write_key = $2`, [input.runId, input.key]);
        const [used] = await q('SELECT COUNT(*)::int AS n FROM run_github_writes WHERE run_id = $1 AND kind = $2', [input.runId, input.kind]);
        const decision = decideGitHubWrite(existing && recordOf(existing as Row), Number(used!.n), input.cap);
        if (decision.outcome === 'existing') return { reserved: true, write: decision.write, existing: true } as const;
        if (decision.outcome === 'cap') return { reserved: false, why: 'cap', used: decision.used } as const;
        const now = session.now();
        await q('INSERT INTO run_github_writes (run_id, write_key, kind, created_at) VALUES ($1, $2, $3, $4)', [input.runId, input.key, input.kind, now]);
        return { reserved: true, write: { key: input.key, kind: input.kind, githubId: null, url: null, createdAt: now }, existing: false } as const;
      }),
    recordGitHubWrite: async (input) => {
      await session.write('record a GitHub write', (q) =>
        q('UPDATE run_github_writes SET github_id = $1, url = $2 WHERE run_id = $3 AND write_key = $4', [input.githubId, input.url, input.runId, input.key]),
      );
    },
    listGitHubWrites: (runId) =>
      session.read('list GitHub writes', async (q) =>
        (await q(`SELECT ${COLUMNS} FROM run_github_writes WHERE run_id = $1 ORDER BY created_at, write_key`, [runId])).map((row) => recordOf(row as Row)),
      ),
  };
}
