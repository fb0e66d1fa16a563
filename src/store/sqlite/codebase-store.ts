import type { CodebaseStore } from '../codebases.js';
import { codebaseStatements } from './codebases-sql.js';
import type { SqliteSession } from './session.js';

/** CodebaseStore over the session's connection. */
export function sqliteCodebaseStore(session: SqliteSession): CodebaseStore {
  const codebases = codebaseStatements(session.db);

  return {
    registerCodebase: (codebase) =>
      session.write('register a codebase', () => codebases.register(codebase, session.now())),

    getCodebase: (id) => session.read('read a codebase', () => codebases.get(id)),

    listCodebases: () => session.read('list codebases', () => codebases.list()),

    setCodebaseEnvConsent: (id, allow, scan) =>
      session.write('record env-key consent', () => codebases.setConsent(id, allow, scan, session.now())),

    deleteCodebase: (id) => session.write('delete a codebase', () => codebases.delete(id)),

    createIsolationEnvironment: (env) =>
      session.write('record an isolation environment', () => codebases.insertEnvironment(env, session.now())),

    listIsolationEnvironments: (codebaseId) =>
      session.read('list isolation environments', () => codebases.listEnvironments(codebaseId)),
  };
}
