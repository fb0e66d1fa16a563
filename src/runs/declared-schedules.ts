import { randomUUID } from 'node:crypto';
import type { NewSchedule } from '../store/store.js';
import type { WorkflowEntry } from '../workflow/catalog/discover-workflows.js';
import { catchUpMsOf } from '../workflow/triggers/catch-up.js';

/**
 * The schedules a scope's workflow files declare (`triggers: - schedule: ...`), as the store keeps
 * them. A home workflow's (`global`) runs on no codebase; a project workflow's runs on its
 * codebase. Each is named for where it is declared: `<workflow>#<index>` at home,
 * `<codebase>:<workflow>#<index>` in a project; the name is how a changed file finds its schedule
 * again (its pause and its history kept). Bundled workflows declare none that run.
 */
export function declaredSchedulesOf(workflows: readonly WorkflowEntry[], scope: { codebaseId: string | null }): NewSchedule[] {
  const source = scope.codebaseId ? 'project' : 'global';
  return workflows
    .filter((entry) => entry.source === source)
    .flatMap((entry) =>
      (entry.workflow.triggers ?? []).map((trigger, index): NewSchedule => ({
        id: randomUUID(),
        name: `${scope.codebaseId ? `${scope.codebaseId}:` : ''}${entry.workflow.name}#${index}`,
        workflowName: entry.workflow.name,
        codebaseId: scope.codebaseId,
        inputs: trigger.schedule.inputs,
        cron: trigger.schedule.cron,
        timezone: trigger.schedule.timezone,
        overlap: trigger.schedule.overlap,
        catchUpMs: catchUpMsOf(trigger.schedule.catch_up) ?? 0,
      })),
    );
}

/** The store's name for a scope's declarations. */
export const declaredScopeOf = (codebaseId: string | null): string => (codebaseId ? `codebase:${codebaseId}` : 'global');
