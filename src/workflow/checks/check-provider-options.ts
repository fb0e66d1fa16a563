import { DEFAULT_PERMISSION_LEVEL, type PermissionLevel } from '../../shared/providers/agent-options.js';
import { getProvider, isRegisteredProvider } from '../../shared/providers/registry.js';
import { providerOptionKeys, unsupportedOptionTexts, type ProviderOptionKey } from '../../shared/providers/option-support.js';
import type { WorkflowNode } from '../schema/node-schema.js';
import { bodyWithGroupDefaults } from '../schema/loop-group-defaults.js';
import type { WorkflowDefinitionDraft } from '../schema/workflow-schema.js';

/**
 * Warnings for the node options a node's provider cannot honour, and for a permission level it
 * cannot enforce: an option the language accepts either reaches the provider or is named here
 * (an error with `cairn workflow validate --strict`). The provider is the one written on the node
 * or the workflow, else `defaultProvider` (validation does not know the run's settings; the run's
 * start checks again with each node's resolved provider).
 */

type WorkflowDefaults = Partial<
  Pick<WorkflowDefinitionDraft, 'name' | 'provider' | 'permissions' | 'effort' | 'thinking' | 'fallbackModel' | 'betas' | 'sandbox' | 'webSearchMode'>
>;

/** Workflow-level keys that are defaults of every AI node. */
const inheritedKeys = ['effort', 'thinking', 'fallbackModel', 'betas', 'sandbox', 'webSearchMode'] as const;

/** One AI call site of a workflow: a prompt or command node, a loop's AI body, a gate's prompt rework. */
export interface AiCallSite {
  label: string;
  provider: string | undefined;
  model: string | undefined;
  /** The option keys it sets itself. */
  keys: readonly ProviderOptionKey[];
  permissions: PermissionLevel | undefined;
  /** `shared` or `{ resume }` (as `resume`): the node continues another node's session. */
  continuesSession?: 'shared' | 'resume' | undefined;
}

/**
 * `providerOf` names the provider a call site runs on; by default the one written on it or on the
 * workflow, else `defaultProvider`. The supervisor passes the binding it resolved instead.
 */
export function checkProviderOptions(
  workflow: WorkflowDefaults,
  nodes: readonly WorkflowNode[],
  defaultProvider: string,
  providerOf: (site: AiCallSite) => string | undefined = (site) => site.provider ?? workflow.provider ?? defaultProvider,
): string[] {
  const warnings: string[] = [];
  for (const site of aiCallSites(nodes)) {
    const provider = providerOf(site);
    if (provider === undefined || !isRegisteredProvider(provider)) continue;
    const keys = new Set<ProviderOptionKey>(site.keys);
    for (const key of inheritedKeys) if (workflow[key] !== undefined) keys.add(key);
    const level = site.permissions ?? workflow.permissions ?? DEFAULT_PERMISSION_LEVEL;
    for (const text of unsupportedOptionTexts(provider, keys, level)) warnings.push(`${site.label}: ${text}`);
    if (site.continuesSession && !getProvider(provider)!.capabilities.sessionResume) {
      warnings.push(`${site.label}: provider '${provider}' cannot continue a session, so 'context: ${site.continuesSession}' would start a fresh one (a resume of a named node fails); remove it or use a provider that can`);
    }
  }
  return warnings;
}

/** Every place of the workflow that calls a provider, with what it asks of it. */
export function aiCallSites(nodes: readonly WorkflowNode[], prefix = ''): AiCallSite[] {
  const sites: AiCallSite[] = [];
  for (const node of nodes) {
    const label = prefix === '' ? `Node '${node.id}'` : `${prefix}node '${node.id}'`;
    if ('prompt' in node || 'command' in node || ('loop' in node && node.loop.bash === undefined)) {
      const context = 'context' in node ? node.context : undefined;
      const continuesSession = context === 'shared' ? 'shared' : typeof context === 'object' ? 'resume' : undefined;
      sites.push({ label, provider: node.provider, model: node.model, keys: keysOf(node), permissions: node.permissions, continuesSession });
    } else if ('loop_group' in node) {
      sites.push(...aiCallSites(bodyWithGroupDefaults(node), `${label} → loop_group `));
    } else if ('approval' in node && node.approval.on_reject?.prompt !== undefined) {
      sites.push({ label: `${label} (its on_reject prompt)`, provider: undefined, model: undefined, keys: [], permissions: undefined });
    }
  }
  return sites;
}

function keysOf(node: WorkflowNode): ProviderOptionKey[] {
  const written = node as Partial<Record<ProviderOptionKey, unknown>>;
  return providerOptionKeys.filter((key) => written[key] !== undefined);
}
