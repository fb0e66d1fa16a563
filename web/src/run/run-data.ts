import { signal, type Signal } from '@preact/signals';
import { ApiError, getJson, withQuery } from '../api.js';
import { epoch, onFrame } from '../live-stream.js';
import type { Run, RunDetail, RunEvent, WorkflowNode } from '../types.js';

/**
 * One run as the detail page shows it: its row, its durable events (every page of them) and the
 * definition stored with it. Kept current by the dashboard stream: a frame of this run makes the
 * page read the events after the last one it has (one read in flight; frames that arrive during
 * it make one more), never a timer.
 */
export interface RunData {
  run: Signal<Run | undefined>;
  events: Signal<RunEvent[]>;
  nodes: Signal<WorkflowNode[] | undefined>;
  error: Signal<string | undefined>;
  /** Read the new events now (after an action, so the page shows its effect without waiting). */
  refresh(): void;
  dispose(): void;
}

const PAGE = 2000;

export function loadRunData(runId: string): RunData {
  const run = signal<Run | undefined>(undefined);
  const events = signal<RunEvent[]>([]);
  const nodes = signal<WorkflowNode[] | undefined>(undefined);
  const error = signal<string | undefined>(undefined);
  let lastSeq = 0;
  let reading = false;
  let again = false;
  let disposed = false;
  const base = `/api/workflows/runs/${encodeURIComponent(runId)}`;

  async function readNew(): Promise<void> {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const added: RunEvent[] = [];
        for (;;) {
          const page = await getJson<RunDetail>(withQuery(base, { afterSeq: lastSeq, limit: PAGE }));
          if (disposed) return;
          run.value = page.run;
          added.push(...page.events);
          if (page.events.length) lastSeq = page.events.at(-1)!.seq;
          if (page.nextAfterSeq === null) break;
        }
        if (added.length) events.value = [...events.value, ...added];
        error.value = undefined;
      } while (again);
    } catch (err) {
      if (disposed) return;
      error.value = err instanceof ApiError && err.status === 404 ? 'This run does not exist (it may have been deleted).' : String((err as Error).message);
    } finally {
      reading = false;
    }
  }

  async function readDefinition(): Promise<void> {
    try {
      const answer = await getJson<{ definition: { nodes?: unknown } }>(`${base}/definition`);
      const list = Array.isArray(answer.definition.nodes) ? answer.definition.nodes : [];
      nodes.value = list.filter((n): n is WorkflowNode => !!n && typeof n === 'object' && typeof (n as WorkflowNode).id === 'string');
    } catch {
      nodes.value = [];
    }
  }

  void readNew();
  void readDefinition();
  const stopFrames = onFrame((frame) => {
    if (frame.runId === runId) void readNew();
  });
  let seenEpoch = epoch.peek();
  const stopEpoch = epoch.subscribe((value) => {
    if (value !== seenEpoch) {
      seenEpoch = value;
      void readNew();
    }
  });
  return {
    run,
    events,
    nodes,
    error,
    refresh: () => void readNew(),
    dispose() {
      disposed = true;
      stopFrames();
      stopEpoch();
    },
  };
}
