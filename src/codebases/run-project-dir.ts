import type { Run } from '../store/schemas/run.js';
import type { Store } from '../store/store.js';

/**
 * The project folder a run's workflow is looked up in again (a resume with reload reads the file as it is
 * now): the codebase's checkout for a run on a codebase (its worktree holds only what git tracks,
 * so a project workflow not yet committed is not there), else the folder the run worked in.
 */
export async function runProjectDir(store: Store, run: Run): Promise<string | undefined> {
  if (run.codebase_id !== null) {
    const codebase = await store.getCodebase(run.codebase_id);
    if (codebase) return codebase.default_cwd;
  }
  return run.working_path ?? undefined;
}
