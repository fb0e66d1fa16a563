import { credentialSourceFor } from '../../../credentials/credential-source.js';
import { loadCommand } from '../../../workflow/catalog/commands.js';
import { defaultLocations } from '../../../workflow/catalog/locations.js';
import { agentNodeOptionsOf } from '../../../workflow/schema/agent-node-options.js';
import { DEFAULT_RETRY_DELAY_MS } from '../../../workflow/schema/node-blocks.js';
import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import { substitutePrompt } from '../../../workflow/substitution/substitute.js';
import type { WorkflowDefinition } from '../../../workflow/schema/workflow-schema.js';
import { resolveHome } from '../../../shared/paths.js';
import type { PlannedNode, RetryPolicy } from '../../run/run-plan.js';
import type { RunServices } from '../../run/run-services.js';
import type { KindPlanLevel, NodeKind } from '../node-kind.js';
import type { AgentAction } from './action.js';
import { AgentNodeHandler, bindingOf, type PreparePrompt, type WorkflowAiDefaults } from './agent.js';

/**
 * AI nodes without a `retry:` block still retry what retrying can fix (transient, rate-limited
 * and overloaded failures): 3 attempts in all, 3 s base delay doubling, as upstream.
 */
export const DEFAULT_AI_RETRY: RetryPolicy = { maxAttempts: 3, delayMs: DEFAULT_RETRY_DELAY_MS, onError: 'transient' };

/** `prompt:` and `command:` nodes: one provider call per attempt, on a worker thread (worker/nodes/agent/). */
export const agentKind: NodeKind<AgentAction> = {
  type: 'agent',
  plan(node: WorkflowNode) {
    if (!('prompt' in node) && !('command' in node)) return undefined;
    return {
      type: 'agent',
      source: 'prompt' in node ? { kind: 'inline', prompt: node.prompt } : { kind: 'command', name: node.command },
      provider: node.provider,
      model: node.model,
      effort: node.effort,
      outputFormat: node.output_format,
      systemPrompt: node.systemPrompt,
      idleTimeoutMs: node.idle_timeout,
      freshContext: node.context === 'fresh',
      permissions: node.permissions,
      options: agentNodeOptionsOf(node),
    };
  },
  defaultRetry: DEFAULT_AI_RETRY,
  sessionSegment: (node) => node.id,
  link: withSessionSource,
  handler: ({ services }) =>
    new AgentNodeHandler({
      store: services.store,
      storeConfig: services.storeConfig,
      run: services.run,
      pool: services.pool,
      preparePrompt: preparePrompt(services),
      workflow: workflowAiDefaultsOf(services.definition),
      // As config.yaml reads now: an edited base URL, key or binary path applies from this run on.
      providers: services.settings.providersNow(),
      models: services.models,
      runEnv: services.runEnv,
      runVariables: services.runVariables,
      workingPath: services.workingPath,
      artifactsDir: services.artifactsDir,
      killGraceMs: services.killGraceMs,
      log: services.log,
      credentials: credentialSourceFor(services.store, services.settings, services.log),
    }),
  slotProvider(node, { services }) {
    const binding = bindingOf(node, workflowAiDefaultsOf(services.definition), services.models);
    return binding.ok ? binding.provider : undefined;
  },
};

/**
 * The session a `context: shared` or `context: { resume }` node continues: the named node, or
 * the closest node that leaves a session among its dependencies (breadth first, in `depends_on`
 * order, through nodes that leave none). A `shared` node with none upstream starts fresh.
 */
function withSessionSource(node: PlannedNode<AgentAction>, written: WorkflowNode, level: KindPlanLevel): PlannedNode<AgentAction> {
  if (!('context' in written) || written.context === undefined || written.context === 'fresh') return node;
  const id = written.context === 'shared' ? closestSessionUpstream(node, level) : written.context.resume;
  if (id === undefined) return node;
  const sourceNode = level.byId.get(id);
  const source = {
    nodeId: id,
    named: written.context !== 'shared',
    segment: (sourceNode && level.sessionSegmentOf(sourceNode)) ?? id,
    outer: sourceNode === undefined,
  };
  return { ...node, action: { ...node.action, sessionSource: source } };
}

function closestSessionUpstream(start: PlannedNode, level: KindPlanLevel): string | undefined {
  const seen = new Set<string>();
  let frontier = [...start.dependsOn];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      if (seen.has(id)) continue;
      seen.add(id);
      const node = level.byId.get(id);
      if (node && level.sessionSegmentOf(node) !== undefined) return id;
      if (node) next.push(...node.dependsOn);
    }
    frontier = next;
  }
  return undefined;
}

/**
 * A command node's prompt is its command file as the run's copy holds it (captured when the run
 * started: project, home, bundled; read from disk only for a run that has no copy of it), then
 * substituted like an inline prompt: every reference becomes plain text.
 */
function preparePrompt(services: RunServices): PreparePrompt {
  const { substitution, input } = services.context;
  return (node, extra, scope) => {
    const source = node.action.source;
    let text: string;
    if (source.kind === 'inline') {
      text = source.prompt;
    } else {
      const loaded =
        services.files.command(source.name) ??
        loadCommand(defaultLocations(input.home ?? resolveHome()), input.run.working_path ?? undefined, source.name);
      if (!loaded.ok) return { ok: false, error: `Node '${node.id}': ${loaded.message}` };
      text = loaded.text;
    }
    const result = substitutePrompt(text, substitution(node.id, extra, scope));
    return result.ok ? { ok: true, prompt: result.text } : { ok: false, error: `Node '${node.id}': ${result.error.message}` };
  };
}

/** The top-level settings of a workflow that are defaults of its AI nodes. */
export function workflowAiDefaultsOf(definition: WorkflowDefinition): WorkflowAiDefaults {
  const options = Object.fromEntries(
    Object.entries({
      thinking: definition.thinking,
      fallbackModel: definition.fallbackModel,
      betas: definition.betas,
      sandbox: definition.sandbox,
      webSearchMode: definition.webSearchMode,
    }).filter(([, v]) => v !== undefined),
  );
  return { provider: definition.provider, model: definition.model, effort: definition.effort, permissions: definition.permissions, options };
}
