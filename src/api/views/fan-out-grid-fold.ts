import { isInterrupted } from '../../records/interrupted.js';
import { readNodeEvent } from '../../records/read-node-event.js';
import { countsTowardNode } from '../../records/usage.js';
import { FAN_OUT_INSTANCES_EVENT, fanOutInstancesSchema, type FanOutInstance } from '../../records/schemas/fan-out-instances.js';
import type { RunEvent } from '../../store/schemas/event.js';
import type { FanOutGridItem, FanOutItemStatus } from '../../wire/fan-out.js';

/** How much of an item's output the grid shows. */
export const PREVIEW_CHARS = 200;

/** What the grid shows of an in-run instance's own rows: the latest one, and how many started. */
interface InstanceRows {
  lastType: string;
  interrupted: boolean;
  /** Its attempt was stopped by a cancel of the run (failure kind `cancelled`). */
  cancelled: boolean;
  durationMs: number | null;
  error: string | null;
  outputPreview: string | null;
  attempts: number;
}

/**
 * What the fan-out grid knows of one fan-out node, folded from the run's events in `seq` order.
 * A request applies only the events after `lastSeq`. A page of a 10,000-item fan-out then costs
 * the events written since the last request, not the run's whole log (40,000 rows, seconds).
 *
 * It keeps, per node:
 * - the node's item snapshot (its first valid `fan_out_instances` row);
 * - how its items run (the kind on its latest `node_started`);
 * - per in-run instance, its latest own row and its attempt count;
 * - which instances have rows inside them;
 * - the cost reported inside each instance.
 */
export class FanOutGridFold {
  /** The last event applied: a later request reads only the events after it. */
  lastSeq = 0;
  private instanceList: FanOutInstance[] | undefined;
  private startedKind: string | null = null;
  private started = false;
  private readonly own = new Map<string, InstanceRows>();
  /** Instances with rows inside them (an instance's own rows are written once it ended). */
  private readonly begun = new Set<string>();
  private readonly costs = new Map<number, number>();

  constructor(readonly nodeId: string) {}

  get instances(): readonly FanOutInstance[] {
    return this.instanceList ?? [];
  }

  /** How the node's items run, from its latest start; null before it started. */
  get mode(): 'in_run' | 'child_runs' | null {
    if (!this.started) return null;
    return this.startedKind === 'compose_fan_out' ? 'in_run' : 'child_runs';
  }

  /** Applies the run's events in `seq` order; those at or before `lastSeq` are already in (a request that overlapped another). */
  apply(events: readonly RunEvent[]): void {
    for (const event of events) {
      if (event.seq <= this.lastSeq) continue;
      this.lastSeq = event.seq;
      const step = event.step_name;
      if (step === null) continue;
      if (step === this.nodeId) this.applyOwnNode(event);
      else if (step.startsWith(`${this.nodeId}[`)) this.applyInstance(event, step);
      this.addCost(event, step);
    }
  }

  /**
   * The in-run items, in item order. `running`: the run is being driven (an instance with rows
   * inside is running). `cancelled`: the run ended cancelled (a cancel, an abandon), so it never
   * runs again: an item that did not end, or whose attempt was interrupted, is `cancelled`, not
   * `pending` (which would promise a run).
   */
  inRunItems(running: boolean, cancelled = false): FanOutGridItem[] {
    const notRun: FanOutItemStatus = cancelled ? 'cancelled' : 'pending';
    return this.instances.map((instance) => {
      const path = `${this.nodeId}[${instance.ordinal}]`;
      const rows = this.own.get(path);
      const status: FanOutItemStatus =
        !rows ? (running && this.begun.has(path) ? 'running' : notRun)
          : rows.lastType === 'node_started' ? (cancelled ? 'cancelled' : 'running')
            : rows.lastType === 'node_completed' ? 'completed'
              : rows.interrupted ? notRun : rows.cancelled ? 'cancelled' : 'failed';
      const ended = status === 'completed' || status === 'failed';
      return {
        index: instance.ordinal,
        identity: instance.identity,
        item: instance.item,
        childRunId: null,
        status,
        attempts: rows?.attempts ?? 0,
        durationMs: ended ? (rows?.durationMs ?? null) : null,
        costUsd: this.costs.get(instance.ordinal) ?? null,
        outputPreview: status === 'completed' ? (rows?.outputPreview ?? null) : null,
        error: status === 'failed' ? (rows?.error ?? null) : null,
      };
    });
  }

  private applyOwnNode(event: RunEvent): void {
    if (event.event_type === FAN_OUT_INSTANCES_EVENT) {
      if (this.instanceList !== undefined) return;
      const parsed = fanOutInstancesSchema.safeParse(event.data.instances);
      if (parsed.success) this.instanceList = parsed.data;
      return;
    }
    if (event.event_type !== 'node_started') return;
    this.started = true;
    const kind = (event.data.execution as { node?: { kind?: unknown } } | undefined)?.node?.kind;
    this.startedKind = typeof kind === 'string' ? kind : null;
  }

  private applyInstance(event: RunEvent, step: string): void {
    const slash = step.indexOf('/');
    if (slash >= 0) {
      this.begun.add(step.slice(0, slash));
      return;
    }
    const execution = event.data.execution as { timing?: { durationMs?: unknown }; lifecycle?: { error?: unknown; failureKind?: unknown } } | undefined;
    const output = event.data.node_output;
    const before = this.own.get(step);
    this.own.set(step, {
      lastType: event.event_type,
      interrupted: isInterrupted(event.data),
      cancelled: execution?.lifecycle?.failureKind === 'cancelled',
      durationMs: typeof execution?.timing?.durationMs === 'number' ? execution.timing.durationMs : null,
      error: typeof execution?.lifecycle?.error === 'string' ? execution.lifecycle.error : null,
      outputPreview: typeof output === 'string' ? output.slice(0, PREVIEW_CHARS) : null,
      attempts: (before?.attempts ?? 0) + (event.event_type === 'node_started' ? 1 : 0),
    });
  }

  /**
   * The spend a row adds to its instance, counted as a run snapshot counts a node's
   * (countsTowardNode). The instance is the last `[n]` of the row's path that is followed by a
   * `/` or ends it.
   */
  private addCost(event: RunEvent, step: string): void {
    if (event.event_type === 'node_started') return;
    const match = /^(.+)\[(\d+)\](?:\/|$)/.exec(step);
    if (!match || match[1] !== this.nodeId) return;
    const row = readNodeEvent(event);
    if (row?.kind !== 'lifecycle' || !countsTowardNode(row)) return;
    const cost = row.usage.costUsd;
    if (cost === undefined) return;
    const ordinal = Number(match[2]);
    this.costs.set(ordinal, (this.costs.get(ordinal) ?? 0) + cost);
  }
}
