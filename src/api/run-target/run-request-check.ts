import { checkRunBaseBranch } from '../../codebases/base-branch.js';
import { checkBranchName } from '../../codebases/branch-name.js';
import { CairnError } from '../../shared/errors.js';
import type { Store } from '../../store/store.js';
import type { RunRequestBody } from '../../wire/run-request.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import type { WorkflowEntry } from '../../workflow/catalog/discover-workflows.js';
import type { InputValue } from '../../workflow/schema/input-types.js';
import { resolveRunInputs } from '../../workflow/schema/run-inputs.js';
import { lookupWorkflow } from '../workflow-files/workflow-lookup.js';
import { resolveRunCodebase, runCodebaseText, type RunCodebaseBinding } from './run-codebase.js';
import { resolveRunCwd } from './run-cwd.js';

/** A run request once checked: where it would work, the workflow it names and its inputs. */
export interface CheckedRunRequest {
  cwd: string | undefined;
  codebase: RunCodebaseBinding | undefined;
  /** Where the project's workflows, commands and config are read: the cwd, else the codebase's checkout. */
  projectDir: string | undefined;
  entry: WorkflowEntry;
  /** Checked and defaulted (workflow/schema/run-inputs.ts). */
  inputs: Record<string, InputValue>;
}

/**
 * The checks of a run request, in the order a caller's mistakes are reported: cwd, codebase,
 * workflow, inputs, branch, base. The run route and the dry-run route make the same ones, so a
 * dry run refuses what a run refuses, with the same error. Reads only (rows, files, git refs).
 */
export async function checkRunRequest(
  deps: { store: Store; catalog: WorkflowCatalog },
  name: string,
  query: { cwd?: string | undefined },
  body: NonNullable<RunRequestBody>,
): Promise<CheckedRunRequest> {
  const cwd = await resolveRunCwd(query.cwd);
  const codebase = await resolveRunCodebase(deps.store, { cwd, codebaseId: body.codebaseId, conversationId: body.conversationId });
  // A run named by codebaseId alone finds the codebase's project workflows, as with its cwd.
  const projectDir = cwd ?? codebase?.checkout;
  const entry = await lookupWorkflow(deps.catalog, name, { cwd: projectDir });
  const inputs = resolveRunInputs(entry.workflow.name, entry.workflow.inputs, { text: body.inputs, typed: body.typedInputs });
  if (body.branch !== undefined) {
    if (!codebase) throw new CairnError('BRANCH_NAME_INVALID', runCodebaseText.branchWithoutCodebase);
    await checkBranchName(body.branch);
  }
  // A base that is not a branch of the run's repository is the caller's mistake: answered now
  // (a few git reads of refs), rather than as a run that fails when it starts.
  if (body.baseBranch !== undefined) await checkRunBaseBranch(body.baseBranch, projectDir);
  return { cwd, codebase, projectDir, entry, inputs };
}
