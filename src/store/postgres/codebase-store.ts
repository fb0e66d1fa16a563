import type { CodebaseStore } from '../codebases.js';
import { CairnError } from '../../shared/errors.js';
import { codebaseStatements } from './codebases-sql.js';
import { fenceRefusal } from '../rules/write-fence.js';
import { eventStatements } from './events-sql.js';
import { isolationStatements } from './isolation-sql.js';
import type { PgSession } from './session.js';

/** CodebaseStore over the session's pool; `writer` fences releasing a run's locks, as in pgEventStore. */
export function pgCodebaseStore(session: PgSession, writer?: string): CodebaseStore {
  return {
    registerCodebase: (codebase) => session.write('register a codebase', (q) => codebaseStatements(q).register(codebase, session.now())),
    getCodebase: (id) => session.read('read a codebase', (q) => codebaseStatements(q).get(id)),
    listCodebases: () => session.read('list codebases', (q) => codebaseStatements(q).list()),
    setCodebaseEnvConsent: (id, allow, scan) =>
      session.write('record env-key consent', (q) => codebaseStatements(q).setConsent(id, allow, scan, session.now())),
    deleteCodebase: (id) => session.write('delete a codebase', (q) => codebaseStatements(q).delete(id)),
    createIsolationEnvironment: (env) =>
      session.write('record an isolation environment', (q) => codebaseStatements(q).insertEnvironment(env, session.now())),
    listIsolationEnvironments: (codebaseId) =>
      session.read('list isolation environments', (q) => codebaseStatements(q).listEnvironments(codebaseId)),

    claimRunIsolation: (input) =>
      session.write('claim the isolation environment of a run', async (q) => {
        // Fenced: the run's owner is read under its row lock, kept until this commits.
        const refused = fenceRefusal([input.runId], await eventStatements(q).lockOwners([input.runId]), input.ownerId);
        if (refused) throw refused;
        const isolation = isolationStatements(q);
        const result = await isolation.claim(input, session.now(), session.now(input.leaseMs));
        if (result.kind !== 'claimed') return result;
        if (!(await isolation.setRunWorkingPath(input.runId, input.ownerId, result.env.working_path))) {
          // Thrown inside the transaction: nothing of the claim is kept.
          throw new CairnError('RUN_INVALID_STATE', `Run ${input.runId} is not owned by ${input.ownerId}`);
        }
        return result;
      }),

    renewIsolationLocks: async (ownerId, runIds, leaseMs) =>
      runIds.length === 0
        ? 0
        : session.write('renew isolation locks', (q) => isolationStatements(q).renew(ownerId, runIds, session.now(leaseMs))),
    releaseIsolationLocks: (runId) =>
      session.write('release the isolation locks of a run', async (q) => {
        const refused = writer === undefined ? undefined : fenceRefusal([runId], await eventStatements(q).lockOwners([runId]), writer);
        if (refused) throw refused;
        await isolationStatements(q).release(runId, session.now());
      }),
    removeIsolationEnvironment: (id) => session.write('remove an isolation environment', (q) => isolationStatements(q).remove(id)),
    removeIdleIsolationEnvironment: (codebaseId, id) =>
      session.write('remove an isolation environment', (q) => isolationStatements(q).removeIdle(codebaseId, id, session.now())),
  };
}
