import type { RunFileStore } from '../run-files.js';
import { eventStatements } from './events-sql.js';
import { runFileStatements } from './run-files-sql.js';
import type { PgSession } from './session.js';

/** RunFileStore over the session's pool: a capture and its events are one transaction, under the run's row lock. */
export function pgRunFileStore(session: PgSession): RunFileStore {
  return {
    captureRunFiles: ({ runId, events: appended = [], ...capture }) =>
      session.write('capture the files of a run', async (q) => {
        const [run] = await q('SELECT id FROM workflow_runs WHERE id = $1 FOR NO KEY UPDATE', [runId]);
        if (!run) return false;
        await runFileStatements(q).replace(runId, capture);
        if (appended.length) await eventStatements(q).append(appended, session.now());
        return true;
      }),
    getRunFiles: (runId) => session.read('read the files of a run', (q) => runFileStatements(q).get(runId)),
  };
}
