import type { CodebaseKind } from '../../store/schemas/codebase.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';

/**
 * How a run on a codebase uses it:
 * - `worktree`: a git worktree of its own, on its own branch, locked for the run;
 * - `checkout`: the codebase checkout itself, locked for the run (one such run at a time);
 * - `shared`: the codebase checkout itself, shared, with no lock (`mutates_checkout: false`).
 */
export type IsolationMode = 'worktree' | 'checkout' | 'shared';

export type IsolationDecision = { mode: IsolationMode; why: string } | { refused: string };

/**
 * Decides the mode. The workflow's `worktree.enabled: true` is the strongest word, then its
 * `mutates_checkout: false` (shared, unlocked), then its `worktree.enabled: false`, then the
 * project's `worktree.enabled`; by default a git codebase gets a worktree and a plain folder is
 * used in place.
 */
export function decideIsolation(
  workflow: Pick<WorkflowDefinition, 'worktree' | 'mutates_checkout'>,
  project: { worktreeEnabled: boolean | undefined },
  codebase: { id: string; kind: CodebaseKind },
): IsolationDecision {
  const asked = workflow.worktree?.enabled;
  if (asked === true) {
    if (codebase.kind !== 'repo') {
      return {
        refused:
          `The workflow sets worktree.enabled: true, but the codebase ${codebase.id} is not a git repository, ` +
          'so it cannot have worktrees. Register a git checkout, or remove worktree.enabled from the workflow.',
      };
    }
    return { mode: 'worktree', why: 'workflow worktree.enabled: true' };
  }
  if (workflow.mutates_checkout === false) return { mode: 'shared', why: 'workflow mutates_checkout: false' };
  if (asked === false) return { mode: 'checkout', why: 'workflow worktree.enabled: false' };
  if (project.worktreeEnabled === false) return { mode: 'checkout', why: 'project config worktree.enabled: false' };
  if (codebase.kind !== 'repo') return { mode: 'checkout', why: 'the codebase is not a git repository' };
  return { mode: 'worktree', why: 'default' };
}
