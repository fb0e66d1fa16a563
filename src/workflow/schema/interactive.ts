import type { WorkflowDefinitionDraft } from './workflow-schema.js';

/**
 * Workflow classes. A workflow that declares `interactive: true` is driven by a person (it asks,
 * and waits for answers, as it goes), so nothing starts it in the background: a schedule (an API
 * one or a declared `triggers:`) does not fire it, and another workflow does not start it as a
 * child run or a fan-out. Every other workflow is unattended and may be started by anything. Only
 * the declaration counts: a workflow with an `approval:` node but no `interactive: true` can be
 * scheduled, and its gate waits for whoever answers it.
 */
export function isInteractive(workflow: Pick<WorkflowDefinitionDraft, 'interactive'>): boolean {
  return workflow.interactive === true;
}

/** Why a schedule does not start interactive workflow `name`, and what to do instead. */
export function scheduleRefusal(name: string): string {
  return (
    `workflow '${name}' is interactive ('interactive: true'), and a schedule starts runs with no one there to drive them; ` +
    `run it yourself (cairn workflow run ${name}), or remove 'interactive: true' from its file`
  );
}

/** Why another workflow does not start interactive workflow `name` as a child run or fan-out. */
export function childRefusal(name: string): string {
  return (
    `workflow '${name}' is interactive ('interactive: true'), so no workflow starts it as a child run or fan-out in the background; ` +
    `run it on its own, or remove 'interactive: true' from its file`
  );
}
