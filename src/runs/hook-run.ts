import { CairnError } from '../shared/errors.js';
import type { StoredHook } from '../store/schemas/hook.js';
import type { NewRun, Store } from '../store/store.js';
import { inputsFromPayload } from '../hooks/payload-inputs.js';
import { isInteractive } from '../workflow/schema/interactive.js';
import type { InputSpec } from '../workflow/schema/input-spec.js';
import { resolveRunInputs } from '../workflow/schema/run-inputs.js';
import { newRunOf } from './queue-run.js';
import type { WorkflowLookup } from './schedule-run.js';

/**
 * The run a signed delivery starts, made the way the run route makes one: the workflow as its
 * file reads now (the project's, when the hook names a codebase), the inputs mapped from the
 * payload, checked and defaulted. Nothing is written: the store creates the run in the
 * transaction that admits the delivery. A payload that does not fit is HOOK_PAYLOAD_UNFIT (422).
 */
export async function hookRunOf(
  deps: { store: Store; lookup: WorkflowLookup; clock: () => number },
  hook: StoredHook,
  delivery: { id: string; payload: unknown },
): Promise<NewRun> {
  const { codebase, entry } = await hookWorkflowOf(deps, hook, hook.workflow_name);
  const mapped = inputsFromPayload(hook.inputs, delivery.payload);
  for (const [input, path] of Object.entries(hook.inputs)) {
    const spec = entry.workflow.inputs?.[input];
    if (mapped[input] === undefined && spec?.required && spec.default === undefined) {
      throw new CairnError(
        'HOOK_PAYLOAD_UNFIT',
        `Input '${input}' maps to ${path}, which the payload does not hold (or holds null), and workflow '${entry.workflow.name}' requires it`,
      );
    }
  }
  return newRunOf({
    entry,
    inputs: payloadInputs(entry.workflow.name, entry.workflow.inputs, mapped),
    message: `Webhook ${hook.name} (delivery ${delivery.id})`,
    workingPath: codebase?.default_cwd ?? null,
    codebaseId: codebase?.id ?? null,
    hook: { id: hook.id, name: hook.name, delivery_id: delivery.id },
    clock: deps.clock,
  });
}

/**
 * The codebase a hook works on and the workflow `name` as its file reads now (the codebase's
 * project first): refused when the codebase is no longer registered or the workflow is
 * interactive (nobody would be there to answer it). Shared with GitHub hooks (github/github-run.ts).
 */
export async function hookWorkflowOf(deps: { store: Store; lookup: WorkflowLookup }, hook: StoredHook, name: string) {
  const codebase = hook.codebase_id ? await deps.store.getCodebase(hook.codebase_id) : undefined;
  if (hook.codebase_id && !codebase) {
    throw new CairnError('VALIDATION_FAILED', `Webhook '${hook.name}' works on codebase '${hook.codebase_id}', which is no longer registered`);
  }
  const entry = await deps.lookup(name, { cwd: codebase?.default_cwd });
  if (isInteractive(entry.workflow)) {
    throw new CairnError('VALIDATION_FAILED', `Webhook '${hook.name}' cannot start workflow '${entry.workflow.name}': it is interactive ('interactive: true')`);
  }
  return { codebase, entry };
}

/** The mapped values checked by the declared types: one a type cannot read is the payload's misfit (422), as a missing one is. */
function payloadInputs(workflowName: string, declared: Readonly<Record<string, InputSpec>> | undefined, mapped: Record<string, string>) {
  try {
    return resolveRunInputs(workflowName, declared, { text: mapped });
  } catch (err) {
    if (err instanceof CairnError && err.code === 'INPUTS_INVALID') throw new CairnError('HOOK_PAYLOAD_UNFIT', err.message, err.details);
    throw err;
  }
}
