import { mkdir } from 'node:fs/promises';
import { detectBaseBranch, type ResolvedBaseBranch } from '../../codebases/base-branch.js';
import { codebaseStateDir } from '../../codebases/workspace-paths.js';
import { coerceError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Codebase } from '../../store/schemas/codebase.js';
import type { RunMetadata } from '../../store/schemas/run-metadata.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { branchNameProblem } from '../../workflow/schema/branch-syntax.js';
import { readProjectRunConfig, type ProjectRunConfig } from '../../workflow/project/project-run-config.js';
import type { UnavailableVariables, VariableValues } from '../../workflow/substitution/variables.js';

/**
 * The run variables that depend on where a run works: `$BASE_BRANCH`, `$STATE_DIR` and
 * `$DOCS_DIR`, resolved when the supervisor acquires the run (after placing it), for every node,
 * prompt, message and body environment of the run.
 *
 * `$BASE_BRANCH`, in order: what the run recorded when it first resolved it (so a resume, a
 * take-over and a child run use the same), the request's `baseBranch`, the project's
 * `worktree.baseBranch`, the codebase's default branch, then git (`origin/HEAD`, `main`,
 * `master`). `$STATE_DIR`: the recorded one (a child's is its parent's), else the codebase's
 * `$CAIRN_HOME/workspaces/<owner>/<repo>/state`, created now; a run without a codebase has none.
 * `$DOCS_DIR`: the request's `config.docs.path`, else the project's `docs.path`, else `docs/`.
 * A project value Cairn cannot use makes its variable unavailable with the reason, so a node that
 * needs it fails saying what to fix, and one that does not runs.
 */

export type RunPlaceVariables = Pick<VariableValues, 'BASE_BRANCH' | 'STATE_DIR' | 'DOCS_DIR'>;

export interface ResolvedRunVariables {
  values: RunPlaceVariables;
  unavailable: UnavailableVariables;
  /** What this resolution found that the run has not recorded yet (merged into its metadata). */
  record: Pick<RunMetadata, 'base_branch' | 'state_dir'>;
}

export async function resolveRunVariables(
  run: Pick<Run, 'working_path' | 'metadata'>,
  codebase: Pick<Codebase, 'id' | 'default_cwd' | 'default_branch'> | undefined,
  paths: HomePaths,
): Promise<ResolvedRunVariables> {
  // The project's config is the codebase checkout's (a worktree holds only what git tracks, as
  // for workflow discovery), else the folder the run works in.
  const projectDir = codebase?.default_cwd ?? run.working_path ?? undefined;
  const config: ProjectRunConfig = projectDir ? await readProjectRunConfig(projectDir) : {};
  const values: RunPlaceVariables = {};
  const unavailable: Partial<Record<keyof RunPlaceVariables, string>> = {};
  const record: ResolvedRunVariables['record'] = {};

  const recorded = run.metadata.base_branch;
  const base: FoundBase = recorded ? { name: recorded.name, source: recorded.source } : await findBase(run, codebase, config, projectDir);
  if ('problem' in base) unavailable.BASE_BRANCH = base.problem;
  else if (base.name !== undefined) {
    values.BASE_BRANCH = base.name;
    if (!run.metadata.base_branch) record.base_branch = { name: base.name, source: base.source };
  }

  const stateDir = run.metadata.state_dir ?? (codebase ? codebaseStateDir(paths, codebase.id) : undefined);
  if (stateDir !== undefined) {
    try {
      await mkdir(stateDir, { recursive: true });
      values.STATE_DIR = stateDir;
      if (!run.metadata.state_dir) record.state_dir = stateDir;
    } catch (err) {
      unavailable.STATE_DIR = `Cairn could not create ${stateDir} (${coerceError(err).message}); check that $CAIRN_HOME is writable`;
    }
  }

  const docs = run.metadata.overrides?.config?.docs?.path;
  if (docs !== undefined) values.DOCS_DIR = docs;
  else if (config.docsPath && 'problem' in config.docsPath) unavailable.DOCS_DIR = config.docsPath.problem;
  else if (config.docsPath) values.DOCS_DIR = config.docsPath.value;

  return { values, unavailable, record };
}

/**
 * Records on the run what its variables resolved to the first time (its base, its state dir), in
 * its metadata, so that a resume, a take-over and its child runs use the same; answers the run as
 * recorded. Nothing new: nothing written.
 */
export async function recordRunVariables(store: Store, run: Run, record: ResolvedRunVariables['record']): Promise<Run> {
  if (Object.keys(record).length === 0) return run;
  await store.transitionRun({ runId: run.id, ownerId: run.owner_id!, metadataPatch: record, events: [] });
  return { ...run, metadata: { ...run.metadata, ...record } };
}

type FoundBase = { name: string; source: ResolvedBaseBranch['source'] | string } | { problem: string } | { name: undefined };

async function findBase(
  run: Pick<Run, 'metadata'>,
  codebase: Pick<Codebase, 'default_branch'> | undefined,
  config: ProjectRunConfig,
  projectDir: string | undefined,
): Promise<FoundBase> {
  const requested = run.metadata.isolation?.base;
  if (requested !== undefined) return { name: requested, source: 'request' };
  if (config.baseBranch) return 'problem' in config.baseBranch ? config.baseBranch : { name: config.baseBranch.value, source: 'project_config' };
  const registered = codebase?.default_branch;
  if (registered && branchNameProblem(registered) === undefined) return { name: registered, source: 'codebase' };
  if (projectDir === undefined) return { name: undefined };
  // A folder that is not a repository (or is gone) has no base; the default text says how to give one.
  return (await detectBaseBranch(projectDir).catch(() => undefined)) ?? { name: undefined };
}
