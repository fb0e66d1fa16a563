/**
 * How an attempt whose child was lost (its spawn helper died under it) is recorded. Shared by
 * the node kinds whose attempts start children. The supervisor side runs a lost attempt again at
 * once, as a new attempt of the same invocation (supervisor/nodes/lost-attempts.ts).
 */

/**
 * A node found running at each of this many helper deaths in a row is not run again: it is most
 * likely what kills the helper (`kill $PPID`, or it exhausts memory), and running it once more
 * would only kill the helper again (and, each time, the other attempts the helper ran). A
 * supervisor's death stops a node at 3 (supervisor/run/restore-run.ts); a helper's death costs
 * far less, so a node gets a little more room here. No count tells a node that kills its helper
 * from a killer outside that strikes whenever the node runs: `cairn stress --kill helper`, which
 * kills a helper as soon as nodes are in flight, lost one node 10 times in a row in 12 kills.
 */
export const MAX_HELPER_LOSSES = 5;

export interface LostFailure {
  error: string;
  failureKind: 'transient' | 'fatal';
  retryable: boolean;
  interrupted?: true;
}

/**
 * An interruption (not the node's outcome: it runs again), or, at the MAX_HELPER_LOSSES-th loss
 * in a row, a final failure with the reason. `lost` says what happened to the helper;
 * `lostBefore` counts the attempts of this invocation lost just before this one.
 */
export function lostFailure(nodeId: string, lost: string, lostBefore: number): LostFailure {
  const losses = lostBefore + 1;
  if (losses < MAX_HELPER_LOSSES) {
    return {
      error: `Attempt interrupted: ${lost} while it ran; its processes were killed and the node runs again`,
      failureKind: 'transient',
      retryable: true,
      interrupted: true,
    };
  }
  return {
    error:
      `Node '${nodeId}' was running each of the last ${losses} times its spawn helper died (last: ${lost}); it is not run ` +
      `again, since it is most likely what kills the helper (it kills its parent process, or exhausts memory). ` +
      `Check the node's command, and whether something else keeps killing perl processes, then resume the run.`,
    failureKind: 'fatal',
    retryable: false,
  };
}
