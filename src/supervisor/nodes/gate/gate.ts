import { randomUUID } from 'node:crypto';
import { attemptStartedEvent, attemptSuspendedEvent } from '../../../records/index.js';
import { approvalRequestedEvent, type ApprovalContext } from '../../../store/schemas/approval.js';
import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import type { SubstituteText } from '../../run/node-context.js';
import type { AttemptOutcome, NodeAttempt, NodeHandler, NodeHandlerSet } from '../../run/node-handler.js';
import type { PlannedNode } from '../../run/run-plan.js';
import type { AgentAction } from '../agent/action.js';
import { bashAction } from '../exec/action.js';
import type { GateAction } from './action.js';
import { nodeAttemptRef, recordRefusedAttempt } from '../attempt-records.js';

export interface GateHandlerDeps {
  store: Store;
  /** The run as it was acquired: its metadata says whether a gate owes its `on_reject` rework. */
  run: Pick<Run, 'id' | 'conversation_id' | 'metadata'>;
  substituteText: SubstituteText;
  /** The run's handler set: a rework runs through its kind's handler (exec, or agent: an attempt as any prompt node's). */
  handlers: () => NodeHandlerSet;
}

/** The id of a gate's rework body in node paths: `<gate>/on_reject`. */
export const REWORK_NODE_ID = 'on_reject';

/** A gate's rework body planned as the node it runs as: a prompt node (the workflow's provider) or a bash node. */
export function reworkNodeOf(body: NonNullable<GateAction['onReject']>['body']): PlannedNode {
  return {
    id: REWORK_NODE_ID,
    descriptor: body.kind === 'prompt'
      ? { id: REWORK_NODE_ID, kind: 'agent', source: { kind: 'inline' } }
      : { id: REWORK_NODE_ID, kind: 'exec', runtime: 'sh' },
    dependsOn: [],
    triggerRule: 'all_success',
    when: undefined,
    action: body.kind === 'prompt' ? reworkPrompt(body.source) : bashAction(body.source),
    retry: undefined,
    alwaysRun: false,
  };
}

function reworkPrompt(prompt: string): AgentAction {
  return {
    type: 'agent', source: { kind: 'inline', prompt }, provider: undefined, model: undefined, effort: undefined, outputFormat: undefined,
    systemPrompt: undefined, idleTimeoutMs: undefined, freshContext: true, permissions: undefined, options: {},
  };
}

/**
 * `approval:` gates. Reaching one records the attempt `node_started` then `node_suspended`
 * (point `approval`) and `approval_requested` with the message, and answers `suspended`: the
 * run pauses once nothing else can run. The answer (approve/reject jobs) ends the same attempt.
 *
 * A gate rejected with `on_reject` first runs its rework body (a sub-attempt at
 * `<gate>/on_reject` that sees the reason as `$REJECTION_REASON`), then asks again, continuing
 * the same attempt.
 */
export class GateNodeHandler implements NodeHandler<GateAction> {
  constructor(private readonly deps: GateHandlerDeps) {}

  async runAttempt(attempt: NodeAttempt<GateAction>): Promise<AttemptOutcome> {
    const { node, path } = attempt;
    const action = node.action;
    const rejection = this.deps.run.metadata.rejections?.[path];
    let reworked: string | undefined;
    if (action.onReject && rejection?.reworkPending) {
      const rework = await this.rework(attempt, action.onReject.body, rejection.reason);
      if (typeof rework !== 'string') return rework;
      reworked = rework || undefined;
    } else if (attempt.continued) {
      // Taken over while it waited (its records are written): it keeps waiting, asking as it asked.
      const asked = this.deps.run.metadata.approval;
      if (asked?.nodeId === path && typeof asked.message === 'string') return { status: 'suspended', approval: contextOf(path, action, asked.message) };
      const message = this.deps.substituteText(node, action.message);
      return { status: 'suspended', approval: contextOf(path, action, message.ok ? message.text : action.message) };
    }
    const message = this.deps.substituteText(node, action.message);
    if (!message.ok) return recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error: message.error, failureKind: 'config' });
    // After a rework the gate asks about the reworked text: what the rework answered follows the message.
    const approval = contextOf(path, action, reworked === undefined ? message.text : withRework(message.text, rejection!.reason, reworked));
    const ref = nodeAttemptRef(this.deps.run, attempt, new Date().toISOString());
    await this.deps.store.appendEvents([
      ...(attempt.continued ? [] : [attemptStartedEvent(ref)]),
      attemptSuspendedEvent(ref, 'approval'),
      approvalRequestedEvent(this.deps.run, approval),
    ]);
    return { status: 'suspended', approval };
  }

  /**
   * Runs the rework body; its output when it completed (the gate then asks again, showing it),
   * otherwise the gate's outcome: a failed rework fails the gate, an interrupted one is run again later.
   */
  private async rework(
    attempt: NodeAttempt,
    body: NonNullable<GateAction['onReject']>['body'],
    reason: string,
  ): Promise<AttemptOutcome | string> {
    const { node } = attempt;
    const reworkNode = reworkNodeOf(body);
    const now = new Date().toISOString();
    const outcome = await this.deps.handlers().handlerFor(reworkNode).runAttempt({
      node: reworkNode,
      path: `${attempt.path}/${REWORK_NODE_ID}`,
      identity: { invocation: { id: randomUUID(), startedAt: now }, attempt: { id: randomUUID(), number: 1 } },
      signal: attempt.signal,
      variables: { REJECTION_REASON: reason },
      ...(attempt.loopPath ? { loopPath: attempt.loopPath } : {}),
    });
    switch (outcome.status) {
      case 'completed':
        return outcome.output;
      case 'failed': {
        const error = `Node '${node.id}': the on_reject rework failed: ${outcome.error}`;
        return recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error, failureKind: 'exec_failed' });
      }
      default:
        return outcome.status === 'cancelled' || outcome.status === 'not_started' ? outcome : '';
    }
  }
}

function contextOf(path: string, action: GateAction, message: string): ApprovalContext {
  return {
    type: 'approval',
    nodeId: path,
    message,
    captureResponse: action.captureResponse,
    ...(action.onReject ? { onRejectMaxAttempts: action.onReject.maxAttempts } : {}),
    ...(action.decisions ? { decisions: action.decisions.map((d) => ({ ...d })) } : {}),
  };
}

/** The gate's message asked again after a rework: the reason it was rejected for, and what the rework answered. */
export function withRework(message: string, reason: string, reworked: string): string {
  return `${message}\n\nReworked after the rejection "${reason}":\n${reworked.trim()}`;
}
