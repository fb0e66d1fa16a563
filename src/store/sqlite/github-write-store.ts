import type { GitHubWriteStore } from '../github-writes.js';
import { githubWriteStatements } from './github-writes-sql.js';
import type { SqliteSession } from './session.js';

/** GitHubWriteStore over the session's connection: a reservation counts and inserts in one IMMEDIATE transaction. */
export function sqliteGitHubWriteStore(session: SqliteSession): GitHubWriteStore {
  const writes = githubWriteStatements(session.db);
  return {
    reserveGitHubWrite: (input) => session.write('reserve a GitHub write', () => writes.reserve(input, session.now())),
    recordGitHubWrite: (input) => session.write('record a GitHub write', () => writes.record(input)),
    listGitHubWrites: (runId) => session.read('list GitHub writes', () => writes.list(runId)),
  };
}
