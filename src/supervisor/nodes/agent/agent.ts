import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { storeFaultError } from '../../../shared/store-faults.js';
import type { ProviderSettings } from '../../../shared/providers/provider-settings.js';
import type { Logger } from '../../../shared/log.js';
import type { StoreConfig } from '../../../store/store-config.js';
import type { Run } from '../../../store/schemas/run.js';
import type { Store } from '../../../store/store.js';
import type { AttemptResult } from '../../../worker/attempt-protocol.js';
import type { ProviderFailure } from '../../../records/schemas/node-lifecycle.js';
import type { AgentAttemptTask } from '../../../worker/nodes/agent/agent-task.js';
import { providersWithAdapter } from '../../../shared/providers/available.js';
import type { ProviderConnection } from '../../../worker/providers/provider-adapter.js';
import { chooseSession, sessionDirUnder } from './agent-session.js';
import { resolveModelBinding, type ModelBinding } from '../../../models/model-binding.js';
import type { ModelLayers } from '../../../models/model-layers.js';
import type { VariableValues } from '../../../workflow/substitution/variables.js';
import type { AttemptOutcome, BodyScope, NodeAttempt, NodeHandler } from '../../run/node-handler.js';
import type { PlannedNode } from '../../run/run-plan.js';
import type { AgentAction } from './action.js';
import { MAX_HELPER_LOSSES } from '../../../worker/lost-attempt.js';
import { closeBrokenAttempt, keepFirstCheckout, recordRefusedAttempt } from '../attempt-records.js';
import { attemptAfterLost, isLostAttempt } from '../lost-attempts.js';
import type { AttemptRunner } from '../../run/run-services.js';
import type { CredentialSource } from '../../../credentials/credential-source.js';
import { DEFAULT_PERMISSION_LEVEL, type AgentNodeOptions, type AgentOptions, type PermissionLevel } from '../../../shared/providers/agent-options.js';
import type { Effort } from '../../../models/effort.js';
import { credentialVendorOf } from '../../../shared/providers/credential-vendors.js';
import { runUserOf, withCredential } from './agent-credential.js';
import { fileNameFor } from '../../../shared/file-name.js';
import { secretValuesOfEnv } from '../../../shared/secret-mask.js';

/** Turns an AI node's prompt (inline or its command file) into the text sent, or says why it cannot be. */
export type PreparePrompt = (
  node: PlannedNode<AgentAction>,
  variables?: VariableValues,
  scope?: BodyScope,
) => { ok: true; prompt: string } | { ok: false; error: string };

export interface AgentHandlerDeps {
  store: Store;
  storeConfig: StoreConfig;
  run: Pick<Run, 'id' | 'conversation_id' | 'user_id'>;
  pool: AttemptRunner;
  preparePrompt: PreparePrompt;
  /** The workflow's own defaults for its AI nodes. */
  workflow: WorkflowAiDefaults;
  providers: ProviderSettings;
  /** The model settings of each scope for this run (install, repository, its user, the run's own). */
  models: ModelLayers;
  /** The run's own environment (its request's `config.env`, opened), for CLI providers; the connection's own entries win. */
  runEnv?: Readonly<Record<string, string>> | undefined;
  /**
   * The run's variables an agent's commands may use (`$ARTIFACTS_DIR`, `$WORKFLOW_ID`,
   * `$BASE_BRANCH`, `$STATE_DIR`, `$DOCS_DIR`), given to CLI providers as environment variables
   * as bash and script nodes get them; the request's `config.env` and the connection's own win.
   */
  runVariables?: Readonly<Record<string, string>>;
  workingPath: string;
  artifactsDir: string;
  killGraceMs: number;
  log: Logger;
  /** The run's user's own credentials (credentials/), opened for each attempt. */
  credentials?: CredentialSource;
}

/** What a workflow's top level sets for every AI node that does not set its own. */
export interface WorkflowAiDefaults {
  provider?: string | undefined;
  model?: string | undefined;
  effort?: Effort | undefined;
  permissions?: PermissionLevel | undefined;
  /** Top-level provider options (`thinking`, `fallbackModel`, `betas`, `sandbox`, `webSearchMode`). */
  options?: AgentNodeOptions | undefined;
}

/** The provider, model and effort a node runs with (model-binding.ts), from the run's model layers. */
export function bindingOf(node: PlannedNode<AgentAction>, workflow: WorkflowAiDefaults, models: ModelLayers): ModelBinding {
  return resolveModelBinding({
    node: { provider: node.action.provider, model: node.action.model, effort: node.action.effort ?? workflow.effort },
    workflow,
    layers: models,
  });
}

/**
 * `prompt` and `command` nodes: the prompt is substituted and the binding resolved here, then
 * the attempt runs in a worker thread through the provider's adapter, which writes its records
 * (or the pool does, when the thread could not). A node that cannot be sent (an unknown or
 * adapter-less provider, a missing command file, a reference that cannot be resolved) fails at
 * once with a configuration error and no provider call. An attempt whose CLI was lost with its
 * spawn helper runs again at once (lost-attempts.ts).
 */
export class AgentNodeHandler implements NodeHandler<AgentAction> {
  constructor(private readonly deps: AgentHandlerDeps) {}

  /** `lostBefore`: attempts of this invocation lost with their spawn helper just before this one. */
  async runAttempt(attempt: NodeAttempt<AgentAction>, lostBefore = 0): Promise<AttemptOutcome> {
    const { node, identity } = attempt;
    const action = node.action;
    const refuse = (error: string) =>
      recordRefusedAttempt(this.deps.store, this.deps.run, attempt, { error, failureKind: 'config' }).then((o) => ({ ...o, retryable: false }));
    const binding = bindingOf(node, this.deps.workflow, this.deps.models);
    if (!binding.ok) return refuse(`Node '${node.id}': ${binding.error}`);
    for (const warning of binding.warnings) this.deps.log.warn({ nodeId: node.id, warning }, 'agent.model_binding_warning');
    if (!providersWithAdapter.includes(binding.provider)) {
      return refuse(
        `Node '${node.id}': provider '${binding.provider}' has no adapter in this version of Cairn (available: ${providersWithAdapter.join(', ')}); set the node's or the workflow's provider`,
      );
    }
    const prepared = this.deps.preparePrompt(node, attempt.variables, attempt.scope);
    if (!prepared.ok) return refuse(prepared.error);
    const configured = this.deps.providers.connections[binding.provider] ?? {};
    const env = { ...this.deps.runVariables, ...this.deps.runEnv };
    let connection = Object.keys(env).length > 0 ? { ...configured, env } : configured;
    const session = await chooseSession({
      store: this.deps.store,
      runId: this.deps.run.id,
      path: attempt.path,
      action,
      provider: binding.provider,
      iteration: attempt.diagnostics?.iteration,
      sessionDirOf: sessionDirUnder(this.deps.artifactsDir),
    });
    if (!session.ok) return refuse(`Node '${node.id}': ${session.error}`);
    const { resumeSessionId: resume, sessionDir, source } = session.choice;
    const user = runUserOf(this.deps.run);
    if (user !== null && this.deps.credentials) {
      const credential = await this.deps.credentials(user, credentialVendorOf(binding.provider)).catch((err: unknown) => err as Error);
      if (credential instanceof Error) return refuse(`Node '${node.id}': ${credential.message}`);
      if (credential) connection = withCredential(connection, credential);
    }
    const task: AgentAttemptTask = {
      kind: 'agent',
      store: this.deps.storeConfig,
      runId: this.deps.run.id,
      conversationId: this.deps.run.conversation_id,
      path: attempt.path,
      nodeId: node.id,
      source: action.source.kind === 'inline' ? { kind: 'inline' } : { kind: 'command', name: action.source.name },
      invocation: { ...identity.invocation, loopPath: [...(attempt.loopPath ?? [])] },
      ...(attempt.diagnostics ? { diagnostics: { ...attempt.diagnostics } } : {}),
      attempt: identity.attempt,
      lostBefore,
      prompt: prepared.prompt,
      provider: binding.provider,
      ...(binding.model !== undefined ? { model: binding.model } : {}),
      ...(binding.effort !== undefined ? { effort: binding.effort } : {}),
      ...(action.outputFormat !== undefined ? { outputFormat: action.outputFormat } : {}),
      ...(action.systemPrompt !== undefined ? { systemPrompt: action.systemPrompt } : {}),
      options: this.optionsOf(action),
      cwd: this.deps.workingPath,
      connection,
      secrets: secretsOf(connection, this.deps.providers, this.deps.runEnv),
      firstEventTimeoutMs: this.deps.providers.firstEventTimeoutMs,
      idleTimeoutMs: Math.ceil(action.idleTimeoutMs ?? this.deps.providers.idleTimeoutMs),
      ...(resume !== undefined ? { resumeSessionId: resume } : {}),
      ...(source !== undefined ? { sessionSource: source } : {}),
      killGraceMs: this.deps.killGraceMs,
      outputSpillDir: join(this.deps.artifactsDir, '.cairn', 'node-outputs'),
      artifactsDir: this.deps.artifactsDir,
      scratchDir: join(this.deps.artifactsDir, '.cairn', 'attempts', fileNameFor(attempt.path), identity.attempt.id),
      sessionDir,
    };
    let result: AttemptResult;
    try {
      result = await this.deps.pool.runAttempt(task, { signal: attempt.signal });
    } catch (err) {
      return closeBrokenAttempt(this.deps, attempt, new Date().toISOString(), err);
    }
    // Its checkout sample could not be written (a full disk), so it never ran: the scheduler waits that out.
    if (result.storeFault) throw storeFaultError(result.storeFault);
    keepFirstCheckout(identity, result);
    if (!isLostAttempt(result)) return outcomeOf(result);
    assert(lostBefore + 1 < MAX_HELPER_LOSSES, 'the worker makes the last loss in a row final');
    return this.runAttempt(attemptAfterLost(attempt, result, this.deps.log), lostBefore + 1);
  }

  /**
   * The node's options over the workflow's defaults, at the node's permission level (else the
   * workflow's, else `workspace`). Outside the working directory a `workspace` agent may write
   * the run's `$ARTIFACTS_DIR` and the folder that holds it, where the upstream's commands keep
   * what outlives a run (`$ARTIFACTS_DIR/../reports`, `../reviews`, `../plans`).
   */
  private optionsOf(action: AgentAction): AgentOptions {
    const { workflow } = this.deps;
    return {
      ...workflow.options,
      ...action.options,
      permissions: action.permissions ?? workflow.permissions ?? DEFAULT_PERMISSION_LEVEL,
      extraDirs: [this.deps.artifactsDir, dirname(this.deps.artifactsDir)],
    };
  }

}

/**
 * What the worker masks in the provider's texts: the key or token this attempt sends, the
 * secret-looking values of the run's own `config.env` (which the CLI's environment holds) and
 * the install's configured secrets.
 */
function secretsOf(connection: ProviderConnection, providers: ProviderSettings, runEnv: Readonly<Record<string, string>> = {}): string[] {
  const sent = [connection.apiKey, connection.authToken].filter((s): s is string => s !== undefined);
  return [...new Set([...sent, ...secretValuesOfEnv(runEnv), ...providers.maskedSecrets])];
}

function outcomeOf(result: AttemptResult): AttemptOutcome {
  switch (result.status) {
    case 'completed':
      return { status: 'completed', output: result.output, ...(result.tokens !== undefined ? { tokens: result.tokens } : {}) };
    case 'failed':
      return {
        status: 'failed',
        error: result.error ?? 'failed',
        failureKind: result.failureKind ?? 'unknown',
        ...(result.retryable !== undefined ? { retryable: result.retryable } : {}),
        ...(result.providerFailure?.retryAfterMs !== undefined ? { retryAfterMs: result.providerFailure.retryAfterMs } : {}),
        ...resumeAtOf(result.providerFailure),
        ...(result.tokens !== undefined ? { tokens: result.tokens } : {}),
      };
    case 'cancelled':
    case 'not_started':
      return { status: result.status };
  }
}

/** A usage limit that states its reset: the run may resume then (`auto_resume`, supervisor/run/quota-resume.ts). */
function resumeAtOf(failure: ProviderFailure | undefined): { resumeAt?: number } {
  if (failure?.class !== 'quota_exhausted' || failure.resetAt === undefined) return {};
  const at = Date.parse(failure.resetAt);
  return Number.isNaN(at) ? {} : { resumeAt: at };
}
