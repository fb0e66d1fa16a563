import type { Logger } from '../../shared/log.js';
import { newRunLevelEvent } from '../../store/schemas/run-level-events.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { NodeAttempt, NodeHandler, NodeHandlerSet } from './node-handler.js';
import type { PlannedNode } from './run-plan.js';
import { outputFileName, writeOutputTypeFiles } from './output-type-files.js';

/**
 * `output_type`: once a node that declares it completes, its output is written to the run's
 * `$ARTIFACTS_DIR/nodes/` (output-type-files.ts), whatever its kind and wherever it runs (top
 * level, a loop_group body, an in-run fan-out instance's nodes, a gate), because every attempt of
 * a run goes through its handler set, which this wraps. The files are written before the attempt's
 * outcome is handed back, so before any dependant starts and before the run ends.
 *
 * Best-effort: a failure is logged and written as a warning of the run (a
 * `workflow_parse_warnings` event, which `cairn workflow run` prints as `warning`), and the node
 * stays completed.
 */

export interface OutputTypeDeps {
  run: Pick<Run, 'id' | 'conversation_id'>;
  artifactsDir: string;
  store: Pick<Store, 'appendEvents' | 'getNodeSession'>;
  log: Logger;
  /** The path segment of the AI session a node leaves (its id; a loop's `<id>/body`), if it leaves one. */
  sessionSegmentOf(node: PlannedNode): string | undefined;
}

export function withOutputTypeFiles(handlers: NodeHandlerSet, deps: OutputTypeDeps): NodeHandlerSet {
  const wrapped = new Map<NodeHandler, NodeHandler>();
  return {
    handlerFor(node) {
      const inner = handlers.handlerFor(node);
      if (node.outputType === undefined) return inner;
      let outer = wrapped.get(inner);
      if (!outer) {
        outer = {
          async runAttempt(attempt) {
            const outcome = await inner.runAttempt(attempt);
            if (outcome.status === 'completed') await keepOutputFiles(attempt, outcome.output, deps);
            return outcome;
          },
          ...(inner.waitsForRuns ? { waitsForRuns: true } : {}),
        };
        wrapped.set(inner, outer);
      }
      return outer;
    },
  };
}

async function keepOutputFiles(attempt: NodeAttempt, output: string, deps: OutputTypeDeps): Promise<void> {
  const { node, path } = attempt;
  try {
    // Read through the supervisor's store, this also waits until the attempt's end is recorded
    // (process/after-held-ends.ts): the files never get ahead of the node's record.
    const session = await deps.store.getNodeSession(deps.run.id, sessionPathOf(node, path, deps)).catch(() => undefined);
    await writeOutputTypeFiles({
      artifactsDir: deps.artifactsDir,
      path,
      outputType: node.outputType!,
      runId: deps.run.id,
      output,
      ...(session?.completed ? { sessionId: session.sessionId } : {}),
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    deps.log.warn({ err, nodeId: node.id, path }, 'node.output_type_write_failed');
    const warning = `Node '${path}': its output_type files (${outputFileName(path)} and .meta.json) could not be written: ${reason}. The node completed; its output is in its record.`;
    await deps.store
      .appendEvents([newRunLevelEvent(deps.run, 'workflow_parse_warnings', { warnings: [warning] })])
      .catch((appendErr: unknown) => deps.log.error({ err: appendErr, nodeId: node.id, path }, 'node.output_type_warning_failed'));
  }
}

/** Where the node's session is kept: its path, with its own id replaced by its session segment (a loop's body). */
function sessionPathOf(node: PlannedNode, path: string, deps: OutputTypeDeps): string {
  const segment = deps.sessionSegmentOf(node);
  return segment === undefined || !path.endsWith(node.id) ? path : `${path.slice(0, path.length - node.id.length)}${segment}`;
}
