/**
 * The private handle of a node's provider session (upstream's per-run node sessions): what a
 * retry of that node needs to continue the conversation its failed attempt had, and, once the
 * node completed, what a later node continuing it (`context: shared` or `{ resume }`) or a loop's
 * next iteration (`fresh_context: false`) needs. Keyed by run
 * and node path, so two runs of one workflow never share a session. The durable `session_id` of
 * an execution record is not this: records are read by anyone who can read a run; this table
 * is read only by the supervisor that prepares the next attempt.
 */
export interface NodeSession {
  provider: string;
  sessionId: string;
  /** The attempt that left the session. */
  attemptId: string;
  /** True: the attempt completed (its session is kept for the nodes that continue it, not for a retry of its own). */
  completed: boolean;
}

export interface NodeSessionStore {
  /**
   * Remembers the session the last attempt of `path` leaves (unfinished or completed); null forgets
   * it. With a store opened for a supervisor (its `writer`), only while it owns the run, checked in
   * the writing transaction; else refused with the fence's error (store/rules/write-fence.ts).
   */
  setNodeSession(runId: string, path: string, session: NodeSession | null): Promise<void>;
  /** The session the last attempt of `path` left, if any. */
  getNodeSession(runId: string, path: string): Promise<NodeSession | undefined>;
}
