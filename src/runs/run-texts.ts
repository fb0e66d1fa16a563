/**
 * The upstream's texts for operations on runs that do not apply (clients, the CLI and the chat
 * match on them), used by the HTTP routes and the chat's /workflow commands alike.
 */
export const runErrorText = {
  notFound: 'Workflow run not found',
  noWorkerRun: 'No workflow run found for this worker',
  invalidId: 'Invalid run id',
  cannotCancel: (status: string) => `Cannot cancel workflow in '${status}' status`,
  cannotResume: (status: string) => `Cannot resume workflow in '${status}' status`,
  reloadGone: (name: string) =>
    `Cannot reload workflow '${name}': no workflow file declares it any more. Resume without reload to run the copy the run took when it started`,
  budgetNotPaused: (status: string) => `budgetUsd applies only to a run paused by its budget; this run is '${status}' and was not paused by its budget`,
  budgetOfAnotherRun: (budgetRunId: string) =>
    `this run was paused by the budget of run ${budgetRunId}, not by its own: resume run ${budgetRunId} with budgetUsd to raise that budget`,
  cannotAbandon: (status: string) =>
    `Cannot abandon run with status '${status}'. Only running, paused, or failed runs can be abandoned.`,
  cannotDelete: (status: string) => `Cannot delete workflow in '${status}' status — cancel it first`,
  /** A run whose cancel or abandon is asked for and not carried out yet goes nowhere but `cancelled`. */
  ending: (verb: string, status: string, how: 'cancel' | 'abandon', requestedAt: string) =>
    `Cannot ${verb} workflow in '${status}' status: it is being cancelled (${how} requested at ${requestedAt}) and ends cancelled`,
} as const;

export const gateErrorText = {
  notFound: runErrorText.notFound,
  cannot: (verb: 'approve' | 'reject', status: string) => `Cannot ${verb} workflow in '${status}' status`,
  missingContext: 'Workflow run is paused but missing approval context',
  alreadyAnswered: (answer: 'approved' | 'rejected') => `Workflow run was already ${answer} — resume in progress`,
  /** Upstream §6: approve/reject addressed to a parent blocked on its child run. */
  blockedOnChild: (verb: 'approve' | 'reject', childRunId: string) =>
    verb === 'approve'
      ? `Run is paused waiting on sub-run ${childRunId}. Approve or reject the child run instead.`
      : `Run is paused waiting on sub-run ${childRunId}. Reject the child run instead, or abandon this run to discard the whole tree.`,
  notJson: (field: 'comment' | 'reason') => `Request body is not valid JSON — send {"${field}": "..."} or no body`,
} as const;
