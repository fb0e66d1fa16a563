/**
 * The private handle of a node's provider session (upstream's per-run node sessions): what a
 * retry of that node needs to continue the conversation its failed attempt had. Keyed by run
 * and node path, so two runs of one workflow never share a session. The durable `session_id` of
 * an execution record is not this: records are read by anyone who can read a run; this table
 * is read only by the supervisor that prepares the next attempt.
 */
export interface NodeSession {
  provider: string;
  sessionId: string;
  /** The attempt that left the session. */
  attemptId: string;
}

export interface NodeSessionStore {
  /** Remembers the session an unfinished attempt of `path` leaves; null forgets it (the node completed). */
  setNodeSession(runId: string, path: string, session: NodeSession | null): Promise<void>;
  /** The session the last unfinished attempt of `path` left, if any. */
  getNodeSession(runId: string, path: string): Promise<NodeSession | undefined>;
}
