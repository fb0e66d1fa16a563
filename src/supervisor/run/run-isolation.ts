import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { defaultBranchName } from '../../codebases/branch-name.js';
import { checkAdoption } from '../../codebases/worktree-adoption.js';
import { addWorktree, gitReason, listWorktrees, realpathOr } from '../../codebases/worktrees.js';
import { runArtifactsDir, runWorktreePath } from '../../codebases/workspace-paths.js';
import { CairnError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Codebase, IsolationEnvironment, NewIsolationEnvironment } from '../../store/schemas/codebase.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { readProjectWorktreeEnabled } from '../../workflow/project/project-run-config.js';
import type { WorkflowDefinition } from '../../workflow/schema/workflow-schema.js';
import { decideIsolation } from './isolation-mode.js';
import { makePrivateDir } from '../../shared/private-files.js';

export interface RunIsolationDeps {
  store: Store;
  paths: HomePaths;
  /** The lock's lease: the run's (renewed with it by the supervisor's heartbeat). */
  leaseMs: number;
  log: Logger;
}

/** Where a run works: its directory, its `$ARTIFACTS_DIR`, and the run as stored after placing it. */
export interface RunPlace {
  run: Run;
  workingPath: string;
  artifactsDir: string;
}

/** Texts of the refusals a run can meet while it is placed (the run fails with them). */
export const isolationText = {
  codebaseGone: (id: string) =>
    `The run's codebase ${id} is no longer registered. Register it again (POST /api/codebases) and start a new run.`,
  branchHeld: (branch: string, env: IsolationEnvironment) =>
    `Branch '${branch}' is already used by the worktree ${env.working_path} (${env.workflow_type} ${env.workflow_id}). ` +
    'Ask for another branch, or remove that worktree first (DELETE /api/codebases/{id} removes all of them).',
  branchCheckedOut: (branch: string, path: string) =>
    `Branch '${branch}' is already checked out at ${path}. Ask for another branch, or switch that checkout to another branch first.`,
  checkoutBusy: (path: string, env: IsolationEnvironment) =>
    `The checkout ${path} is in use by run ${env.locked_by_run} (worktree.enabled: false runs one at a time). ` +
    'Start this run when that one has ended, or let it run in a worktree.',
  environmentBusy: (env: IsolationEnvironment) =>
    `The worktree ${env.working_path} is in use by run ${env.locked_by_run}. Start this run when that one has ended.`,
  createFailed: (branch: string, path: string, checkout: string, reason: string) =>
    `Could not create the worktree for branch '${branch}' at ${path}: ${reason}. Check that the checkout ${checkout} ` +
    'is a git repository with at least one commit, or set worktree.enabled: false in the workflow to run in the checkout itself.',
} as const;

/**
 * Places a run the supervisor has just acquired (fresh or taken over): a run without a codebase
 * works where it always did; a run on a codebase gets its worktree (made, or found again after a
 * crash), or the codebase checkout under a lock, or shared (see decideIsolation). The lock is
 * taken in the same transaction that records the environment and sets the run's working_path.
 * Throws with a text that says what to do next; the caller fails the run with it, and the
 * failure's terminal transition releases the lock.
 */
export async function placeRun(run: Run, definition: WorkflowDefinition, deps: RunIsolationDeps): Promise<RunPlace> {
  if (run.codebase_id === null) {
    const workingPath = run.working_path ?? deps.paths.scratch(run.id);
    const artifactsDir = runArtifactsDir(deps.paths, run);
    await Promise.all([makePrivateDir(workingPath), makePrivateDir(artifactsDir)]);
    return { run, workingPath, artifactsDir };
  }
  const codebase = await deps.store.getCodebase(run.codebase_id);
  if (!codebase) throw new CairnError('CODEBASE_NOT_FOUND', isolationText.codebaseGone(run.codebase_id));
  const artifactsDir = runArtifactsDir(deps.paths, run);
  await makePrivateDir(artifactsDir);
  const decision = decideIsolation(
    definition,
    { worktreeEnabled: await readProjectWorktreeEnabled(codebase.default_cwd) },
    codebase,
  );
  if ('refused' in decision) throw new CairnError('WORKTREE_REFUSED', decision.refused);
  const log = deps.log.child({ runId: run.id, codebaseId: codebase.id });
  log.info({ mode: decision.mode, why: decision.why }, 'run.isolation_decided');
  if (decision.mode === 'shared') return { run: { ...run, working_path: codebase.default_cwd }, workingPath: codebase.default_cwd, artifactsDir };

  const env = decision.mode === 'checkout' ? checkoutUse(run, codebase) : worktreeOf(run, codebase, deps.paths);
  const claimed = await deps.store.claimRunIsolation({ runId: run.id, ownerId: run.owner_id!, leaseMs: deps.leaseMs, env });
  if (claimed.kind === 'branch_held') throw new CairnError('WORKTREE_REFUSED', isolationText.branchHeld(env.branch_name!, claimed.env));
  if (claimed.kind === 'locked') {
    const text = env.provider === 'checkout' ? isolationText.checkoutBusy(codebase.default_cwd, claimed.env) : isolationText.environmentBusy(claimed.env);
    throw new CairnError('WORKTREE_REFUSED', text);
  }
  const placed = { run: { ...run, working_path: claimed.env.working_path }, workingPath: claimed.env.working_path, artifactsDir };
  if (env.provider === 'checkout') return placed;
  try {
    await materializeWorktree(codebase, claimed.env, run.metadata.isolation?.base, log);
  } catch (err) {
    // A reservation this start made and could not fill is taken back, so the branch is free again.
    if (claimed.created) await deps.store.removeIsolationEnvironment(claimed.env.id);
    throw err;
  }
  return placed;
}

function checkoutUse(run: Run, codebase: Codebase): NewIsolationEnvironment {
  return {
    id: randomUUID(), codebase_id: codebase.id, workflow_type: 'run', workflow_id: run.id, provider: 'checkout',
    working_path: codebase.default_cwd, branch_name: null, created_by_platform: 'cairn', metadata: {},
  };
}

function worktreeOf(run: Run, codebase: Codebase, paths: HomePaths): NewIsolationEnvironment {
  const requested = run.metadata.isolation?.branch;
  const base = run.metadata.isolation?.base;
  return {
    id: randomUUID(), codebase_id: codebase.id, workflow_type: 'run', workflow_id: run.id, provider: 'worktree',
    working_path: runWorktreePath(paths, codebase.id, run.id),
    branch_name: requested ?? defaultBranchName(run.workflow_name, run.id),
    created_by_platform: 'cairn',
    metadata: { workflow_name: run.workflow_name, branch_requested: requested !== undefined, ...(base !== undefined ? { base_branch: base } : {}) },
  };
}

/**
 * Makes sure the environment's worktree is on disk: found again (a start retried after a crash,
 * checked by checkAdoption) or created, its new branch cut from the request's base when it named
 * one (else from the checkout's commit). A branch checked out in another worktree is refused
 * before git is asked, so the message says where.
 */
async function materializeWorktree(codebase: Codebase, env: IsolationEnvironment, base: string | undefined, log: Logger): Promise<void> {
  const path = env.working_path;
  const branch = env.branch_name!;
  const exists = await stat(path).then(() => true, () => false);
  if (exists && (await checkAdoption(path, codebase.default_cwd, branch)) === 'adopt') {
    log.info({ path, branch }, 'run.worktree_adopted');
    return;
  }
  const worktrees = await listWorktrees(codebase.default_cwd).catch((err: unknown) => {
    throw new CairnError('WORKTREE_FAILED', isolationText.createFailed(branch, path, codebase.default_cwd, gitReason(err)));
  });
  const holder = worktrees.find((w) => w.branch === branch);
  if (holder) throw new CairnError('WORKTREE_REFUSED', isolationText.branchCheckedOut(branch, await realpathOr(holder.path)));
  await mkdir(dirname(path), { recursive: true });
  try {
    const { commit, newBranch } = await addWorktree(codebase.default_cwd, path, branch, { base });
    log.info({ path, branch, base, commit, newBranch }, 'run.worktree_created');
  } catch (err) {
    throw new CairnError('WORKTREE_FAILED', isolationText.createFailed(branch, path, codebase.default_cwd, gitReason(err)), undefined, { cause: err });
  }
}
