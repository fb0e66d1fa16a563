import type { WorkflowNode } from '../../../../src/workflow/schema/node-schema.js';
import { attemptFactsOf, recordRefusedAttempt } from '../../../../src/supervisor/nodes/attempt-records.js';
import type { NodeKind } from '../../../../src/supervisor/nodes/node-kind.js';
import type { AttemptOutcome } from '../../../../src/supervisor/run/node-handler.js';

/**
 * A node kind that lives only in the tests, the supervisor's side: `shout: <text>` runs on a
 * worker thread (its other side is worker-kind.mjs) and answers its text, references filled in,
 * in capitals. It is the whole of what a new kind adds on this side: its action, how a written
 * node plans to it, and its handler, which receives its own action.
 */
export interface ShoutAction {
  type: 'shout';
  text: string;
}

export const shoutKind: NodeKind<ShoutAction> = {
  type: 'shout',
  plan(node: WorkflowNode) {
    const written = node as unknown as { shout?: unknown };
    return typeof written.shout === 'string' ? { type: 'shout', text: written.shout } : undefined;
  },
  handler: ({ services }) => ({
    async runAttempt(attempt): Promise<AttemptOutcome> {
      const text = services.context.substituteText(attempt.node, attempt.node.action.text);
      if (!text.ok) return recordRefusedAttempt(services.store, services.run, attempt, { error: text.error, failureKind: 'config' });
      const result = await services.pool.runAttempt(
        {
          ...attemptFactsOf(services.run, attempt),
          kind: 'shout',
          store: services.storeConfig,
          nodeId: attempt.node.id,
          node: attempt.node.descriptor,
          cwd: services.workingPath,
          killGraceMs: services.killGraceMs,
          text: text.text,
        },
        { signal: attempt.signal },
      );
      if (result.status === 'completed') return { status: 'completed', output: result.output };
      if (result.status === 'failed') return { status: 'failed', error: result.error ?? 'failed', failureKind: result.failureKind ?? 'unknown' };
      return { status: result.status };
    },
  }),
};
