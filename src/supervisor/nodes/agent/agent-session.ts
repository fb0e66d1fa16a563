import { join } from 'node:path';
import { getProvider } from '../../../shared/providers/registry.js';
import type { NodeSessionStore } from '../../../store/node-sessions.js';
import { providersResumingSessions } from '../../../shared/providers/available.js';
import type { AgentAction } from './action.js';
import { fileNameFor } from '../../../shared/file-name.js';

/**
 * Which provider session an AI attempt continues, from the node's session policy and the private
 * handles earlier attempts left (store/node-sessions.ts). In order:
 *
 * 1. a retry continues the session its node's unfinished attempt left (unless `context: fresh`);
 * 2. a loop body with `fresh_context: false` continues, from its second iteration on, the session
 *    of the iteration before;
 * 3. `context: shared` continues the completed session of the closest AI node it depends on, on
 *    the same provider (else it starts fresh: a session belongs to the provider that made it);
 *    `context: { resume: <node> }` continues that node's, and fails when there is none to
 *    continue or it was made by another provider (it asked for that one session, by name);
 * 4. otherwise a fresh session.
 *
 * A session made by another node is forked where the provider can fork one (`sessionFork`), so
 * the node it came from keeps its own history unchanged; elsewhere it is continued in place. The
 * CLI providers keep a node's sessions in a folder of the node (`sessionDir`): continuing another
 * node's session means working in that node's folder.
 */

export interface SessionChoice {
  /** The session to continue; undefined: a fresh one. */
  resumeSessionId?: string;
  /** The folder the CLI keeps its sessions in for this attempt. */
  sessionDir: string;
  /** Set when the session comes from another node (shared / resume). */
  source?: { nodeId: string; fork: boolean };
}

export type SessionDecision = { ok: true; choice: SessionChoice } | { ok: false; error: string };

export interface SessionInputs {
  store: Pick<NodeSessionStore, 'getNodeSession'>;
  runId: string;
  /** The attempt's node path (`<node>`, `<loop>/body`, `<group>/<node>`). */
  path: string;
  action: AgentAction;
  provider: string;
  /** The loop iteration the attempt belongs to, when it is a loop body's. */
  iteration?: number | undefined;
  /** The folder a node path's CLI sessions are kept in. */
  sessionDirOf: (path: string) => string;
}

export async function chooseSession(input: SessionInputs): Promise<SessionDecision> {
  const { store, runId, path, action, provider } = input;
  const own = { sessionDir: input.sessionDirOf(path) };
  const resumes = providersResumingSessions.includes(provider as never);
  const named = action.sessionSource?.named === true;
  if (!resumes) {
    if (named) return { ok: false, error: `context.resume: provider '${provider}' cannot continue a session (its sessionResume capability is false); remove 'context' or run the node on a provider that can` };
    return { ok: true, choice: own };
  }
  const kept = await store.getNodeSession(runId, path).catch(() => undefined);
  const mine = kept?.provider === provider ? kept : undefined;
  if (mine && !mine.completed && !action.freshContext) return { ok: true, choice: { ...own, resumeSessionId: mine.sessionId } };
  if (action.continueIterations && (input.iteration ?? 1) > 1 && mine?.completed) return { ok: true, choice: { ...own, resumeSessionId: mine.sessionId } };

  const source = action.sessionSource;
  if (!source) return { ok: true, choice: own };
  const sourcePath = sourcePathOf(path, source);
  const theirs = await store.getNodeSession(runId, sourcePath).catch(() => undefined);
  if (!theirs?.completed) {
    if (named) return { ok: false, error: `context.resume: node '${source.nodeId}' left no session to continue (it did not complete on a provider that keeps sessions)` };
    return { ok: true, choice: own };
  }
  if (theirs.provider !== provider) {
    if (named) {
      return { ok: false, error: `context.resume: node '${source.nodeId}' ran on provider '${theirs.provider}', and a session continues only on the provider that made it (this node runs on '${provider}')` };
    }
    return { ok: true, choice: own };
  }
  const fork = getProvider(provider)?.capabilities.sessionFork === true;
  return { ok: true, choice: { resumeSessionId: theirs.sessionId, sessionDir: input.sessionDirOf(sourcePath), source: { nodeId: source.nodeId, fork } } };
}

/** The node path of a session source: a sibling of the attempt's node (same loop_group body, or the top level), or a top-level node. */
function sourcePathOf(path: string, source: NonNullable<AgentAction['sessionSource']>): string {
  const slash = path.lastIndexOf('/');
  return source.outer || slash === -1 ? source.segment : `${path.slice(0, slash)}/${source.segment}`;
}

/** The folder of a node path's CLI sessions under the run's artifacts. */
export function sessionDirUnder(artifactsDir: string): (path: string) => string {
  return (path) => join(artifactsDir, '.cairn', 'sessions', fileNameFor(path));
}
