import type { WithValue } from '../../../workflow/schema/node-blocks.js';

/**
 * A `workflow:` node: a child run of the named workflow (child-run.ts), or with
 * `fanOut` one child run per item (fan-out.ts).
 */
export interface ChildRunAction {
  type: 'child_run';
  workflow: string;
  /** The child's `$ARGUMENTS` (before substitution); a fan-out's item takes its place. */
  input: string | undefined;
  /** The child's inputs: literal values as written (typed), string values substituted when the node runs. */
  with: Readonly<Record<string, WithValue>> | undefined;
  isolation: 'inherit' | 'worktree';
  fanOut?: {
    items: string; as: string | undefined; maxParallel: number; join: 'all_success' | 'all_done';
    /** As written; undefined: decided when the node runs (FanOutNodeHandler). */
    mode: 'in_run' | 'child_runs' | undefined;
  };
}
