import type { StreamEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';
import { needsWorkflowName } from './frames.js';

/**
 * Workflow names for `workflow_status` frames. Run-level events do not all carry the name, so it
 * is read from the run row once and remembered (bounded: oldest entries are forgotten first).
 */
export class RunNames {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly store: Pick<Store, 'getRun'>,
    private readonly capacity = 1000,
  ) {}

  /** Resolves the names the given events' frames need; call before `nameOf`. */
  async load(events: readonly StreamEvent[]): Promise<void> {
    for (const event of events) {
      if (event.run_id === null || !needsWorkflowName(event.event_type) || this.names.has(event.run_id)) continue;
      const declared = event.data.workflowName;
      const name =
        typeof declared === 'string' ? declared : ((await this.store.getRun(event.run_id))?.workflow_name ?? '');
      this.remember(event.run_id, name);
    }
  }

  nameOf(runId: string): string {
    return this.names.get(runId) ?? '';
  }

  private remember(runId: string, name: string): void {
    this.names.set(runId, name);
    if (this.names.size > this.capacity) {
      const oldest = this.names.keys().next().value;
      if (oldest !== undefined) this.names.delete(oldest);
    }
  }
}
