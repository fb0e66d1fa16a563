import type { StreamPayload } from '../wire/stream-frames.js';
import type { OutputStream } from '../terminal/context.js';
import type { Style } from '../terminal/format.js';

/** Item counts of one fan-out node, as the counter line shows them. */
export interface FanOutCounts {
  total: number;
  completed: number;
  failed: number;
  running: number;
}

/** Reads a fan-out node's counts from the server (the grid route), for items that run as child runs. */
export type FetchFanOutCounts = (nodeId: string) => Promise<FanOutCounts | undefined>;

/** `items 412/1000 ✓ 405 ✗ 7 ⏳ 8`: items ended of all, completed, failed, running. */
export function counterText(c: FanOutCounts): string {
  return `items ${c.completed + c.failed}/${c.total} ✓ ${c.completed} ✗ ${c.failed} ⏳ ${c.running}`;
}

interface Node {
  counts: FanOutCounts;
  /** Instance path → its last status, for items running in the run. */
  instances: Map<string, 'running' | 'completed' | 'failed'>;
  lastPrintedDecile: number;
}

/**
 * A live counter line per fan-out node instead of a line per item: the node's `fan_out_instances`
 * frame gives the total; in-run instances' frames (`<node>[i]`, and their nodes `<node>[i]/…`)
 * are counted, not printed; child runs' ends (frames of other runs on the conversation) make it
 * ask the server for the node's counts. On a terminal the line is rewritten in place; elsewhere
 * it is printed at each tenth of the items and at the end.
 */
export class FanOutCounters {
  private readonly nodes = new Map<string, Node>();
  /** The counter line is the last thing written (a terminal may rewrite it). */
  private onCounterLine = false;
  private fetching: Promise<void> | undefined;
  private fetchAgain = false;

  constructor(private readonly opts: { out: OutputStream; style: Style; fetch?: FetchFanOutCounts }) {}

  /** Call before writing any other line: a counter line being rewritten is ended first. */
  beforeLine(): void {
    if (this.onCounterLine) this.opts.out.write('\n');
    this.onCounterLine = false;
  }

  /** Handles a frame of the followed run; true when it was a fan-out's (and is not to be printed otherwise). */
  consume(frame: StreamPayload): boolean {
    if (frame.type === 'workflow_event' && frame.eventType === 'fan_out_instances' && frame.stepName) {
      const instances = (frame.data as { instances?: unknown }).instances;
      const total = Array.isArray(instances) ? instances.length : 0;
      if (!this.nodes.has(frame.stepName)) {
        this.nodes.set(frame.stepName, { counts: { total, completed: 0, failed: 0, running: 0 }, instances: new Map(), lastPrintedDecile: -1 });
      }
      return true;
    }
    if (frame.type !== 'dag_node') return false;
    const match = /^(.+?)\[(\d+)\](\/.*)?$/.exec(frame.nodeId);
    const node = match ? this.nodes.get(match[1]!) : undefined;
    if (!match || !node) return false;
    const path = `${match[1]}[${match[2]}]`;
    if (match[3] !== undefined) {
      // An instance's own rows come once it ended: its first node starting says it runs.
      if (frame.status === 'running' && !node.instances.has(path)) {
        node.instances.set(path, 'running');
        node.counts.running += 1;
        this.show(match[1]!, node);
      }
      return true;
    }
    const status = frame.status === 'running' ? 'running' : frame.status === 'completed' ? 'completed' : frame.status === 'failed' && !frame.interrupted ? 'failed' : undefined;
    const before = node.instances.get(path);
    // Its own start, written with its end: an instance that already ended stays counted as ended.
    if (status === 'running' && before) return true;
    if (before) node.counts[before] -= 1;
    if (status) {
      node.instances.set(path, status);
      node.counts[status] += 1;
    } else {
      node.instances.delete(path);
    }
    this.show(match[1]!, node);
    return true;
  }

  /** A run other than the followed one ended on the conversation: a child run, maybe of a fan-out. */
  otherRunEnded(): void {
    if (!this.opts.fetch || ![...this.nodes.values()].some((n) => n.instances.size === 0)) return;
    if (this.fetching) {
      this.fetchAgain = true;
      return;
    }
    this.fetching = this.refresh().finally(() => {
      this.fetching = undefined;
      if (this.fetchAgain) {
        this.fetchAgain = false;
        this.otherRunEnded();
      }
    });
  }

  /** Resolves once no fetch of counts is under way. */
  async settled(): Promise<void> {
    while (this.fetching) await this.fetching;
  }

  private async refresh(): Promise<void> {
    for (const [nodeId, node] of this.nodes) {
      if (node.instances.size) continue;
      const counts = await this.opts.fetch!(nodeId).catch(() => undefined);
      if (!counts) continue;
      node.counts = counts;
      this.show(nodeId, node);
    }
  }

  private show(nodeId: string, node: Node): void {
    const { out, style } = this.opts;
    const line = `${style.cyan('fan-out'.padEnd(8))} ${nodeId} ${counterText(node.counts)}`;
    const ended = node.counts.completed + node.counts.failed;
    if (out.isTTY) {
      out.write(`${this.onCounterLine ? '\r\x1b[K' : ''}${line}`);
      this.onCounterLine = true;
      if (ended === node.counts.total && node.counts.running === 0) this.beforeLine();
      return;
    }
    const decile = node.counts.total ? Math.floor((ended * 10) / node.counts.total) : 10;
    if (decile === node.lastPrintedDecile) return;
    node.lastPrintedDecile = decile;
    out.write(`${line}\n`);
  }
}
