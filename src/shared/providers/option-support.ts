import type { PermissionLevel } from './agent-options.js';
import { getProvider, type ProviderCapabilities } from './registry.js';

/**
 * Which node options a provider honours, read from the capabilities the registry declares (and
 * the adapter tests drive). A node option its provider cannot take is never dropped silently:
 * validation and the run's start turn each into a warning (an error with `--strict`).
 */

/** Each AI-node key of the language and the capability its provider needs to honour it. */
const capabilityOfOption = {
  allowed_tools: 'toolRestrictions',
  denied_tools: 'toolRestrictions',
  mcp: 'mcp',
  hooks: 'hooks',
  skills: 'skills',
  agents: 'agents',
  effort: 'effort',
  thinking: 'thinking',
  maxBudgetUsd: 'costControl',
  sandbox: 'sandbox',
  systemPrompt: 'systemPrompt',
  fallbackModel: 'fallbackModel',
  betas: 'betas',
  settingSources: 'settingSources',
  webSearchMode: 'webSearch',
} as const satisfies Record<string, keyof ProviderCapabilities>;

export type ProviderOptionKey = keyof typeof capabilityOfOption | 'pi' | 'output_format';

/** The option keys this module judges, in the order warnings list them. */
export const providerOptionKeys: readonly ProviderOptionKey[] = [...(Object.keys(capabilityOfOption) as ProviderOptionKey[]), 'pi', 'output_format'];

/** Whether `provider` honours `option`; unknown providers are judged elsewhere (load errors). */
export function honoursOption(provider: string, option: ProviderOptionKey): boolean {
  const capabilities = getProvider(provider)?.capabilities;
  if (!capabilities) return true;
  if (option === 'pi') return provider === 'pi';
  if (option === 'output_format') return capabilities.structuredOutput !== 'none';
  return capabilities[capabilityOfOption[option]] === true;
}

/** Whether `provider` maps `level` onto a mechanism of its own exactly. */
export function enforcesPermission(provider: string, level: PermissionLevel): boolean {
  const capabilities = getProvider(provider)?.capabilities;
  return !capabilities || capabilities.permissions.includes(level);
}

/**
 * What `provider` cannot honour of a node that sets `options` (the keys it carries, its
 * workflow's defaults included) and runs at `level`: one sentence each, without the node's name.
 */
export function unsupportedOptionTexts(provider: string, options: Iterable<ProviderOptionKey>, level: PermissionLevel): string[] {
  const texts: string[] = [];
  for (const option of options) {
    if (honoursOption(provider, option)) continue;
    texts.push(`provider '${provider}' cannot honour '${option}', so it would not reach the provider; use a provider that can (GET /api/providers lists each one's capabilities) or remove the key`);
  }
  if (!enforcesPermission(provider, level)) {
    const levels = getProvider(provider)!.capabilities.permissions;
    texts.push(
      `provider '${provider}' cannot enforce permissions '${level}' (it enforces ${levels.length > 0 ? levels.join(', ') : 'no level'}); set 'permissions:' to one of those or use another provider (docs/providers.md, Permissions)`,
    );
  }
  return texts;
}
