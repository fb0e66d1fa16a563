import type { RunFileStore } from '../run-files.js';
import { eventStatements } from './events-sql.js';
import { runFileStatements } from './run-files-sql.js';
import { runStatements } from './runs-sql.js';
import type { SqliteSession } from './session.js';

/** RunFileStore over the session's connection: a capture and its events are one transaction. */
export function sqliteRunFileStore(session: SqliteSession): RunFileStore {
  const files = runFileStatements(session.db);
  const runs = runStatements(session.db);
  const events = eventStatements(session.db);
  return {
    captureRunFiles: ({ runId, events: appended = [], ...capture }) =>
      session.write('capture the files of a run', () => {
        if (!runs.get(runId)) return false;
        files.replace(runId, capture);
        if (appended.length) events.append(appended, session.now());
        return true;
      }),
    getRunFiles: (runId) => session.read('read the files of a run', () => files.get(runId)),
  };
}
