/**
 * The run-context variables Cairn sets for a node, by name: a node body references them as
 * `$NAME` (workflow/substitution/variables.ts says how each reaches a node), and a run's `config.env` may not
 * set them (store/schemas/run-env-names.ts). Both sides read this one list.
 */
export const variableNames = [
  /** The run's trigger message (the whole text). */
  'ARGUMENTS',
  /** Same value as ARGUMENTS. */
  'USER_MESSAGE',
  /** The run id. */
  'WORKFLOW_ID',
  /** The run's artifact directory (outside the checkout). */
  'ARTIFACTS_DIR',
  /** Files sent with the run request: `$ARTIFACTS_DIR/attachments` (it may not exist). */
  'ATTACHMENTS_DIR',
  /** A per-codebase directory kept across runs: `$CAIRN_HOME/workspaces/<owner>/<repo>/state`. */
  'STATE_DIR',
  /** The run's base branch: the request's, else `worktree.baseBranch`, the codebase's default, git's. */
  'BASE_BRANCH',
  /** The docs folder: the run's `config.docs.path`, else the project's `docs.path`, else `docs/`. */
  'DOCS_DIR',
  /** Issue / PR context, or empty. The three names are one value. */
  'CONTEXT',
  'EXTERNAL_CONTEXT',
  'ISSUE_CONTEXT',
  /** Feedback given at an interactive loop gate (first iteration after it only). */
  'LOOP_USER_INPUT',
  /** The previous loop iteration's output (empty on the first). */
  'LOOP_PREV_OUTPUT',
  /** The reviewer's reason, inside `approval.on_reject.prompt` only. */
  'REJECTION_REASON',
] as const;
