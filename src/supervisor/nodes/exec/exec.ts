import assert from 'node:assert/strict';
import { join } from 'node:path';
import { storeFaultError } from '../../../shared/store-faults.js';
import type { Logger } from '../../../shared/log.js';
import type { StoreConfig } from '../../../store/store-config.js';
import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import type { AttemptResult } from '../../../worker/attempt-protocol.js';
import type { ExecAttemptTask } from '../../../worker/nodes/exec/exec-task.js';
import type { AttemptRunner } from '../../run/run-services.js';
import type { ExecAction } from './action.js';
import type { AttemptOutcome, BodyScope, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import type { PlannedNode } from '../../run/run-plan.js';
import type { VariableValues } from '../../../workflow/substitution/variables.js';
import { MAX_HELPER_LOSSES } from '../../../worker/lost-attempt.js';
import { closeBrokenAttempt, keepFirstCheckout, recordRefusedAttempt } from '../attempt-records.js';
import { attemptAfterLost, isLostAttempt } from '../lost-attempts.js';

/** Turns an exec node's source into what the worker runs, or explains why it cannot run. */
export type PrepareExec = (
  node: PlannedNode<ExecAction>,
  /** Variables only this body sees ($REJECTION_REASON in a gate's rework, $LOOP_PREV_OUTPUT in a loop). */
  extra?: VariableValues,
  /** A loop_group body node: where its references read. */
  scope?: BodyScope,
) => { ok: true; script: string; env: Record<string, string> } | { ok: false; error: string };

export interface ExecHandlerDeps {
  store: Store;
  storeConfig: StoreConfig;
  run: Pick<Run, 'id' | 'conversation_id'>;
  pool: AttemptRunner;
  prepare: PrepareExec;
  /** The run's own environment (its request's `config.env`, opened); what Cairn sets for the node wins over it. */
  runEnv?: Readonly<Record<string, string>> | undefined;
  workingPath: string;
  /** The run's artifacts directory: long outputs are spilled under it. */
  artifactsDir: string;
  /** The env-leak gate's decision for the run (codebases/env-gate.ts). */
  envFiles: 'load' | 'block';
  killGraceMs: number;
  log: Logger;
}

/**
 * `bash` and `script` nodes: the body is substituted here, then the attempt runs in a worker
 * thread, which writes its records (or the pool does, when the thread could not). An attempt
 * lost with its spawn helper runs again at once (lost-attempts.ts).
 */
export class ExecNodeHandler implements NodeHandler<ExecAction> {
  constructor(private readonly deps: ExecHandlerDeps) {}

  /** `lostBefore`: attempts of this invocation lost with their spawn helper just before this one. */
  async runAttempt(attempt: NodeAttempt<ExecAction>, lostBefore = 0): Promise<AttemptOutcome> {
    const { node, identity } = attempt;
    const prepared = this.deps.prepare(node, attempt.variables, attempt.scope);
    if (!prepared.ok) {
      return recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error: prepared.error, failureKind: 'config' });
    }
    const task: ExecAttemptTask = {
      kind: 'exec',
      store: this.deps.storeConfig,
      runId: this.deps.run.id,
      conversationId: this.deps.run.conversation_id,
      path: attempt.path,
      nodeId: node.id,
      runtime: node.action.runtime,
      legacyType: node.action.legacyType,
      invocation: { ...identity.invocation, loopPath: [...(attempt.loopPath ?? [])] },
      attempt: identity.attempt,
      lostBefore,
      ...(attempt.diagnostics ? { diagnostics: { ...attempt.diagnostics } } : {}),
      script: prepared.script,
      deps: [...node.action.deps],
      cwd: this.deps.workingPath,
      env: this.deps.runEnv ? { ...this.deps.runEnv, ...prepared.env } : prepared.env,
      envFiles: this.deps.envFiles,
      timeoutMs: node.action.timeoutMs,
      killGraceMs: this.deps.killGraceMs,
      outputSpillDir: join(this.deps.artifactsDir, '.cairn', 'node-outputs'),
      artifactsDir: this.deps.artifactsDir,
    };
    const startedAt = new Date().toISOString();
    let result: AttemptResult;
    try {
      result = await this.deps.pool.runAttempt(task, { signal: attempt.signal });
    } catch (err) {
      return closeBrokenAttempt(this.deps, attempt, startedAt, err);
    }
    // Its start could not be recorded (a full disk), so it never ran: the scheduler waits that out.
    if (result.storeFault) throw storeFaultError(result.storeFault);
    keepFirstCheckout(identity, result);
    if (!isLostAttempt(result)) return outcomeOf(result);
    assert(lostBefore + 1 < MAX_HELPER_LOSSES, 'the worker makes the last loss in a row final');
    return this.runAttempt(attemptAfterLost(attempt, result, this.deps.log), lostBefore + 1);
  }
}

function outcomeOf(result: AttemptResult): AttemptOutcome {
  switch (result.status) {
    case 'completed':
      return { status: 'completed', output: result.output };
    case 'failed':
      return { status: 'failed', error: result.error ?? 'failed', failureKind: result.failureKind ?? 'unknown' };
    case 'cancelled':
    case 'not_started':
      return { status: result.status };
  }
}
