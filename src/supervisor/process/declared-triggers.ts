import type { Logger } from '../../shared/log.js';
import type { Schedule } from '../../store/schemas/schedule.js';
import type { NewSchedule, Store } from '../../store/store.js';
import { declaredSchedulesOf, declaredScopeOf } from '../../runs/declared-schedules.js';
import type { DiscoveryResult } from '../../workflow/catalog/discover-workflows.js';

/** Lists a scope's workflows: home's without `cwd`, a project's with its checkout. */
export type WorkflowListing = (query: { cwd?: string | undefined }) => Promise<DiscoveryResult>;

/**
 * Keeps the schedules declared in workflow files (`triggers:`) in the store: home workflows'
 * (no codebase) and each registered codebase's project workflows (on that codebase). A changed
 * file updates its schedules in place (pause and history kept); a removed trigger or file
 * removes them. A scope with a file that does not load keeps its schedules as they were.
 */
export class DeclaredTriggers {
  constructor(private readonly deps: { store: Store; list: WorkflowListing; log: Logger }) {}

  async sync(): Promise<void> {
    const stored = (await this.deps.store.listSchedules()).filter((s) => s.origin === 'workflow');
    await this.syncScope(null, undefined, stored);
    for (const codebase of await this.deps.store.listCodebases()) await this.syncScope(codebase.id, codebase.default_cwd, stored);
  }

  private async syncScope(codebaseId: string | null, cwd: string | undefined, stored: readonly Schedule[]): Promise<void> {
    const scope = declaredScopeOf(codebaseId);
    let listing: DiscoveryResult;
    try {
      listing = await this.deps.list({ cwd });
    } catch (err) {
      this.deps.log.warn({ err, scope }, 'schedule.declared_read_failed');
      return;
    }
    const source = codebaseId ? 'project' : 'global';
    const broken = listing.errors.some((e) => e.source === source);
    const declared = declaredSchedulesOf(listing.workflows, { codebaseId });
    // Nothing changed (the usual case): no write, so no store change wakes every process.
    const storedHere = stored.filter((s) => s.codebase_id === codebaseId && (codebaseId !== null || !s.name.includes(':')));
    if (sameDeclarations(storedHere, declared, broken)) return;
    const result = await this.deps.store.syncDeclaredSchedules(scope, declared, { keepUnlisted: broken });
    if (result.created.length || result.removed.length) this.deps.log.info({ scope, ...result }, 'schedule.declared_synced');
  }
}

/** Whether the store holds exactly the declarations (all of them, and no other unless kept). */
function sameDeclarations(stored: readonly Schedule[], declared: readonly NewSchedule[], keepUnlisted: boolean): boolean {
  const byName = new Map(stored.map((s) => [s.name, s]));
  const allSame = declared.every((d) => {
    const s = byName.get(d.name);
    return s !== undefined && s.workflow_name === d.workflowName && s.cron === d.cron && s.timezone === d.timezone &&
      s.overlap === d.overlap && s.catch_up_ms === d.catchUpMs && JSON.stringify(s.inputs) === JSON.stringify(d.inputs);
  });
  return allSame && (keepUnlisted || stored.length === declared.length);
}
