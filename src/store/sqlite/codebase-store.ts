import type { CodebaseStore } from '../codebases.js';
import { CairnError } from '../../shared/errors.js';
import { codebaseStatements } from './codebases-sql.js';
import { fenceRefusal } from '../rules/write-fence.js';
import { eventStatements } from './events-sql.js';
import { isolationStatements } from './isolation-sql.js';
import type { SqliteSession } from './session.js';

/** CodebaseStore over the session's connection; `writer` fences releasing a run's locks, as in sqliteEventStore. */
export function sqliteCodebaseStore(session: SqliteSession, writer?: string): CodebaseStore {
  const codebases = codebaseStatements(session.db);
  const isolation = isolationStatements(session.db);
  const events = eventStatements(session.db);

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

    claimRunIsolation: (input) =>
      session.write('claim the isolation environment of a run', () => {
        // Fenced: the run's owner is read inside the write transaction (one writer at a time).
        const refused = fenceRefusal([input.runId], events.owners([input.runId]), input.ownerId);
        if (refused) throw refused;
        const result = isolation.claim(input, session.now(), session.now(input.leaseMs));
        if (result.kind !== 'claimed') return result;
        if (!isolation.setRunWorkingPath(input.runId, input.ownerId, result.env.working_path)) {
          // Thrown inside the transaction: nothing of the claim is kept.
          throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} is not owned by ${input.ownerId}`);
        }
        return result;
      }),

    // No run to renew (an idle supervisor, each heartbeat) takes no write lock.
    renewIsolationLocks: async (ownerId, runIds, leaseMs) =>
      runIds.length === 0
        ? 0
        : session.write('renew isolation locks', () => isolation.renew(ownerId, runIds, session.now(leaseMs))),

    releaseIsolationLocks: (runId) =>
      session.write('release the isolation locks of a run', () => {
        const refused = writer === undefined ? undefined : fenceRefusal([runId], events.owners([runId]), writer);
        if (refused) throw refused;
        isolation.release(runId, session.now());
      }),

    removeIsolationEnvironment: (id) => session.write('remove an isolation environment', () => isolation.remove(id)),

    removeIdleIsolationEnvironment: (codebaseId, id) =>
      session.write('remove an isolation environment', () => isolation.removeIdle(codebaseId, id, session.now())),
  };
}
