import type { Logger } from '../../shared/log.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { placeWorthRecording } from './engine-slots.js';
import type { SlotHold, Slots } from './slots.js';
import type { NodeEntry } from './node-table.js';

/**
 * A run's ready AI nodes that wait in line for a slot of their provider (they hold no other
 * slot), and the place each last recorded: a `provider_queued` event when a node starts waiting
 * and each time it moves within the first QUEUE_POSITIONS_SHOWN places, never more.
 */
export class ProviderLine {
  private parked: NodeEntry[] = [];
  private readonly shownPositions = new Map<NodeEntry, number>();

  constructor(
    private readonly deps: {
      run: Pick<Run, 'id' | 'conversation_id'>;
      store: Store;
      log: Logger;
      slots: Slots;
      /** Called when a slot frees for a parked node (or its place changes). */
      wake: () => void;
    },
  ) {}

  get length(): number {
    return this.parked.length;
  }

  /** The parked nodes, in line order, handed to a pass (which puts back those it does not start). */
  takeAll(): NodeEntry[] {
    const parked = this.parked;
    this.parked = [];
    return parked;
  }

  putBack(entries: readonly NodeEntry[]): void {
    this.parked.unshift(...entries);
  }

  /** Takes the node's provider slot, or parks the node in line (recording its place when it is worth showing). */
  take(entry: NodeEntry, provider: string): SlotHold | undefined {
    const answer = this.deps.slots.tryAcquire([provider], entry, this.deps.wake);
    if (answer.acquired) {
      this.shownPositions.delete(entry);
      return answer.hold;
    }
    this.parked.push(entry);
    const shown = this.shownPositions.get(entry);
    if (placeWorthRecording(answer.position, answer.newlyQueued, shown)) {
      this.shownPositions.set(entry, answer.position);
      const event = {
        run_id: this.deps.run.id,
        conversation_id: this.deps.run.conversation_id,
        step_name: entry.path,
        event_type: 'provider_queued',
        data: { node_id: entry.plan.id, provider, position: answer.position, limit: this.deps.slots.limitOf(provider) ?? null },
      };
      void this.deps.store.appendEvents([event]).catch((err: unknown) => this.deps.log.warn({ err }, 'node.queued_record_failed'));
    }
    return undefined;
  }

  /** Every parked node leaves its provider's line and goes back to pending. */
  leaveAll(): void {
    for (const entry of this.parked) {
      this.deps.slots.leave(entry);
      entry.status = 'pending';
    }
    this.parked = [];
    this.shownPositions.clear();
  }
}
